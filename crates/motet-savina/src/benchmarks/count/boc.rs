//! Counting Actor in behaviour-oriented concurrency (motet-boc), after Verona's BoC(Full) port: the
//! counter is a cown, and the producer, a behaviour on its own cown, spawns one `when` per increment
//! on the counter, then a last `when` over the counter and itself that reads the count. The
//! increments are `when_detached`, as the actor version's are `tell`s: nobody awaits their results
//! (a `when` over one cown is never rejected, so their `Ok` is not checked).

use motet_boc::{when_detached, Cown};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// One timed iteration: spawns the producer, runs it to quiescence and checks the count.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let counter = Cown::new(h, 0u64);
    let producer = Cown::new(h, ());
    let me = producer.clone();
    let (n, slot) = (cfg.n, result.clone());
    let _ = when_detached(&producer, move |_| {
        for _ in 0..n {
            let _ = when_detached(&counter, |count| *count += 1);
        }
        // Spawned after every increment and naming the counter, so it runs after them all (two
        // distinct cowns: never rejected).
        let _ = when_detached((&counter, &me), move |(count, _)| slot.set(*count));
    });
    drop(producer);
    rt.wait_quiescent();
    check(cfg.n, result.take().unwrap_or(0))
}
