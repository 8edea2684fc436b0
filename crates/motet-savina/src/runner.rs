//! Runs a [`Plan`]: every selected (benchmark, model, thread count), timed and validated.
//!
//! Each job (a *cell* of the report) runs in a child process of the binary by default
//! ([`Isolation::Process`], see [`cell`](crate::cell)): the binary re-executes itself with the
//! hidden `cell` subcommand, which measures the job and streams its progress and measurements back
//! through a pipe, and the parent reads the child's peak resident memory when it reaps it. So
//! `peak_rss_kib` is the footprint of that cell alone, and a crash (an abort, a stack overflow, the
//! out-of-memory killer) fails that cell instead of ending the run. [`Isolation::InProcess`] runs
//! the jobs on the calling thread, without a footprint; the child uses it for its one job, and the
//! harness's own tests use it for test programs that are not in the registry.
//!
//! Measuring one job ([`measure_job`]): the variant's `prepare` once (untimed), then `warmup`
//! untimed and `iterations` timed iterations, each an untimed [`Iteration::setup`] followed by
//! [`Iteration::run`] timed with [`Instant`] and an untimed [`Iteration::validate`]; with a `min_time`, more timed iterations follow until
//! the timed ones add up to it (at most [`MAX_TIMED_ITERATIONS`] in all), so that a cell of a few
//! milliseconds gets a median of hundreds of samples instead of a handful on a noisy machine. A
//! sequential model runs once, recorded with threads =
//! 1, whatever thread counts the plan names. A benchmark without a variant for a requested model is
//! skipped with a note.
//!
//! Failures never stop the rest of the plan: a `prepare` error, a failed check or a panic (caught
//! with [`catch_unwind`]) is reported to the [`Observer`] and counted in [`RunSummary::failures`];
//! a panic also ends that job's iterations, since the program may be left in a broken state.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bench::{Benchmark, Iteration, Model, ReactorMetrics, Variant};
use crate::params::Params;
use crate::record::{Record, Stats};

/// Where the jobs of a plan run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Each job in a child process: this executable (the `motet-savina` binary), run with the
    /// hidden `cell` subcommand. Records get the child's peak resident memory.
    Process(PathBuf),
    /// Every job on the calling thread, one after the other; records have no peak memory.
    InProcess,
}

impl Isolation {
    /// Child processes of the running executable (what the binary uses).
    ///
    /// # Errors
    /// If the path of the running executable cannot be found.
    pub fn current_exe() -> Result<Isolation, String> {
        std::env::current_exe()
            .map(Isolation::Process)
            .map_err(|e| format!("cannot find the path of this executable: {e}"))
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The benchmarks with their parameter values, in run order.
    pub benchmarks: Vec<(&'static Benchmark, Params)>,
    /// The models, in run order.
    pub models: Vec<Model>,
    /// Worker-thread counts, in run order.
    pub threads: Vec<usize>,
    /// Timed iterations per job.
    pub iterations: usize,
    /// Untimed warm-up iterations per job.
    pub warmup: usize,
    /// After `iterations`, a job keeps running timed iterations until they add up to this (at
    /// most [`MAX_TIMED_ITERATIONS`] in all); zero runs exactly `iterations`.
    pub min_time: Duration,
    /// Where the jobs run.
    pub isolation: Isolation,
    /// In how many rounds each job runs (at least 1): its `iterations` and `min_time` are split
    /// over that many runs of it, each with its own `warmup` (and, isolated, its own process),
    /// and the jobs of one benchmark (one parameter set) take turns round by round, in
    /// alternating order, before the next benchmark's. A job's record pools the samples of its
    /// rounds. So a cell's median no longer rests on one process (on a virtual machine a process
    /// can run all its iterations in a faster or a slower mode than the next one), and two cells
    /// compared in a ratio ran interleaved rather than one after the other.
    pub rounds: usize,
}

/// One (benchmark, model, thread count) to measure.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    /// The benchmark.
    pub benchmark: &'static Benchmark,
    /// Its parameter values.
    pub params: &'a Params,
    /// The implementation to run.
    pub variant: Variant,
    /// Worker threads.
    pub threads: usize,
}

impl Plan {
    /// The jobs to run, and the (benchmark, model) pairs skipped for want of a variant.
    pub fn jobs(&self) -> (Vec<Job<'_>>, Vec<(&'static Benchmark, Model)>) {
        let mut jobs = Vec::new();
        let mut skipped = Vec::new();
        for (benchmark, params) in &self.benchmarks {
            for &model in &self.models {
                let Some(variant) = benchmark.variant(model) else {
                    skipped.push((*benchmark, model));
                    continue;
                };
                let threads: &[usize] = if model.is_sequential() {
                    &[1]
                } else {
                    &self.threads
                };
                for &threads in threads {
                    jobs.push(Job {
                        benchmark,
                        params,
                        variant,
                        threads,
                    });
                }
            }
        }
        (jobs, skipped)
    }

