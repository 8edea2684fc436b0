//! Precise Pi on the sequential floor: the Master's loop with the terms computed in place, in
//! order (the work is big-number arithmetic, not messages).

use std::sync::Arc;

use num_bigint::BigUint;

use super::{bbp_term, below_tolerance, check, Config, Expected, Kernel, Sum};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;

/// Builds the kernel and the reference π (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        PiFloor {
            cfg,
            kernel: Kernel::savina(cfg.p),
            expected: Expected::new(cfg.p),
        },
        PiFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct PiFloor {
    cfg: Config,
    kernel: Arc<Kernel>,
    expected: Expected,
}

impl PiFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        check(&self.expected, Some(compute(self.cfg, &self.kernel)))
    }
}

/// The Master's policy with results taken in request order: `window` terms are requested at the
/// start, each result requests one more until a term is below the tolerance, and every requested
/// term is added. The actors compute the same terms (how many are in flight when the small term
/// arrives may differ by a few).
pub(super) fn compute(cfg: Config, kernel: &Kernel) -> Sum {
    let mut sum = BigUint::ZERO;
    let mut requested = cfg.window();
    let mut k = 0u64;
    let mut stop_requests = false;
    while k < requested {
        let term = bbp_term(kernel, k as u32);
        if below_tolerance(&term) {
            stop_requests = true;
        }
        sum += term;
        if !stop_requests {
            requested += 1;
        }
        k += 1;
    }
    Sum {
        value: sum,
        terms: k,
    }
}
