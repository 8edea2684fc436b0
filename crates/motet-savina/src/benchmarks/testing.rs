//! What the benchmarks' unit tests share: running variants at given parameters and checking their
//! outcomes, and the parameter errors variants must agree on.
//!
//! Every runner here asserts that each outcome validates, naming the benchmark, the model, the
//! thread count and the parameters when one does not; a test then only states what it expects of
//! the results. [`cells`] is the one runner; the others name the cells most tests run.

use crate::bench::{Benchmark, Model, Outcome};
use crate::params::Params;

/// The benchmark's "small" parameters with `sets` applied.
///
/// # Panics
/// If `sets` names a parameter the benchmark does not declare.
pub(crate) fn params(bench: &Benchmark, sets: &[(&str, f64)]) -> Params {
    with_sets(bench, Params::small(bench.params), sets)
}

/// Savina's default parameters of the benchmark with `sets` applied.
///
/// # Panics
/// If `sets` names a parameter the benchmark does not declare.
pub(crate) fn defaults(bench: &Benchmark, sets: &[(&str, f64)]) -> Params {
    with_sets(bench, Params::defaults(bench.params), sets)
}

/// `params` with `sets` applied.
fn with_sets(bench: &Benchmark, mut params: Params, sets: &[(&str, f64)]) -> Params {
    for &(name, value) in sets {
        params
            .set(name, value)
            .unwrap_or_else(|e| panic!("{}: {e}", bench.name));
    }
    params
}

/// Prepares `model` on `threads` workers at `params` and runs `iterations` iterations on that one
/// prepared program; returns every outcome, checked or not.
///
/// # Panics
/// If the benchmark has no such variant or the parameters are rejected.
pub(crate) fn run_iterations(
    bench: &Benchmark,
    model: Model,
    threads: usize,
    params: &Params,
    iterations: usize,
) -> Vec<Outcome> {
    let variant = variant(bench, model);
    let mut program = variant
        .build(params, threads)
        .unwrap_or_else(|e| panic!("{} {model} ({params}): {e}", bench.name));
    (0..iterations)
        .map(|_| {
            program.setup();
            let outcome = program.run();
            program.validate(outcome)
        })
        .collect()
}

/// As [`run_iterations`], asserting that every outcome validates, with each iteration's reactor
/// figures (for the reactor models; the tests of programs that create reactors read
/// `reactors_created` there).
///
/// # Panics
/// If the variant is missing, the parameters are rejected, an outcome fails its check, or the
/// variant reports no reactor figures.
pub(crate) fn reactor_runs(
    bench: &Benchmark,
    model: Model,
    threads: usize,
    params: &Params,
    iterations: usize,
) -> Vec<(Outcome, crate::bench::ReactorMetrics)> {
    let cell = format!("{} {model} threads={threads} ({params})", bench.name);
    let mut program = variant(bench, model)
        .build(params, threads)
        .unwrap_or_else(|e| panic!("{cell}: {e}"));
    (0..iterations)
        .map(|i| {
            program.setup();
            let outcome = program.run();
            let outcome = program.validate(outcome);
            assert_eq!(outcome.check, Ok(()), "{cell} iteration {i}");
            let metrics = program
                .metrics()
                .unwrap_or_else(|| panic!("{cell}: no reactor figures"));
            (outcome, metrics)
        })
        .collect()
}

/// The variant of `bench` for `model`. The tests' `floor` is the benchmark's sequential program:
/// `floor-loop` where it has no `floor`.
///
/// # Panics
/// If the benchmark has no such variant.
fn variant(bench: &Benchmark, model: Model) -> crate::bench::Variant {
    bench
        .variant(model)
        .or_else(|| (model == Model::Floor).then(|| bench.variant(Model::FloorLoop))?)
        .unwrap_or_else(|| panic!("{} has no {model} variant", bench.name))
}