    /// Iterations (warm-up and timed) per job, over all its rounds.
    pub fn iterations_per_job(&self) -> usize {
        (0..self.rounds.max(1))
            .map(|r| self.round(r).iterations_per_round())
            .sum()
    }

    /// The plan of round `r` (from 0) of each job: one round, with the round's share of the timed
    /// iterations (at least 1; the first rounds take what does not divide evenly) and of
    /// `min_time`, and the whole `warmup`.
    pub fn round(&self, r: usize) -> Plan {
        let rounds = self.rounds.max(1);
        let share = self.iterations / rounds + usize::from(r < self.iterations % rounds);
        Plan {
            iterations: share.max(1),
            min_time: self.min_time / rounds as u32,
            rounds: 1,
            ..self.clone()
        }
    }

    /// Iterations (warm-up and timed) of one round of a job.
    fn iterations_per_round(&self) -> usize {
        self.warmup + self.iterations
    }
}

/// A plan for the tests: `benchmarks` on `models`, on one and two threads, one warm-up and three
/// timed iterations (no `min_time`), in one in-process round.
#[cfg(test)]
pub(crate) fn test_plan(benchmarks: Vec<(&'static Benchmark, Params)>, models: Vec<Model>) -> Plan {
    Plan {
        benchmarks,
        models,
        threads: vec![1, 2],
        iterations: 3,
        warmup: 1,
        min_time: Duration::ZERO,
        isolation: Isolation::InProcess,
        rounds: 1,
    }
}

/// The most timed iterations a job runs when `min_time` asks for more than `iterations`.
pub const MAX_TIMED_ITERATIONS: usize = 1000;

/// Hears about a run as it goes (the console prints it; tests collect it).
pub trait Observer {
    /// The whole plan: `jobs` jobs of `iterations_per_job` iterations each.
    fn planned(&mut self, jobs: usize, iterations_per_job: usize) {
        let _ = (jobs, iterations_per_job);
    }

    /// `benchmark` has no variant for `model`.
    fn skipped(&mut self, benchmark: &Benchmark, model: Model) {
        let _ = (benchmark, model);
    }

    /// A job starts.
    fn started(&mut self, job: &Job<'_>) {
        let _ = job;
    }

    /// `n` iterations of the current job are done (or abandoned).
    fn progressed(&mut self, n: usize) {
        let _ = n;
    }

    /// A job failed: `prepare` returned an error or panicked, a check failed, a run panicked, or
    /// its child process died.
    fn failed(&mut self, job: &Job<'_>, what: &str) {
        let _ = (job, what);
    }

    /// A diagnostic line from the current job (a panic message from a child process, say).
    fn note(&mut self, job: &Job<'_>, text: &str) {
        let _ = (job, text);
    }

    /// A job finished with this record (also when it failed after `prepare`).
    fn finished(&mut self, record: &Record) {
        let _ = record;
    }
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}

/// What a whole run produced.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// One record per job that got past `prepare`, in run order.
    pub records: Vec<Record>,
    /// Jobs that failed (prepare error, failed check, panic or crash).
    pub failures: usize,
}

