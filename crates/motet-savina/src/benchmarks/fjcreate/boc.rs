//! Fork Join (actor creation) in behaviour-oriented concurrency (motet-boc), after Verona's
//! BoC(Full) port: the driver, a behaviour on the master's cown, creates N cowns, spawns the sin²
//! work on each, then a `when` over the master and each of them that counts the completed work.

use motet_boc::{when_detached, Cown};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// The master: completed work so far, out of `n`.
struct Master {
    done: u64,
    n: u64,
    result: ResultSlot<u64>,
}

/// One timed iteration: spawns the driver, runs to quiescence and checks the completions.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle().clone();
    let master = Cown::new(
        &h,
        Master {
            done: 0,
            n: cfg.n,
            result: result.clone(),
        },
    );
    let me = master.clone();
    let n = cfg.n;
    let _ = when_detached(&master, move |m| {
        if m.n == 0 {
            m.result.set(0);
        }
        let forked: Vec<Cown<bool>> = (0..n)
            .map(|_| {
                let f = Cown::new(&h, false);
                let _ = when_detached(&f, |computed| {
                    perform_computation(FJ_THETA);
                    *computed = true;
                });
                f
            })
            .collect();
        for f in &forked {
            let _ = when_detached((&me, f), |(master, computed)| {
                master.done += u64::from(*computed);
                if master.done == master.n {
                    master.result.set(master.done);
                }
            });
        }
    });
    drop(master);
    rt.wait_quiescent();
    check(cfg.n, result.take().unwrap_or(0))
}