/// Runs each cell `(model, threads, iterations)` of `bench` at the small sizes with `sets`
/// overriding parameters (the iterations of a cell on one prepared program), asserts that every
/// outcome validates and carries a result, and returns the outcomes in cell order.
///
/// # Panics
/// If a variant is missing, the parameters are rejected, or an outcome fails its check.
pub(crate) fn cells(
    bench: &Benchmark,
    cells: &[(Model, usize, usize)],
    sets: &[(&str, f64)],
) -> Vec<Outcome> {
    let params = params(bench, sets);
    let mut outcomes = Vec::new();
    for &(model, threads, iterations) in cells {
        for outcome in run_iterations(bench, model, threads, &params, iterations) {
            let cell = format!("{} {model} threads={threads} ({params})", bench.name);
            assert_eq!(outcome.check, Ok(()), "{cell}");
            assert!(!outcome.result.is_null(), "{cell}: no result");
            outcomes.push(outcome);
        }
    }
    outcomes
}

/// Runs `model`'s variant of `b` once on `threads` workers (see [`cells`]) and returns the outcome.
pub(crate) fn run(b: &Benchmark, model: Model, threads: usize, sets: &[(&str, f64)]) -> Outcome {
    cells(b, &[(model, threads, 1)], sets).swap_remove(0)
}

/// The cells that run each of `models` on one worker and on two (a sequential model, on one),
/// `iterations` iterations each.
pub(crate) fn on_one_and_two(models: &[Model], iterations: usize) -> Vec<(Model, usize, usize)> {
    let mut cells = Vec::new();
    for &model in models {
        cells.push((model, 1, iterations));
        if !model.is_sequential() {
            cells.push((model, 2, iterations));
        }
    }
    cells
}

/// Runs `cells` (see [`cells`]) and asserts that every outcome's result is `result`.
pub(crate) fn expect_result(
    bench: &Benchmark,
    cells: &[(Model, usize, usize)],
    sets: &[(&str, f64)],
    result: serde_json::Value,
) {
    for (outcome, cell) in self::cells(bench, cells, sets).iter().zip(expand(cells)) {
        assert_eq!(outcome.result, result, "{} {cell:?} {sets:?}", bench.name);
    }
}

/// Asserts what the check of a float result near `expected` does: it accepts `expected`, rejects a
/// result one part in 10⁹ above it (beyond the tolerance of every benchmark that uses this) and
/// fails a run that reported nothing.
pub(crate) fn assert_float_check(expected: f64, check: impl Fn(Option<f64>) -> Outcome) {
    assert!(check(Some(expected)).check.is_ok());
    assert!(check(Some(expected * (1.0 + 1e-9))).check.is_err());
    assert!(check(None).check.is_err());
}

/// Each cell once per iteration, in run order.
fn expand(cells: &[(Model, usize, usize)]) -> impl Iterator<Item = (Model, usize)> + '_ {
    cells
        .iter()
        .flat_map(|&(model, threads, iterations)| (0..iterations).map(move |_| (model, threads)))
}

/// Runs the actor variant on one and on two workers and the floor at the same sizes (see
/// [`cells`]) and returns the three results, in that order.
pub(crate) fn run_actor_and_floor(b: &Benchmark, sets: &[(&str, f64)]) -> [serde_json::Value; 3] {
    let cells = [
        (Model::Actor, 1, 1),
        (Model::Actor, 2, 1),
        (Model::Floor, 1, 1),
    ];
    let [one, two, floor]: [Outcome; 3] = cells_of(b, &cells, sets);
    [one.result, two.result, floor.result]
}

/// [`cells`] for a fixed number of outcomes.
fn cells_of<const N: usize>(
    b: &Benchmark,
    cells: &[(Model, usize, usize)],
    sets: &[(&str, f64)],
) -> [Outcome; N] {
    self::cells(b, cells, sets)
        .try_into()
        .unwrap_or_else(|v: Vec<Outcome>| panic!("{}: {} outcomes, expected {N}", b.name, v.len()))
}

/// The cells most benchmarks' tests run: the actor variant on one and on two workers (two
/// iterations each, on the same prepared program) and the floor once.
pub(crate) const ACTOR_AND_FLOOR: &[(Model, usize, usize)] = &[
    (Model::Actor, 1, 2),
    (Model::Actor, 2, 2),
    (Model::Floor, 1, 1),
];

