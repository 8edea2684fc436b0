//! What the benchmarks' unit tests share: running one variant at given parameters, and running every
//! motet variant a test must cover (actors on one and on two workers, and the floor).

use crate::bench::{Benchmark, Model, Outcome};
use crate::params::Params;

/// The benchmark's "small" parameters with `sets` applied.
pub(crate) fn params(bench: &Benchmark, sets: &[(&str, f64)]) -> Params {
    let mut params = Params::small(bench.params);
    for &(name, value) in sets {
        params
            .set(name, value)
            .unwrap_or_else(|e| panic!("{}: {e}", bench.name));
    }
    params
}

/// Prepares `model` on `threads` workers at `params` and runs `iterations` iterations on that one
/// prepared program; returns every outcome.
pub(crate) fn run(
    bench: &Benchmark,
    model: Model,
    threads: usize,
    params: &Params,
    iterations: usize,
) -> Vec<Outcome> {
    let variant = bench
        .variant(model)
        .unwrap_or_else(|| panic!("{} has no {model} variant", bench.name));
    let mut program = (variant.prepare)(params, threads)
        .unwrap_or_else(|e| panic!("{} {model} ({params}): {e}", bench.name));
    (0..iterations)
        .map(|_| {
            program.setup();
            program.run()
        })
        .collect()
}

/// Runs the actor variant on one and on two workers (two iterations each, on the same prepared
/// program) and the floor once, asserts that every outcome validates, and returns the outcomes: the
/// actor's on one worker, on two, then the floor's.
pub(crate) fn validates(bench: &Benchmark, sets: &[(&str, f64)]) -> Vec<Outcome> {
    let params = params(bench, sets);
    let mut outcomes = Vec::new();
    for (model, threads, iterations) in [
        (Model::Actor, 1, 2),
        (Model::Actor, 2, 2),
        (Model::Floor, 1, 1),
    ] {
        for outcome in run(bench, model, threads, &params, iterations) {
            assert_eq!(
                outcome.check,
                Ok(()),
                "{} {model} threads={threads} ({params})",
                bench.name
            );
            assert!(
                !outcome.result.is_null(),
                "{} {model}: no result",
                bench.name
            );
            outcomes.push(outcome);
        }
    }
    outcomes
}

/// The error `prepare` gives for `sets` (on the floor and the actor variant alike).
pub(crate) fn rejects(bench: &Benchmark, sets: &[(&str, f64)]) -> String {
    let params = params(bench, sets);
    let mut errors = Vec::new();
    for model in [Model::Actor, Model::Floor] {
        let variant = bench.variant(model).expect("every benchmark has both");
        match (variant.prepare)(&params, 1) {
            Ok(_) => panic!("{} {model} accepted {params}", bench.name),
            Err(e) => errors.push(e),
        }
    }
    assert_eq!(errors[0], errors[1], "{}: models disagree", bench.name);
    errors.swap_remove(0)
}
