//! What the benchmarks' unit tests share: running one variant at given parameters and checking its
//! outcome, and running every motet variant a test must cover (actors on one and on two workers,
//! and the floor).

use crate::bench::{Benchmark, Model, Outcome};
use crate::params::Params;

/// Runs `model`'s variant of `b` once on `threads` workers, at the small sizes with `sets`
/// overriding parameters, asserts that the outcome validates, and returns it.
///
/// # Panics
/// If the benchmark has no such variant, the parameters are rejected, or the check fails.
pub(crate) fn run(b: &Benchmark, model: Model, threads: usize, sets: &[(&str, f64)]) -> Outcome {
    let mut params = Params::small(b.params);
    for &(name, value) in sets {
        params.set(name, value).expect("a declared parameter");
    }
    let variant = b
        .variant(model)
        .unwrap_or_else(|| panic!("{} has no {model} variant", b.name));
    let mut program = (variant.prepare)(&params, threads)
        .unwrap_or_else(|e| panic!("{} {model} ({params}): {e}", b.name));
    program.setup();
    let outcome = program.run();
    assert_eq!(
        outcome.check,
        Ok(()),
        "{} {model} t={threads} ({params})",
        b.name
    );
    outcome
}

/// Runs the actor variant on one and on two workers and the floor at the same sizes (each must
/// validate) and returns the three results, in that order.
pub(crate) fn run_actor_and_floor(b: &Benchmark, sets: &[(&str, f64)]) -> [serde_json::Value; 3] {
    [
        run(b, Model::Actor, 1, sets).result,
        run(b, Model::Actor, 2, sets).result,
        run(b, Model::Floor, 1, sets).result,
    ]
}

/// The error `prepare` gives for `sets`, for every variant of `b`.
///
/// # Panics
/// If some variant accepts the parameters.
pub(crate) fn rejects(b: &Benchmark, sets: &[(&str, f64)]) -> String {
    let mut params = Params::small(b.params);
    for &(name, value) in sets {
        params.set(name, value).expect("a declared parameter");
    }
    let mut last = String::new();
    for v in (b.variants)() {
        match (v.prepare)(&params, 1) {
            Ok(_) => panic!("{} {} accepted {params}", b.name, v.model),
            Err(e) => last = e,
        }
    }
    last
}

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
pub(crate) fn run_iterations(
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
        for outcome in run_iterations(bench, model, threads, &params, iterations) {
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

/// The error `prepare` gives for `sets` on the floor and the actor variant, which must agree.
pub(crate) fn rejects_alike(bench: &Benchmark, sets: &[(&str, f64)]) -> String {
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
