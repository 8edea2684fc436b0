//! Fork Join (actor creation) as motet actors. The driver is itself an actor, so the N actors are
//! spawned and sent their message from a worker, as Pony's and Verona's drivers do.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use motet_actor::{spawn, Actor, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Completions, sharded by actor so that workers rarely touch the same cache line (one benchmark
/// runs at a time; `run` resets them).
static DONE: [CachePadded<AtomicU64>; SHARDS] =
    [const { CachePadded::new(AtomicU64::new(0)) }; SHARDS];
const SHARDS: usize = 16;

fn completions() -> u64 {
    DONE.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}

struct Forked {
    shard: usize,
}

impl Actor for Forked {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        perform_computation(FJ_THETA);
        DONE[self.shard].fetch_add(1, Ordering::Relaxed);
        ctx.stop();
    }
}

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

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    for shard in &DONE {
        shard.store(0, Ordering::Relaxed);
    }
    let driver = spawn(rt.handle(), Driver { n: cfg.n });
    let _ = driver.tell(());
    drop(driver);
    rt.wait_quiescent();
    check(cfg.n, completions())
}
