//! Fork Join (throughput) as motet processes: `a` worker processes each read `n` messages from
//! their own channel, doing the fork-join work for each. In the default program the harness thread
//! (Savina's main thread) creates the channels and the workers, then sends the `n` rounds, one
//! message to every worker per round, in index order; in `process-tuned` a driver process does it
//! (the counterpart of `actor-tuned`'s driver actor, `driver-actor`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_process::channel::{self, Receiver};
use motet_process::ProcessSystem;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run)
}

/// Builds the runtime and the process system for the tuned program (a driver process).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run_tuned)
}

/// A worker: `n` messages, the fork-join work for each, then its count into its slot.
async fn worker(inbox: Receiver<()>, n: u64, counts: Arc<[AtomicU64]>, index: usize) {
    let mut processed = 0;
    while processed < n {
        if inbox.recv().await.is_err() {
            break;
        }
        perform_computation(FJ_THETA);
        processed += 1;
    }
    counts[index].store(processed, Ordering::Relaxed);
}

/// Creates the workers, then sends `n` rounds of one message to each: from the harness thread in
/// the default program, as the driver process of the tuned one.
fn drive(system: &ProcessSystem, cfg: Config, counts: Arc<[AtomicU64]>) {
    let Config { n, a } = cfg;
    let workers: Vec<_> = (0..a)
        .map(|index| {
            let (tx, rx) = channel::unbounded();
            system.spawn(worker(rx, n, counts.clone(), index));
            tx
        })
        .collect();
    for _ in 0..n {
        for w in &workers {
            let _ = w.send(());
        }
    }
}

/// The tuned program's driver process.
async fn driver(system: ProcessSystem, cfg: Config, counts: Arc<[AtomicU64]>) {
    drive(&system, cfg, counts);
}

/// One timed iteration: the harness thread creates the workers and sends the rounds; then waits
/// for every process and checks every count.
fn run(cfg: &Config, system: &ProcessSystem) -> Outcome {
    let counts: Arc<[AtomicU64]> = (0..cfg.a).map(|_| AtomicU64::new(0)).collect();
    drive(system, *cfg, counts.clone());
    finish(cfg, system, &counts)
}

/// One timed iteration of the tuned program: spawns the driver, waits for every process and
/// checks every count.
fn run_tuned(cfg: &Config, system: &ProcessSystem) -> Outcome {
    let counts: Arc<[AtomicU64]> = (0..cfg.a).map(|_| AtomicU64::new(0)).collect();
    system.spawn(driver(system.clone(), *cfg, counts.clone()));
    finish(cfg, system, &counts)
}

/// Waits for every process and checks every count.
fn finish(cfg: &Config, system: &ProcessSystem, counts: &[AtomicU64]) -> Outcome {
    process_support::finish(system, || {
        let counts: Vec<u64> = counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        check(cfg.n, cfg.a, &counts)
    })
}