/// Runs every job of `plan`, telling `observer` as it goes: the jobs of one benchmark (one
/// parameter set) round by round (see [`Plan::rounds`]), then the next benchmark's. A job whose
/// `prepare` failed, or whose round failed, runs no further rounds.
pub fn run(plan: &Plan, observer: &mut dyn Observer) -> RunSummary {
    let (jobs, skipped) = plan.jobs();
    for (benchmark, model) in skipped {
        observer.skipped(benchmark, model);
    }
    observer.planned(jobs.len(), plan.iterations_per_job());
    let mut summary = RunSummary::default();
    let rounds: Vec<Plan> = (0..plan.rounds.max(1)).map(|r| plan.round(r)).collect();
    for group in jobs.chunk_by(|a, b| std::ptr::eq(a.params, b.params)) {
        // Per job: what its rounds measured so far (None once `prepare` failed), its peak memory,
        // whether it runs no further rounds.
        let mut cells: Vec<(Option<Measured>, Option<u64>, bool)> =
            vec![(None, None, false); group.len()];
        for (r, round) in rounds.iter().enumerate() {
            let order: Vec<usize> = if r % 2 == 0 {
                (0..group.len()).collect()
            } else {
                (0..group.len()).rev().collect()
            };
            for i in order {
                let job = &group[i];
                let (so_far, peak, stopped) = &mut cells[i];
                if *stopped {
                    observer.progressed(round.iterations_per_round());
                    continue;
                }
                observer.started(job);
                let (measured, peak_rss_kib) = run_round(round, job, observer);
                *peak = (*peak).max(peak_rss_kib);
                match measured {
                    Some(measured) => {
                        *stopped = measured.failure.is_some();
                        match so_far {
                            Some(before) => before.pool(measured),
                            None => *so_far = Some(measured),
                        }
                    }
                    None => {
                        *stopped = true;
                        *so_far = None;
                    }
                }
            }
        }
        for (job, (measured, peak_rss_kib, _)) in group.iter().zip(cells) {
            // A job with no measurement: its `prepare` failed (in its first round or a later one).
            match measured {
                Some(measured) => {
                    let record = measured.into_record(job, peak_rss_kib);
                    if !record.validated {
                        summary.failures += 1;
                    }
                    observer.finished(&record);
                    summary.records.push(record);
                }
                None => summary.failures += 1,
            }
        }
    }
    summary
}

/// Runs one round of `job` with `round`'s iteration counts where the plan says; its
/// measurements (`None` if `prepare` failed) and, isolated, the process's peak memory.
fn run_round(
    round: &Plan,
    job: &Job<'_>,
    observer: &mut dyn Observer,
) -> (Option<Measured>, Option<u64>) {
    match &round.isolation {
        Isolation::InProcess => (
            measure_job(
                job,
                round.iterations,
                round.warmup,
                round.min_time,
                observer,
            ),
            None,
        ),
        Isolation::Process(exe) => {
            let cell = crate::cell::run_child(exe, job, round, observer);
            (cell.measured, cell.peak_rss_kib)
        }
    }
}

/// What the iterations of one job measured (what a child process sends back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Times of the timed iterations, in milliseconds.
    pub samples: Vec<f64>,
    /// The last iteration's result.
    pub result: serde_json::Value,
    /// The first failure, if any.
    pub failure: Option<String>,
    /// LF's Table 1 figures of the last iteration, for reactor programs.
    #[serde(default)]
    pub metrics: Option<ReactorMetrics>,
    /// Reactors created by mutations in the last iteration, for reactor programs (see
    /// [`ReactorMetrics::reactors_created`]).
    #[serde(default)]
    pub reactors_created: Option<u64>,
}

impl Measured {
    /// A job that failed before or while its first iteration ran: no samples, no result.
    pub fn failed(what: String) -> Measured {
        Measured {
            samples: Vec::new(),
            result: serde_json::Value::Null,
            failure: Some(what),
            metrics: None,
            reactors_created: None,
        }
    }

    /// Adds a later round's measurements of the same job: its samples after these, its result,
    /// metrics and counts in place of these, the first failure of the two.
    pub fn pool(&mut self, later: Measured) {
        self.samples.extend(later.samples);
        self.result = later.result;
        if self.failure.is_none() {
            self.failure = later.failure;
        }
        self.metrics = later.metrics;
        self.reactors_created = later.reactors_created;
    }

    /// The record of `job` with these measurements.
    pub fn into_record(self, job: &Job<'_>, peak_rss_kib: Option<u64>) -> Record {
        let stats = Stats::of(&self.samples);
        let median_ms = stats.median;
        let metrics = self.metrics.map(|mut m| {
            m.ns_per_reaction = (m.reactions_executed > 0 && median_ms.is_finite())
                .then(|| median_ms * 1e6 / m.reactions_executed as f64);
            m
        });
        Record {
            benchmark: job.benchmark.name,
            model: job.variant.model,
            threads: job.threads,
            params: job.params.clone(),
            deviations: job.variant.deviations,
            own_protocol: job.variant.own_protocol,
            iterations: self.samples.len(),
            median_ms,
            ci95_low_ms: stats.ci_low,
            ci95_high_ms: stats.ci_high,
            min_ms: stats.min,
            max_ms: stats.max,
            result: self.result,
            validated: self.failure.is_none(),
            peak_rss_kib,
            reactors_created: self.reactors_created,
            metrics,
        }
    }
}

