//! The runner's tests: a test benchmark with floor, actor, BoC and process variants, run in-process
//! through [`run`](super::run) with an observer that records what it hears.

use super::{run, test_plan, Job, Observer, Plan};
use crate::bench::{Benchmark, Iteration, Model, Outcome, Prepared, Variant};
use crate::params::{ParamSpec, Params};
use crate::record::Record;

const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "n",
    default: 3.0,
    small: 1.0,
    help: "",
}];

/// Passes on `n` = 3, fails its check otherwise; panics on the Actor model's second run; the
/// floor's runs take `n` × 300 µs at least.
struct Toy {
    n: u64,
    runs: u32,
    panic_on: Option<u32>,
    pause: std::time::Duration,
}

impl Iteration for Toy {
    fn run(&mut self) -> Outcome {
        std::thread::sleep(self.pause);
        self.runs += 1;
        if self.panic_on == Some(self.runs) {
            panic!("toy panic");
        }
        Outcome::expect_eq("n", 3, self.n)
    }
}

fn prepare_floor(p: &Params, _: usize) -> Prepared {
    Ok(Box::new(Toy {
        n: p.u64("n"),
        runs: 0,
        panic_on: None,
        pause: std::time::Duration::from_micros(p.u64("n") * 300),
    }))
}

fn prepare_actor(p: &Params, _: usize) -> Prepared {
    Ok(Box::new(Toy {
        n: p.u64("n"),
        runs: 0,
        panic_on: Some(2),
        pause: std::time::Duration::ZERO,
    }))
}

fn prepare_boc(_: &Params, threads: usize) -> Prepared {
    Err(format!("no pool of {threads}"))
}

fn prepare_process(p: &Params, _: usize) -> Prepared {
    Ok(Box::new(Toy {
        n: p.u64("n"),
        runs: 0,
        panic_on: None,
        pause: std::time::Duration::ZERO,
    }))
}

fn variants() -> Vec<Variant> {
    vec![
        Variant::new(Model::Floor, prepare_floor),
        Variant::new(Model::Actor, prepare_actor),
        Variant::new(Model::Boc, prepare_boc),
        Variant::new(Model::Process, prepare_process),
    ]
}

static TOY: Benchmark = Benchmark {
    name: "toy",
    id: 0,
    title: "a test program",
    params: PARAMS,
    variants,
};

#[derive(Default)]
struct Log {
    started: Vec<(Model, usize)>,
    skipped: Vec<Model>,
    failed: Vec<(Model, usize, String)>,
    records: Vec<Record>,
    progress: usize,
    planned: usize,
}

impl Observer for Log {
    fn planned(&mut self, jobs: usize, per_job: usize) {
        self.planned = jobs * per_job;
    }
    fn skipped(&mut self, _: &Benchmark, model: Model) {
        self.skipped.push(model);
    }
    fn started(&mut self, job: &Job<'_>) {
        self.started.push((job.variant.model, job.threads));
    }
    fn progressed(&mut self, n: usize) {
        self.progress += n;
    }
    fn failed(&mut self, job: &Job<'_>, what: &str) {
        self.failed
            .push((job.variant.model, job.threads, what.to_string()));
    }
    fn finished(&mut self, record: &Record) {
        self.records.push(record.clone());
    }
}

fn plan(n: f64, models: Vec<Model>) -> Plan {
    let mut params = Params::defaults(PARAMS);
    params.set("n", n).unwrap();
    test_plan(vec![(&TOY, params)], models)
}

