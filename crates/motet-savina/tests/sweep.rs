//! `motet-savina sweep` end to end: every point a cell in a child process, the table on stdout, the
//! JSON records, the Markdown table and the log-log plot; usage errors exit with status 2.

mod common;

use common::{binary, run_writing_reports, scratch};

#[test]
fn a_sweep_writes_the_table_the_records_and_the_plot() {
    let dir = scratch("sweep");
    let (stdout, records) = run_writing_reports(
        binary()
            .args(["sweep", "pingpong", "--points", "1,4", "--size", "n=50"])
            .args(["--model", "process,actor,floor", "--threads", "1,2"])
            .args(["--iterations", "2", "--warmup", "0"]),
        &dir,
        "s",
    );
    assert!(stdout.contains("pingpong over p (n=50)"), "{stdout}");
    assert!(stdout.contains("process/actor (2)"), "{stdout}");
    // Two points, each: process and actor on 1 and 2 workers, the floor once.
    assert_eq!(records.len(), 10);
    for r in &records {
        assert_eq!(r["validated"], true, "{r}");
        assert_eq!(r["params"]["n"], 50, "{r}");
        let p = r["params"]["p"].as_u64().unwrap();
        assert_eq!(r["result"], 50 * p, "{r}");
    }
    let md = std::fs::read_to_string(dir.join("s.md")).unwrap();
    assert!(md.contains("| p "), "{md}");
    assert!(md.contains("](s.svg)"), "{md}");
    let svg = std::fs::read_to_string(dir.join("s.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("pingpong over p"),
        "{svg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_with_status_2() {
    let out = binary().args(["sweep", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown benchmark"));
    let out = binary()
        .args(["sweep", "big", "--param", "w"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--points"));
}
