//! Shared by the integration tests: an event log that reactions write to, runners for every
//! configuration, small reactors to build test programs from ([`reactors`]), the conformance
//! scenarios ([`scenarios`]), the pieces of the fan-out programs that the scheduling tests run
//! for many tags ([`fan`]) and the programs of LF's micro benchmarks ([`micro`]).

#![allow(dead_code)]

pub mod fan;
pub mod micro;
pub mod reactors;
pub mod scenarios;

use std::fmt::Display;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use motet_reactor::{Ctx, Program, Report, RunError, Runner, SchedulerKind, Tag};
use motet_runtime::Runtime;

/// The events observed in a run: (tag, level, reaction index, line). Reactions of one tag that do
/// not depend on each other may log in any order on a parallel run, so the log is read in a
/// canonical order: by tag, then level, then reaction (a stable sort keeps each reaction's own lines
/// in order). Reactions that depend on each other have distinct levels, so causal order is kept.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<Entry>>>);

/// (tag, level, reaction index, line).
type Entry = (Tag, u32, usize, String);

impl Log {
    pub fn new() -> Log {
        Log::default()
    }

    /// Records `value` as observed by the running reaction.
    pub fn record(&self, ctx: &Ctx<'_>, value: impl Display) {
        let line = format!("{} {}: {}", ctx.tag(), ctx.reaction_name(), value);
        self.0
            .lock()
            .unwrap()
            .push((ctx.tag(), ctx.level(), ctx.reaction_index(), line));
    }

    /// The lines in canonical order.
    pub fn lines(&self) -> Vec<String> {
        let mut v = self.0.lock().unwrap().clone();
        v.sort_by_key(|e| (e.0, e.1, e.2));
        v.into_iter().map(|e| e.3).collect()
    }
}

/// A runtime per worker count, shared by the tests of one binary.
pub fn runtime(workers: usize) -> &'static Runtime {
    static POOLS: OnceLock<Mutex<Vec<(usize, &'static Runtime)>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(Vec::new()));
    let mut pools = pools.lock().unwrap();
    if let Some((_, rt)) = pools.iter().find(|(w, _)| *w == workers) {
        return rt;
    }
    let rt: &'static Runtime = Box::leak(Box::new(
        Runtime::builder()
            .workers(workers)
            .build()
            .expect("runtime"),
    ));
    pools.push((workers, rt));
    rt
}

/// A run configuration: workers (1 = on the calling thread) and scheduler.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub workers: usize,
    pub scheduler: SchedulerKind,
    /// The readiness scheduler's own protocol even where the level protocol is equivalent.
    pub forced: bool,
}

/// Every configuration the tests compare.
pub fn configs(workers: &[usize]) -> Vec<Config> {
    let mut v = Vec::new();
    for &w in workers {
        if w == 1 {
            v.push(Config {
                workers: 1,
                scheduler: SchedulerKind::Readiness,
                forced: false,
            });
        } else {
            for (s, forced) in [
                (SchedulerKind::Readiness, false),
                (SchedulerKind::Readiness, true),
                (SchedulerKind::Level, false),
            ] {
                v.push(Config {
                    workers: w,
                    scheduler: s,
                    forced,
                });
            }
        }
    }
    v
}

pub fn runner(cfg: Config, fast: bool, timeout: Option<Duration>) -> Runner {
    let mut r = if cfg.workers == 1 {
        Runner::new()
    } else {
        Runner::on(runtime(cfg.workers).handle())
    };
    r = r
        .scheduler(cfg.scheduler)
        .readiness_protocol(cfg.forced)
        .fast(fast);
    if let Some(t) = timeout {
        r = r.timeout(t);
    }
    r
}

/// Builds with `build`, runs with `cfg`, returns the log and the report.
pub fn run_with(
    cfg: Config,
    fast: bool,
    timeout: Option<Duration>,
    build: &dyn Fn(&Log) -> Program,
) -> (Vec<String>, Result<Report, RunError>) {
    let log = Log::new();
    let mut program = build(&log);
    let report = runner(cfg, fast, timeout).run(&mut program);
    (log.lines(), report)
}

/// Runs on one worker and on two workers with both schedulers (fast mode); asserts that all agree
/// and returns the log.
pub fn run_all(timeout: Option<Duration>, build: &dyn Fn(&Log) -> Program) -> Vec<String> {
    agree_across(&[1, 2], 1, true, timeout, None, build)
}

/// Runs the program `build` makes `runs` times on each configuration of `workers` (see
/// [`configs`]), in fast mode or chasing physical time, with `timeout`; asserts that every run
/// succeeds, processes `tags` tags (when given) and logs what the first run logged, and returns
/// that log.
pub fn agree_across(
    workers: &[usize],
    runs: usize,
    fast: bool,
    timeout: Option<Duration>,
    tags: Option<u64>,
    build: &dyn Fn(&Log) -> Program,
) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    for cfg in configs(workers) {
        for run in 0..runs {
            let (lines, report) = run_with(cfg, fast, timeout, build);
            let report = report.unwrap_or_else(|e| panic!("{cfg:?}, run {run}: {e}"));
            if let Some(tags) = tags {
                assert_eq!(report.metrics.tags, tags, "{cfg:?}, run {run}");
            }
            agree_with_first(&mut first, lines, &cfg);
        }
    }
    first.expect("at least one run")
}

/// Keeps the first run's log in `first`, and asserts that every later run's `lines` (run with
/// `cfg`) equal it.
pub fn agree_with_first(first: &mut Option<Vec<String>>, lines: Vec<String>, cfg: &Config) {
    match first {
        None => *first = Some(lines),
        Some(f) => assert_eq!(&lines, f, "{cfg:?} differs from the first run"),
    }
}

/// Asserts that `actual` lines equal `expected`, printing both on failure.
pub fn assert_lines(actual: &[String], expected: &[&str]) {
    let exp: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(actual, exp.as_slice(), "\nactual:\n{}\n", actual.join("\n"));
}