/// Prepares and measures one job on the calling thread; `None` if `prepare` failed (reported to
/// `observer`). `warmup` untimed and `iterations` timed iterations, then more timed ones while they
/// add up to less than `min_time` (see [`Plan::min_time`]). Every failure is reported to
/// `observer` as well as recorded in the result.
pub fn measure_job(
    job: &Job<'_>,
    iterations: usize,
    warmup: usize,
    min_time: Duration,
    observer: &mut dyn Observer,
) -> Option<Measured> {
    let prepared = catch_unwind(|| job.variant.build(job.params, job.threads));
    let mut program = match prepared {
        Ok(Ok(program)) => program,
        Ok(Err(e)) => {
            observer.failed(job, &format!("prepare failed: {e}"));
            observer.progressed(warmup + iterations);
            return None;
        }
        Err(panic) => {
            let msg = panic_message(&*panic);
            observer.failed(job, &format!("prepare panicked: {msg}"));
            observer.progressed(warmup + iterations);
            return None;
        }
    };
    let mut measured = measure(&mut *program, iterations, warmup, min_time, observer);
    if let Err(panic) = catch_unwind(AssertUnwindSafe(move || drop(program))) {
        measured
            .failure
            .get_or_insert(format!("teardown panicked: {}", panic_message(&*panic)));
    }
    if let Some(what) = &measured.failure {
        observer.failed(job, what);
    }
    Some(measured)
}

/// Runs the warm-up and timed iterations; stops early after a panic or a failed check. Only the
/// planned `warmup + iterations` report progress (the extra ones `min_time` asks for are not in
/// the plan's count).
fn measure(
    program: &mut dyn Iteration,
    iterations: usize,
    warmup: usize,
    min_time: Duration,
    observer: &mut dyn Observer,
) -> Measured {
    let mut m = Measured {
        samples: Vec::with_capacity(iterations),
        result: serde_json::Value::Null,
        failure: None,
        metrics: None,
        reactors_created: None,
    };
    let total = warmup + iterations;
    let min_ms = min_time.as_secs_f64() * 1e3;
    let mut timed_ms = 0.0;
    for i in 0.. {
        let wanted = i < total
            || (timed_ms < min_ms && i - warmup < MAX_TIMED_ITERATIONS && m.failure.is_none());
        if !wanted {
            break;
        }
        let label = iteration_label(i, warmup);
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| program.setup())) {
            m.failure = Some(format!(
                "{label}: setup panicked: {}",
                panic_message(&*panic)
            ));
            observer.progressed(total.saturating_sub(i));
            break;
        }
        let start = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| program.run()));
        let ms = start.elapsed().as_nanos() as f64 / 1e6;
        let outcome = outcome.and_then(|o| catch_unwind(AssertUnwindSafe(|| program.validate(o))));
        if i < total {
            observer.progressed(1);
        }
        if i >= warmup {
            m.samples.push(ms);
            timed_ms += ms;
        }
        match outcome {
            Ok(outcome) => {
                if let (Err(e), None) = (&outcome.check, &m.failure) {
                    m.failure = Some(format!("{label}: check failed: {e}"));
                }
                m.result = outcome.result;
                m.metrics = program.metrics();
                m.reactors_created = m.metrics.map(|metrics| metrics.reactors_created);
            }
            Err(panic) => {
                let msg = panic_message(&*panic);
                m.failure.get_or_insert(format!("{label}: panicked: {msg}"));
                m.result = serde_json::Value::Null;
                observer.progressed(total.saturating_sub(i + 1));
                break;
            }
        }
    }
    m
}

/// "warm-up 2" or "iteration 3" (1-based), for messages.
fn iteration_label(i: usize, warmup: usize) -> String {
    if i < warmup {
        format!("warm-up {}", i + 1)
    } else {
        format!("iteration {}", i - warmup + 1)
    }
}

/// The message of a caught panic.
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

#[cfg(test)]
mod tests;
