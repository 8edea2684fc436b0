//! Trapezoidal Approximation on the sequential floor: the workers' sums, one after the other, added
//! in worker order (the plain sequential algorithm; no messages).

use crate::bench::{Outcome, Prepared};
use crate::params::Params;

use super::{area, check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let cfg = &cfg;
    let h = cfg.h();
    let total = (0..cfg.w)
        .map(|i| {
            let (l, r) = cfg.range(i);
            area(l, r, h)
        })
        .sum();
    check(cfg, Some(total))
}
