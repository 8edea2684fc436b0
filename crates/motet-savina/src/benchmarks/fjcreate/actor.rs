//! Fork Join (actor creation) as motet actors.
//!
//! The default program follows SPEC.md: the harness thread (Savina's main thread) creates each
//! actor and sends it its message, and every actor, once it has done its work, adds one to a
//! shared completion count (Savina's harness latch, which each actor's exit counts down).
//!
//! `actor-tuned` spawns the actors from a driver actor instead, so that the spawns and sends run on
//! a worker as Pony's and Verona's drivers do (`driver-actor`), and counts completions on 16
//! cache-padded counters so that workers rarely touch the same cache line (`sharded-counter`).

use motet_actor::{spawn, Actor, Context};
use motet_runtime::Runtime;

use super::completions::{self, completions, reset, SHARDS};
use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Builds the runtime for the tuned program (a driver actor, sharded completions).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run_tuned)
}

/// A forked actor: one message, the work, a completion, exit.
struct Forked {
    shard: usize,
}

impl Actor for Forked {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        perform_computation(FJ_THETA);
        completions::complete(self.shard);
        ctx.stop();
    }
}

/// One timed iteration: the harness thread creates the `n` actors, sending each its message as
/// it is created; then the runtime runs to quiescence and the result is checked.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    reset();
    for _ in 0..cfg.n {
        let forked = spawn(rt.handle(), Forked { shard: 0 });
        let _ = forked.send(());
    }
    rt.wait_quiescent();
    check(cfg.n, completions())
}

/// The tuned program's driver: creates the `n` actors from a worker.
struct Driver {
    n: u64,
}

impl Actor for Driver {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        for i in 0..self.n {
            let forked = ctx.spawn(Forked {
                shard: i as usize % SHARDS,
            });
            let _ = forked.send(());
        }
        ctx.stop();
    }
}

/// One timed iteration of the tuned program: the driver actor creates the actors.
fn run_tuned(cfg: &Config, rt: &Runtime) -> Outcome {
    reset();
    let driver = spawn(rt.handle(), Driver { n: cfg.n });
    let _ = driver.tell(());
    drop(driver);
    rt.wait_quiescent();
    check(cfg.n, completions())
}