/// The cells the tuned actor and floor variants' tests run: `actor-tuned` on one worker (two
/// iterations) and on two (one), and `floor-tuned` once.
pub(crate) const TUNED_ACTOR_AND_FLOOR: &[(Model, usize, usize)] = &[
    (Model::ActorTuned, 1, 2),
    (Model::ActorTuned, 2, 1),
    (Model::FloorTuned, 1, 1),
];

/// The cells the BoC variants' tests run: on one and on two workers, two iterations each on the
/// same prepared program.
pub(crate) const BOC: &[(Model, usize, usize)] = &[(Model::Boc, 1, 2), (Model::Boc, 2, 2)];

/// Runs [`ACTOR_AND_FLOOR`] (see [`cells`]) and returns the outcomes: the actor's on one worker,
/// on two, then the floor's.
pub(crate) fn validates(bench: &Benchmark, sets: &[(&str, f64)]) -> Vec<Outcome> {
    cells(bench, ACTOR_AND_FLOOR, sets)
}

/// Runs [`BOC`] (see [`cells`]) and returns the outcomes.
pub(crate) fn boc_validates(bench: &Benchmark, sets: &[(&str, f64)]) -> Vec<Outcome> {
    cells(bench, BOC, sets)
}

/// The error `prepare` gives for `sets`, for every variant of `b`.
///
/// # Panics
/// If some variant accepts the parameters.
pub(crate) fn rejects(b: &Benchmark, sets: &[(&str, f64)]) -> String {
    let models: Vec<Model> = (b.variants)().iter().map(|v| v.model).collect();
    let mut errors = rejected_by(b, &models, sets);
    errors.pop().expect("every benchmark has variants")
}

/// The error `prepare` gives for `sets` on the floor and the actor variant, which must agree.
///
/// # Panics
/// If either accepts the parameters or their errors differ.
pub(crate) fn rejects_alike(bench: &Benchmark, sets: &[(&str, f64)]) -> String {
    let mut errors = rejected_by(bench, &[Model::Actor, Model::Floor], sets);
    assert_eq!(errors[0], errors[1], "{}: models disagree", bench.name);
    errors.swap_remove(0)
}

/// The errors `prepare` gives for `sets` for each of `models`, in that order.
///
/// # Panics
/// If a variant is missing or accepts the parameters.
fn rejected_by(bench: &Benchmark, models: &[Model], sets: &[(&str, f64)]) -> Vec<String> {
    let params = params(bench, sets);
    models
        .iter()
        .map(|&model| {
            let variant = variant(bench, model);
            match variant.build(&params, 1) {
                Ok(_) => panic!("{} {model} accepted {params}", bench.name),
                Err(e) => e,
            }
        })
        .collect()
}

/// Asserts that each of `models`' variants of `bench` checks its result after the timed run, in
/// [`Iteration::validate`](crate::bench::Iteration::validate) (Savina's `cleanupIteration`): the
/// timed run's own outcome carries no result, and the validated one is checked and has one.
///
/// # Panics
/// If a variant is missing, rejects `sets`, returns a result from its timed run or fails its check.
pub(crate) fn validation_is_untimed(bench: &Benchmark, models: &[Model], sets: &[(&str, f64)]) {
    let params = params(bench, sets);
    for &model in models {
        let variant = bench
            .variant(model)
            .unwrap_or_else(|| panic!("{} has no {model} variant", bench.name));
        let mut program = variant
            .build(&params, 1)
            .unwrap_or_else(|e| panic!("{} {model}: {e}", bench.name));
        program.setup();
        let timed = program.run();
        assert!(
            timed.result.is_null(),
            "{} {model}: the timed run returned a result ({})",
            bench.name,
            timed.result
        );
        let checked = program.validate(timed);
        assert_eq!(checked.check, Ok(()), "{} {model}", bench.name);
        assert!(
            !checked.result.is_null(),
            "{} {model}: no result",
            bench.name
        );
    }
}
