//! Fork Join (throughput) in behaviour-oriented concurrency (motet-boc), after Verona's BoC(Full)
//! port: a cown per worker and one for the master. The driver, a behaviour on the master's cown,
//! spawns N rounds of one `when` per worker (the sin² work), then a `when` over the master and each
//! worker that records how many messages the worker handled; the last of those reports. All are
//! `when_detached`, as the actor version's messages are `tell`s (over one cown, or two distinct
//! ones, a `when` is never rejected, so their `Ok` is not checked).

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

/// The master: each worker's count, and how many workers have not reported yet.
struct Master {
    counts: Vec<u64>,
    left: usize,
    result: ResultSlot<Vec<u64>>,
}

/// One timed iteration: spawns the driver, runs to quiescence and checks every worker's count.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let Config { n, a } = *cfg;
    let result = ResultSlot::new();
    let h = rt.handle();
    let master = Cown::new(
        h,
        Master {
            counts: vec![0; a],
            left: a,
            result: result.clone(),
        },
    );
    let workers: Vec<Cown<u64>> = (0..a).map(|_| Cown::new(h, 0)).collect();
    let me = master.clone();
    let _ = when_detached(&master, move |_| {
        for _ in 0..n {
            for w in &workers {
                let _ = when_detached(w, |processed| {
                    perform_computation(FJ_THETA);
                    *processed += 1;
                });
            }
        }
        for (i, w) in workers.iter().enumerate() {
            let _ = when_detached((&me, w), move |(master, processed)| {
                master.counts[i] = *processed;
                master.left -= 1;
                if master.left == 0 {
                    master.result.set(std::mem::take(&mut master.counts));
                }
            });
        }
    });
    drop(master);
    rt.wait_quiescent();
    check(n, a, &result.take().unwrap_or_default())
}
