//! The `motet-savina` binary end to end: each cell in a child process with its peak memory, the
//! JSON, Markdown and SVG reports, `list`, and the hidden `cell` subcommand's usage errors.

mod common;

use common::{binary, run_writing_reports, scratch};

#[test]
fn a_run_writes_records_with_peak_memory_a_report_and_a_chart() {
    let dir = scratch("run");
    let (stdout, records) = run_writing_reports(
        binary()
            .args([
                "run",
                "count",
                "threadring",
                "--model",
                "actor,floor",
                "--threads",
                "1",
            ])
            .args([
                "--size",
                "small",
                "--size",
                "n=1000",
                "--iterations",
                "2",
                "--warmup",
                "0",
            ]),
        &dir,
        "r",
    );
    assert!(stdout.contains("peak MiB"), "{stdout}");
    assert_eq!(records.len(), 4);
    for r in &records {
        assert_eq!(r["validated"], true, "{r}");
        assert_eq!(r["iterations"], 2, "{r}");
        if cfg!(unix) {
            let kib = r["peak_rss_kib"].as_u64().unwrap_or_else(|| panic!("{r}"));
            assert!(kib > 100, "{r}");
        }
    }
    assert_eq!(records[0]["params"]["n"], 1000);
    let md = std::fs::read_to_string(dir.join("r.md")).unwrap();
    for needle in [
        "| machine |",
        "| compiler | rustc",
        "## Times",
        "](r.svg)",
        "| threadring | 1 |",
    ] {
        assert!(md.contains(needle), "{needle} missing from\n{md}");
    }
    let svg = std::fs::read_to_string(dir.join("r.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("threadring"),
        "{svg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_cell_fails_the_run_and_the_others_still_run() {
    // n=0 is rejected by prepare in the child; count still runs.
    let out = binary()
        .args([
            "run",
            "threadring",
            "count",
            "--model",
            "floor",
            "--size",
            "small",
        ])
        .args(["--size", "n=0", "--iterations", "1", "--warmup", "0"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("FAILED: threadring floor"), "{stderr}");
    assert!(stderr.contains("prepare failed"), "{stderr}");
}

#[test]
fn the_cell_subcommand_reports_json_lines_and_rejects_unknown_jobs() {
    let out = binary()
        .args([
            "cell",
            "count",
            "--model",
            "floor",
            "--iterations",
            "1",
            "--warmup",
            "1",
        ])
        .args(["--size", "n=100"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "done");
    assert_eq!(last["measured"]["result"], 100);
    let out = binary()
        .args(["cell", "nosuch", "--model", "floor"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown benchmark"));
}

#[test]
fn list_prints_the_matrix() {
    let out = binary().arg("list").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("id  benchmark"), "{text}");
    assert!(text.contains("●"), "{text}");
}
