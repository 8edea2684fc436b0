//! Each shared program, run on the host with motet-reactor on one and on two workers, validates
//! at small sizes, and does not validate before it ran (so a validation that always passes would
//! be caught).

use motet_embedded_programs::{count, pingpong, threadring};
use motet_reactor::{Program, Runner};
use motet_runtime::Runtime;

fn run(program: &mut Program, workers: usize) {
    let rt = Runtime::builder().workers(workers).build().unwrap();
    Runner::on(rt.handle())
        .fast(true)
        .run(program)
        .expect("the run succeeds");
}

#[test]
fn pingpong_validates_after_a_run_only() {
    for workers in [1, 2] {
        let mut p = pingpong::build(500).unwrap();
        assert!(!p.outcome().validated);
        run(&mut p.program, workers);
        let o = p.outcome();
        assert_eq!(o.result, Some(500));
        assert!(o.validated);
    }
}

#[test]
fn threadring_reports_the_node_the_zero_ping_reaches() {
    for workers in [1, 2] {
        let mut p = threadring::build(7, 23).unwrap();
        assert_eq!(p.outcome().result, None);
        run(&mut p.program, workers);
        let o = p.outcome();
        assert_eq!(o.result, Some(23 % 7));
        assert!(o.validated);
    }
}

#[test]
fn count_counts_every_increment() {
    for workers in [1, 2] {
        let mut p = count::build(1_000).unwrap();
        assert!(!p.outcome().validated);
        run(&mut p.program, workers);
        let o = p.outcome();
        assert_eq!(o.result, Some(1_000));
        assert!(o.validated);
    }
}
