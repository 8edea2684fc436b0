//! Logistic Map Series in BoC(Full), after the BoC paper's port: series j's term and its rate are
//! two cowns, and each term is one behaviour over both (the worker's request and the computer's
//! reply of the actor version, with no stash). Happens-before keeps every series' terms in order.
//!
//! A driver behaviour spawns the T·S term behaviours (round-robin over the series, as the Master
//! sends them), then one behaviour per series over a sum cown and the series' term (250,000 and 10
//! at the defaults); the sum is read by one more behaviour. The sum adds the final terms in series
//! order.

use motet_boc::{when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{check, next_term, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Series j's current term.
struct SeriesWorker {
    term: f64,
}

/// Series j's rate.
struct RateComputer {
    rate: f64,
}

/// Spawns every term and the sum; returns the sum's cown.
fn spawn_series(h: &Handle, cfg: &Config) -> Cown<f64> {
    let workers: Vec<Cown<SeriesWorker>> = (0..cfg.series)
        .map(|j| {
            Cown::new(
                h,
                SeriesWorker {
                    term: Config::start_of(j),
                },
            )
        })
        .collect();
    let computers: Vec<Cown<RateComputer>> = (0..cfg.series)
        .map(|j| {
            Cown::new(
                h,
                RateComputer {
                    rate: cfg.rate_of(j),
                },
            )
        })
        .collect();
    for _ in 0..cfg.terms {
        for (worker, computer) in workers.iter().zip(&computers) {
            let _ = when_detached((worker, computer), |(w, c)| {
                w.term = next_term(w.term, c.rate)
            });
        }
    }
    let sum = Cown::new(h, 0.0);
    for worker in &workers {
        let _ = when_detached((&sum, worker), |(sum, w)| *sum += w.term);
    }
    sum
}

/// One timed iteration: spawns the series in a driver behaviour, reads the sum and checks it.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let series = *cfg;
    let result = start(rt, move |h| spawn_series(h, &series)).and_then(|sum| read(&sum, |s| *s));
    rt.wait_quiescent();
    match result {
        Ok(sum) => check(cfg, Some(sum)),
        Err(e) => Outcome::failed(e),
    }
}
