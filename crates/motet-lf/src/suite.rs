//! `motet-lf test DIR`: every `.lf` file under DIR with a main reactor is generated, built and
//! run as LF's test harness runs it (it passes if it exits with status 0 within a time limit),
//! except the programs outside motet-lf's scope, which are skipped with the reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::load::parse_file;
use crate::project::{build_crate, generate_crate};

/// The outcome of one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Built and exited with status 0.
    Pass,
    /// Did not generate, build or run successfully.
    Fail(String),
    /// Out of scope.
    Skip(String),
}

/// Why a program is out of scope, if it is.
pub fn skip_reason(path: &Path, src: &str) -> Option<String> {
    let p = path.to_string_lossy();
    if p.contains("/docker/") || src.contains("docker:") {
        return Some("docker: building container images is out of scope".into());
    }
    if src.contains("federated reactor") {
        return Some("federated programs are out of scope".into());
    }
    None
}

/// All `.lf` files under `dir`, sorted.
pub fn lf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "lf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Runs `bin` with `args` and a time limit; its output is discarded unless it fails.
fn run_limited(bin: &Path, args: &[String], limit: Duration) -> Result<(), String> {
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if status.success() {
                    return Ok(());
                }
                let mut err = String::new();
                if let Some(mut s) = child.stderr.take() {
                    use std::io::Read;
                    let _ = s.read_to_string(&mut err);
                }
                let last = err
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" | ");
                return Err(format!("{status}: {last}"));
            }
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not finish within {} s", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait: {e}")),
        }
    }
}

/// The first compiler error of cargo's output, on one line.
fn first_error(stderr: &str) -> String {
    let mut lines = stderr.lines();
    while let Some(l) = lines.next() {
        if l.starts_with("error") {
            let loc = lines.next().unwrap_or("").trim();
            return format!("does not compile: {l} {loc}");
        }
    }
    format!(
        "does not compile: {}",
        stderr.lines().last().unwrap_or("").trim()
    )
}

/// Generates, builds and runs one program, passing it `args`.
pub fn run_one(lf: &Path, out: &Path, limit: Duration, args: &[String]) -> Outcome {
    let (file, src) = match parse_file(lf) {
        Ok(x) => x,
        Err(e) => return Outcome::Fail(e.to_string().replace('\n', " ")),
    };
    if let Some(r) = skip_reason(lf, &src) {
        return Outcome::Skip(r);
    }
    if !file.reactors.iter().any(|r| r.main) {
        return Outcome::Skip("no main reactor (a library file)".into());
    }
    let (_, g) = match generate_crate(lf, out) {
        Ok(x) => x,
        Err(e) => return Outcome::Fail(e.to_string().replace('\n', " ")),
    };
    if let Err(e) = build_crate(&g, out, true) {
        return Outcome::Fail(first_error(&e));
    }
    match run_limited(&g.binary(out), args, limit) {
        Ok(()) => Outcome::Pass,
        Err(e) => Outcome::Fail(e),
    }
}

/// Runs every program under `dir` with `args`, printing one line per program and a summary;
/// returns the counts (passed, failed, skipped).
pub fn run_suite(
    dir: &Path,
    out: &Path,
    limit: Duration,
    args: &[String],
) -> (usize, usize, usize) {
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for lf in lf_files(dir) {
        let name = lf
            .strip_prefix(dir)
            .unwrap_or(&lf)
            .to_string_lossy()
            .into_owned();
        match run_one(&lf, out, limit, args) {
            Outcome::Pass => {
                pass += 1;
                println!("PASS {name}");
            }
            Outcome::Fail(why) => {
                fail += 1;
                println!("FAIL {name}: {why}");
            }
            Outcome::Skip(why) => {
                // Library files (no main reactor) are not programs: they are not counted.
                if why.starts_with("no main reactor") {
                    continue;
                }
                skip += 1;
                println!("SKIP {name}: {why}");
            }
        }
    }
    println!("{pass} passed, {fail} failed, {skip} skipped");
    (pass, fail, skip)
}
