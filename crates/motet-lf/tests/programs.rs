//! End to end: small LF programs written for motet are generated, built and run the way
//! `motet-lf test` runs them; programs that must fail or be skipped are reported so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use motet_lf::project::{build_crate, generate_crate};
use motet_lf::suite::{lf_files, run_one, Outcome};

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("motet-lf")
}

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

/// One test, so that the generated crates are built one after the other into one target
/// directory (motet is compiled once for all of them).
#[test]
fn programs_run_and_failures_are_reported() {
    let out = out_dir();
    let limit = Duration::from_secs(120);
    let mut failures = Vec::new();
    let programs: Vec<PathBuf> = lf_files(&dir("lf"))
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/lib/"))
        .collect();
    assert!(programs.len() >= 6, "{programs:?}");
    let two = ["--workers".to_string(), "2".to_string()];
    for lf in &programs {
        // On the calling thread, then on two workers: the outcome is the same.
        for args in [&[][..], &two[..]] {
            match run_one(lf, &out, limit, args) {
                Outcome::Pass => {}
                other => failures.push(format!("{} {args:?}: {other:?}", lf.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");

    // Parameters of the main reactor from the command line.
    let (_, g) = generate_crate(&dir("lf").join("Params.lf"), &out).unwrap();
    build_crate(&g, &out, true).unwrap();
    let run = |args: &[&str]| Command::new(g.binary(&out)).args(args).output().unwrap();
    assert!(run(&["--x", "4", "--expected", "24"]).status.success());
    let wrong = run(&["--x", "4"]);
    assert_eq!(
        wrong.status.code(),
        Some(1),
        "a failed assertion exits with 1"
    );
    let bad = run(&["--x", "four"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--x"));
    let unknown = run(&["--y", "1"]);
    assert_eq!(unknown.status.code(), Some(2));

    // Programs that must not pass.
    let failing = dir("lf_failing");
    match run_one(&failing.join("WrongValue.lf"), &out, limit, &[]) {
        Outcome::Fail(why) => assert!(why.contains("exit status"), "{why}"),
        other => panic!("WrongValue: {other:?}"),
    }
    match run_one(&failing.join("NoCompile.lf"), &out, limit, &[]) {
        Outcome::Fail(why) => assert!(why.contains("does not compile"), "{why}"),
        other => panic!("NoCompile: {other:?}"),
    }
    match run_one(&failing.join("Federated.lf"), &out, limit, &[]) {
        Outcome::Skip(why) => assert!(why.contains("federated"), "{why}"),
        other => panic!("Federated: {other:?}"),
    }
}

#[test]
fn generator_errors_name_the_file() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("motet-lf-errors");
    std::fs::create_dir_all(&tmp).unwrap();
    let lf = tmp.join("Bad.lf");
    std::fs::write(
        &lf,
        "target Rust\nmain reactor {\n  reaction(startup) -> nothing {= =}\n}\n",
    )
    .unwrap();
    let e = generate_crate(&lf, &tmp.join("out")).unwrap_err();
    assert!(e.to_string().contains("Bad.lf"), "{e}");
    assert!(e.message.contains("nothing"), "{e}");
    assert_eq!((e.line, e.col), (3, 24), "{e}");
    assert!(
        e.to_string().contains("reaction(startup) -> nothing"),
        "{e}"
    );
    std::fs::write(&lf, "target Rust\nmain reactor {\n  x = new Missing()\n}\n").unwrap();
    let e = generate_crate(&lf, &tmp.join("out")).unwrap_err();
    assert!(e.message.contains("Missing"), "{e}");
    assert_eq!(e.line, 3, "{e}");
    std::fs::write(&lf, "target C\nmain reactor {}\n").unwrap();
    let e = generate_crate(&lf, &tmp.join("out")).unwrap_err();
    assert_eq!((e.line, e.col), (1, 1));
}

#[test]
fn untyped_parameters_and_state_are_reported() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("motet-lf-untyped");
    std::fs::create_dir_all(&tmp).unwrap();
    let lf = tmp.join("Untyped.lf");
    for (src, message) in [
        (
            "target Rust\nreactor A(x) {}\nmain reactor { a = new A(x = 1) }\n",
            "parameter `x` of `A` needs a type",
        ),
        (
            "target Rust\nreactor A { state s; }\nmain reactor { a = new A() }\n",
            "state variable `s` of `A` needs a type",
        ),
    ] {
        std::fs::write(&lf, src).unwrap();
        let e = generate_crate(&lf, &tmp.join("out")).unwrap_err();
        assert_eq!(e.message, message, "{e}");
    }
    // A type inferred from the initializer, or from the parameter it names.
    std::fs::write(
        &lf,
        "target Rust\nreactor A(x = 1) { state s = x; }\nmain reactor { a = new A() }\n",
    )
    .unwrap();
    let (_, g) = generate_crate(&lf, &tmp.join("out")).unwrap();
    let main = std::fs::read_to_string(g.dir.join("src/main.rs")).unwrap();
    assert!(main.contains("let s: i32 = x;"), "{main}");
}
