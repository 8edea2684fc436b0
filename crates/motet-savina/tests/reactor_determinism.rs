//! Determinism of the reactor programs over many runs on two workers: every run of each of the six
//! programs (at a reduced size), on both schedulers, gives the result and the trace of tags (each
//! tag in order, with the reactions executed at it) of a run on one worker.
//!
//! Its own test binary, since turning tag traces on is process-wide. `MOTET_SAVINA_RUNS=n` changes
//! the number of runs (100 by default).

mod common;

use motet_savina::bench::{record_tag_traces, Model};

fn runs() -> usize {
    std::env::var("MOTET_SAVINA_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

/// Runs `model`'s variant of `name` `runs` times on `threads` workers and returns each run's
/// result and digest of its tag trace, asserting that every run validates (see
/// [`common::runs`]).
fn traced(
    name: &str,
    model: Model,
    threads: usize,
    sets: &[(&str, f64)],
    runs: usize,
) -> Vec<(serde_json::Value, u64)> {
    common::runs(name, model, threads, &common::params(name, sets), runs)
        .into_iter()
        .map(|(result, metrics)| {
            let digest = metrics
                .and_then(|m| m.tag_trace)
                .unwrap_or_else(|| panic!("{name} {model}: no tag trace"));
            (result, digest)
        })
        .collect()
}

#[test]
fn reactor_programs_give_the_same_result_and_tags_over_many_runs_on_two_workers() {
    record_tag_traces(true);
    let cases: [(&str, &[(&str, f64)]); 6] = [
        ("pingpong", &[("n", 200.0)]),
        ("count", &[("n", 200.0)]),
        ("fjthrput", &[("n", 20.0), ("a", 12.0)]),
        ("threadring", &[("n", 13.0), ("r", 200.0)]),
        ("chameneos", &[("c", 11.0), ("m", 200.0)]),
        ("big", &[("n", 20.0), ("w", 12.0)]),
    ];
    let runs = runs();
    for (name, sets) in cases {
        let reference = traced(name, Model::Reactor, 1, sets, 1).remove(0);
        for model in [Model::Reactor, Model::ReactorLevel] {
            let all = traced(name, model, 2, sets, runs);
            assert_eq!(all.len(), runs);
            for (i, run) in all.into_iter().enumerate() {
                assert_eq!(run, reference, "{name} {model} t=2 run {i}");
            }
        }
    }
}

/// The digest tells runs apart: a different size gives a different trace of tags.
#[test]
fn the_tag_trace_differs_with_the_program() {
    record_tag_traces(true);
    let (_, a) = traced("pingpong", Model::Reactor, 1, &[("n", 10.0)], 1).remove(0);
    let (_, b) = traced("pingpong", Model::Reactor, 1, &[("n", 11.0)], 1).remove(0);
    assert_ne!(a, b);
}
