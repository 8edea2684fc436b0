//! Trapezoidal Approximation on the sequential floor: the workers' sums, one after the other, added
//! in worker order (the plain sequential algorithm; no messages).

use crate::bench::{Iteration, Outcome};
use crate::params::Params;

use super::{area, check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Result<Box<dyn Iteration>, String> {
    Ok(Box::new(TrapezoidFloor {
        cfg: Config::from_params(params)?,
    }))
}

/// The prepared program.
struct TrapezoidFloor {
    cfg: Config,
}

impl Iteration for TrapezoidFloor {
    fn run(&mut self) -> Outcome {
        let cfg = &self.cfg;
        let h = cfg.h();
        let total = (0..cfg.w)
            .map(|i| {
                let (l, r) = cfg.range(i);
                area(l, r, h)
            })
            .sum();
        check(cfg, Some(total))
    }
}
