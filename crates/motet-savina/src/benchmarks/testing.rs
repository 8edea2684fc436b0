//! Helpers for the benchmarks' unit tests: run one variant at given sizes and check its outcome.

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
