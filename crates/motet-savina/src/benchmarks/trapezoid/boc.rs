//! Trapezoidal Approximation in BoC(Full), after the BoC paper's port: worker i's partial area is a
//! cown, computed by one behaviour; the reduction is one behaviour per worker i > 0 over the first
//! worker's cown and worker i's, which adds the second into the first. Happens-before orders every
//! addition after the areas it reads, with no message back to a Master.
//!
//! A driver behaviour spawns the W areas, then the W − 1 additions (100 one-cown and 99 two-cown
//! behaviours at the defaults); the area is read by one more behaviour. The ranges are the actor
//! version's, and the additions run in worker order.

use motet_boc::{when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{area, check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Spawns the workers' areas and the reduction; returns the cown that ends with the whole area.
fn integrate(h: &Handle, cfg: &Config) -> Cown<f64> {
    let h_step = cfg.h();
    let partials: Vec<Cown<f64>> = (0..cfg.w)
        .map(|i| {
            let partial = Cown::new(h, 0.0);
            let (l, r) = cfg.range(i);
            let _ = when_detached(&partial, move |a| *a = area(l, r, h_step));
            partial
        })
        .collect();
    let (first, rest) = partials.split_first().expect("at least one worker");
    for partial in rest {
        let _ = when_detached((first, partial), |(total, part)| *total += *part);
    }
    first.clone()
}

/// One timed iteration: integrates from a driver behaviour, reads the area and checks it.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let work = *cfg;
    let result = start(rt, move |h| integrate(h, &work)).and_then(|total| read(&total, |a| *a));
    rt.wait_quiescent();
    match result {
        Ok(total) => check(cfg, Some(total)),
        Err(e) => Outcome::failed(e),
    }
}
