//! Fork Join (actor creation) as motet processes.
//!
//! The default program follows SPEC.md: the harness thread creates `n` processes, each with its
//! own channel, and sends each one message; a process reads it, does the fork-join work once, adds
//! one to a shared completion count (Savina's harness latch) and ends. Effpi's version of this
//! benchmark spawns input processes for the same reason: each one waits for its message.
//!
//! `process-tuned` spawns them from a driver process instead (`driver-actor`) and counts on 16
//! cache-padded counters (`sharded-counter`), as `actor-tuned` does.

use motet_process::channel::{self, Receiver};
use motet_process::ProcessSystem;

use super::completions::{self, completions, reset, SHARDS};
use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run)
}

/// Builds the runtime and the process system for the tuned program (a driver process, sharded
/// completions).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run_tuned)
}

/// A forked process: one message, the work, a completion.
async fn forked(inbox: Receiver<()>, shard: usize) {
    if inbox.recv().await.is_ok() {
        perform_computation(FJ_THETA);
        completions::complete(shard);
    }
}

/// One timed iteration: the harness thread, `n` times, makes a channel, spawns a process reading
/// it and sends one message into it; then waits for every process and counts the completions.
fn run(cfg: &Config, system: &ProcessSystem) -> Outcome {
    reset();
    for _ in 0..cfg.n {
        let (tx, rx) = channel::unbounded();
        system.spawn(forked(rx, 0));
        let _ = tx.send(());
    }
    process_support::finish(system, || check(cfg.n, completions()))
}

/// The tuned program's driver: `n` times, a channel, a process reading it, and one message into
/// it.
async fn driver(system: ProcessSystem, n: u64) {
    for i in 0..n {
        let (tx, rx) = channel::unbounded();
        system.spawn(forked(rx, i as usize % SHARDS));
        let _ = tx.send(());
    }
}

/// One timed iteration of the tuned program: spawns the driver, waits for every process and
/// counts the completions.
fn run_tuned(cfg: &Config, system: &ProcessSystem) -> Outcome {
    reset();
    system.spawn(driver(system.clone(), cfg.n));
    process_support::finish(system, || check(cfg.n, completions()))
}
