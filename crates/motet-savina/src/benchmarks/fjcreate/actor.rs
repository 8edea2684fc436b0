//! Fork Join (actor creation) as motet actors. The driver is itself an actor, so the N actors are
//! spawned and sent their message from a worker, as Pony's and Verona's drivers do.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Iteration, Outcome};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::motet_support::runtime;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    Ok(Box::new(FjCreateActors {
        cfg: Config::from_params(params)?,
        rt: runtime(threads)?,
    }))
}

struct FjCreateActors {
    cfg: Config,
    rt: Runtime,
}

struct Forked {
    done: Arc<AtomicU64>,
}

impl Actor for Forked {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        perform_computation(FJ_THETA);
        self.done.fetch_add(1, Ordering::Relaxed);
        ctx.stop();
    }
}

struct Driver {
    n: u64,
    done: Arc<AtomicU64>,
}

impl Actor for Driver {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        for _ in 0..self.n {
            let forked = ctx.spawn(Forked {
                done: self.done.clone(),
            });
            let _ = forked.tell(());
        }
        ctx.stop();
    }
}

impl Iteration for FjCreateActors {
    fn run(&mut self) -> Outcome {
        let done = Arc::new(AtomicU64::new(0));
        let driver = spawn(
            self.rt.handle(),
            Driver {
                n: self.cfg.n,
                done: done.clone(),
            },
        );
        let _ = driver.tell(());
        drop(driver);
        self.rt.wait_quiescent();
        check(self.cfg.n, done.load(Ordering::Relaxed))
    }
}