/// Fails its outcome in `run` and passes it in `validate`, counting the validations.
struct Deferred {
    validated: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Iteration for Deferred {
    fn run(&mut self) -> Outcome {
        Outcome::failed("not validated")
    }

    fn validate(&mut self, outcome: Outcome) -> Outcome {
        assert!(outcome.check.is_err());
        self.validated
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Outcome::expect_eq("n", 3, 3)
    }
}

static VALIDATIONS: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicUsize>> =
    std::sync::OnceLock::new();

fn prepare_deferred(_: &Params, _: usize) -> Prepared {
    Ok(Box::new(Deferred {
        validated: VALIDATIONS.get_or_init(Default::default).clone(),
    }))
}

static DEFERRED: Benchmark = Benchmark {
    name: "deferred",
    id: 0,
    title: "a test program with an untimed validation",
    params: PARAMS,
    variants: || vec![Variant::new(Model::Floor, prepare_deferred)],
};

/// The runner validates every iteration, warm-up included, after timing it.
#[test]
fn every_iteration_is_validated() {
    let mut log = Log::default();
    let mut p = plan(3.0, vec![Model::Floor]);
    p.benchmarks = vec![(&DEFERRED, Params::defaults(PARAMS))];
    let summary = run(&p, &mut log);
    assert_eq!(summary.failures, 0, "{:?}", log.failed);
    assert!(summary.records[0].validated);
    assert_eq!(summary.records[0].result, serde_json::json!(3));
    let validations = VALIDATIONS.get().unwrap();
    assert_eq!(validations.load(std::sync::atomic::Ordering::Relaxed), 4);
}

#[test]
fn sequential_models_run_once_and_missing_variants_are_skipped() {
    let mut log = Log::default();
    let summary = run(&plan(3.0, vec![Model::Floor, Model::Kameo]), &mut log);
    assert_eq!(summary.failures, 0);
    assert_eq!(log.skipped, [Model::Kameo]);
    assert_eq!(summary.records.len(), 1);
    let r = &summary.records[0];
    assert_eq!((r.model, r.threads, r.iterations), (Model::Floor, 1, 3));
    assert!(r.validated);
    assert_eq!(r.result, serde_json::json!(3));
    assert!(r.min_ms <= r.median_ms && r.median_ms <= r.max_ms);
    assert_eq!(log.progress, log.planned);
}

#[test]
fn failed_checks_are_reported_and_every_iteration_still_runs() {
    let mut log = Log::default();
    let summary = run(&plan(2.0, vec![Model::Floor]), &mut log);
    assert_eq!(summary.failures, 1);
    let floor = &summary.records[0];
    assert!(!floor.validated);
    assert_eq!(floor.iterations, 3);
    assert_eq!(floor.result, serde_json::json!(2));
    assert_eq!(log.failed.len(), 1);
    assert!(log.failed[0]
        .2
        .starts_with("warm-up 1: check failed: n: expected 3, got 2"));
}

#[test]
fn panics_and_prepare_errors_are_reported_not_fatal() {
    let mut log = Log::default();
    let summary = run(&plan(3.0, vec![Model::Actor, Model::Boc]), &mut log);
    // actor x2: panic on the second run; boc x2: prepare error.
    assert_eq!(summary.failures, 4);
    assert_eq!(summary.records.len(), 2);
    for (actor, threads) in summary.records.iter().zip([1, 2]) {
        assert_eq!((actor.model, actor.threads), (Model::Actor, threads));
        assert!(!actor.validated);
        assert_eq!(
            actor.iterations, 1,
            "warm-up, one timed run, then the panic"
        );
        assert!(actor.result.is_null());
    }
    assert!(log.failed[0].2.contains("iteration 1: panicked: toy panic"));
    assert_eq!(
        log.failed[2],
        (Model::Boc, 1, "prepare failed: no pool of 1".into())
    );
    assert_eq!(log.progress, log.planned);
}

#[test]
fn a_round_takes_its_share_of_the_iterations_and_time() {
    let mut p = plan(3.0, vec![Model::Floor]);
    p.iterations = 10;
    p.warmup = 2;
    p.min_time = std::time::Duration::from_secs(3);
    p.rounds = 3;
    let shares: Vec<(usize, usize, std::time::Duration, usize)> = (0..3)
        .map(|r| p.round(r))
        .map(|r| (r.iterations, r.warmup, r.min_time, r.rounds))
        .collect();
    let second = std::time::Duration::from_secs(1);
    assert_eq!(
        shares,
        [(4, 2, second, 1), (3, 2, second, 1), (3, 2, second, 1)]
    );
    assert_eq!(p.iterations_per_job(), 10 + 3 * 2);
}

#[test]
fn rounds_interleave_a_benchmarks_cells_and_pool_their_samples() {
    let mut log = Log::default();
    let mut p = plan(3.0, vec![Model::Floor, Model::Process]);
    p.iterations = 5;
    p.rounds = 2;
    let summary = run(&p, &mut log);
    assert_eq!(summary.failures, 0, "{:?}", log.failed);
    use Model::{Floor, Process};
    assert_eq!(
        log.started,
        [
            (Floor, 1),
            (Process, 1),
            (Process, 2),
            (Process, 2),
            (Process, 1),
            (Floor, 1)
        ],
        "the second round runs the cells in reverse"
    );
    let cells: Vec<(Model, usize, usize)> = summary
        .records
        .iter()
        .map(|r| (r.model, r.threads, r.iterations))
        .collect();
    assert_eq!(cells, [(Floor, 1, 5), (Process, 1, 5), (Process, 2, 5)]);
    assert!(summary.records.iter().all(|r| r.validated));
    assert_eq!(log.progress, log.planned);
    assert_eq!(log.planned, 3 * (5 + 2));
}

#[test]
fn a_failed_round_or_prepare_runs_no_further_rounds() {
    let mut log = Log::default();
    let mut p = plan(3.0, vec![Model::Actor, Model::Boc]);
    p.iterations = 4;
    p.rounds = 2;
    let summary = run(&p, &mut log);
    // actor: panics in its first round's first timed run; boc: prepare fails. Neither runs
    // its second round.
    use Model::{Actor, Boc};
    assert_eq!(log.started, [(Actor, 1), (Actor, 2), (Boc, 1), (Boc, 2)]);
    assert_eq!(summary.failures, 4);
    assert_eq!(summary.records.len(), 2);
    assert!(summary
        .records
        .iter()
        .all(|r| !r.validated && r.iterations == 1));
    assert_eq!(log.progress, log.planned);
}

#[test]
fn min_time_adds_timed_iterations_until_it_is_reached() {
    let mut log = Log::default();
    let mut p = plan(3.0, vec![Model::Floor]);
    p.min_time = std::time::Duration::from_millis(30);
    let summary = run(&p, &mut log);
    assert_eq!(summary.failures, 0);
    let floor = &summary.records[0];
    // Each run sleeps at least 0.9 ms: 30 ms is reached after more than 3 runs and by the 34th.
    assert!(
        floor.iterations > 3 && floor.iterations <= 34,
        "{} timed iterations",
        floor.iterations
    );
    assert!(floor.validated);
    assert_eq!(
        log.progress, log.planned,
        "the extra runs are not in the plan"
    );
}

#[test]
fn min_time_adds_nothing_after_a_failed_check() {
    let mut log = Log::default();
    let mut p = plan(2.0, vec![Model::Floor]);
    p.min_time = std::time::Duration::from_secs(5);
    let summary = run(&p, &mut log);
    assert_eq!(summary.failures, 1);
    assert_eq!(summary.records[0].iterations, 3);
    assert_eq!(log.progress, log.planned);
}
