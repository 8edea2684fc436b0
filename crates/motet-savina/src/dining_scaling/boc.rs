//! The BoC version: forks are cowns, a meal is a behaviour over both of its forks.

use std::time::{Duration, Instant};

use motet_boc::{when, Cown};
use motet_runtime::Runtime;

use super::eat::meal;
use super::{check, Config, Fork};

/// Runs the table on a fresh runtime of `workers` workers; returns the time from the first spawn
/// until every meal has run, once the forks validated.
///
/// The meals are spawned from this thread, outside the runtime, round by round and in each round
/// the odd philosophers' before the even ones' (the paper's alternating schedule), so no behaviour
/// is spawned from inside a meal.
pub fn run(cfg: &Config, workers: usize) -> Result<Duration, String> {
    cfg.validate()?;
    let rt = Runtime::builder()
        .workers(workers)
        .build()
        .map_err(|e| format!("building a runtime of {workers} workers failed: {e}"))?;
    let forks: Vec<Cown<Fork>> = (0..cfg.philosophers)
        .map(|_| Cown::new(rt.handle(), Fork::default()))
        .collect();
    let (eat, clock) = (cfg.eat, cfg.clock);
    let start = Instant::now();
    for _ in 0..cfg.meals {
        for parity in [1, 0] {
            for i in (parity..cfg.philosophers).step_by(2) {
                let (l, r) = cfg.forks_of(i);
                drop(when((&forks[l], &forks[r]), move |(left, right)| {
                    meal(left, right, eat, clock)
                }));
            }
        }
    }
    rt.wait_quiescent();
    let elapsed = start.elapsed();
    let seen = when(&forks[..], |forks| {
        forks.iter().cloned().collect::<Vec<_>>()
    })
    .wait()
    .map_err(|e| format!("reading the forks failed: {e}"))?;
    check(cfg, &seen)?;
    Ok(elapsed)
}
