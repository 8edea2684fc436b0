//! Fork Join (actor creation) as motet processes: a driver process (the counterpart of the actor
//! version's driver actor) creates `n` processes, each with its own channel, and sends each one
//! message; a process reads it, does the fork-join work once and ends. Effpi's version of this
//! benchmark spawns input processes for the same reason: each one waits for its message.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

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

/// Completions, sharded by process so that workers rarely touch the same cache line (one benchmark
/// runs at a time; `run` resets them).
static DONE: [CachePadded<AtomicU64>; SHARDS] =
    [const { CachePadded::new(AtomicU64::new(0)) }; SHARDS];
const SHARDS: usize = 16;

fn completions() -> u64 {
    DONE.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}

/// A forked process: one message, the work, a completion.
async fn forked(inbox: Receiver<()>, shard: usize) {
    if inbox.recv().await.is_ok() {
        perform_computation(FJ_THETA);
        DONE[shard].fetch_add(1, Ordering::Relaxed);
    }
}

/// The driver: `n` times, a channel, a process reading it, and one message into it.
async fn driver(system: ProcessSystem, n: u64) {
    for i in 0..n {
        let (tx, rx) = channel::unbounded();
        system.spawn(forked(rx, i as usize % SHARDS));
        let _ = tx.send(());
    }
}

/// One timed iteration: spawns the driver, waits for every process and counts the completions.
fn run(cfg: &Config, system: &ProcessSystem) -> Outcome {
    for shard in &DONE {
        shard.store(0, Ordering::Relaxed);
    }
    system.spawn(driver(system.clone(), cfg.n));
    process_support::finish(system, || check(cfg.n, completions()))
}
