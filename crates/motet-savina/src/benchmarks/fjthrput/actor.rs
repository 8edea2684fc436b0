//! Fork Join (throughput) as motet actors.
//!
//! The default program follows SPEC.md: the harness thread (Savina's main thread) creates the
//! workers and sends the `n` rounds itself. `actor-tuned` sends them from a driver actor (as Pony's
//! main actor does, and as Verona posts its behaviours from the scheduler), so that the sends are
//! made on a worker rather than from an outside thread (`driver-actor`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, |cfg, rt| {
        run(cfg, rt, Sender::Harness)
    })
}

/// Builds the runtime for the tuned program (a driver actor sends the rounds).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, |cfg, rt| {
        run(cfg, rt, Sender::Driver)
    })
}

/// Who sends the rounds.
#[derive(Clone, Copy)]
enum Sender {
    /// The harness thread, as Savina's main thread.
    Harness,
    /// A driver actor (`driver-actor`).
    Driver,
}

struct Worker {
    processed: u64,
    n: u64,
    index: usize,
    counts: Arc<Vec<AtomicU64>>,
}

impl Actor for Worker {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        perform_computation(FJ_THETA);
        self.processed += 1;
        if self.processed == self.n {
            self.counts[self.index].store(self.processed, Ordering::Relaxed);
            ctx.stop();
        }
    }
}

struct Driver {
    workers: Vec<Addr<()>>,
    n: u64,
}

impl Actor for Driver {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        for _ in 0..self.n {
            for w in &self.workers {
                let _ = w.tell(());
            }
        }
        self.workers.clear();
        ctx.stop();
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime, sender: Sender) -> Outcome {
    let Config { n, a } = *cfg;
    let counts: Arc<Vec<AtomicU64>> = Arc::new((0..a).map(|_| AtomicU64::new(0)).collect());
    let h = rt.handle();
    let workers: Vec<_> = (0..a)
        .map(|index| {
            spawn(
                h,
                Worker {
                    processed: 0,
                    n,
                    index,
                    counts: counts.clone(),
                },
            )
        })
        .collect();
    match sender {
        Sender::Harness => {
            for _ in 0..n {
                for w in &workers {
                    let _ = w.tell(());
                }
            }
            drop(workers);
        }
        Sender::Driver => {
            let driver = spawn(h, Driver { workers, n });
            let _ = driver.tell(());
            drop(driver);
        }
    }
    rt.wait_quiescent();
    let counts: Vec<u64> = counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    check(n, a, &counts)
}
