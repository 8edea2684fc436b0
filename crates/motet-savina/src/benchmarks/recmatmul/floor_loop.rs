//! Recursive Matrix Multiplication on the sequential floor: the same decomposition and the same
//! leaf kernel, in one thread with plain calls. The Work items are taken in the order the Master
//! forwards them (first in, first out), so every block of C receives its leaves in the same order
//! as in the actor program.

use std::collections::VecDeque;

use super::{check, CBlocks, Config, Inputs};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;

/// Builds the matrices (untimed); `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        MatMulFloor {
            cfg,
            inputs: Inputs::new(cfg.n),
        },
        MatMulFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct MatMulFloor {
    cfg: Config,
    inputs: Inputs,
}

impl MatMulFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let mut c = CBlocks::new(&self.cfg);
        let mut queue = VecDeque::from([self.cfg.root_work()]);
        while let Some(work) = queue.pop_front() {
            if work.num_blocks > self.cfg.threshold {
                queue.extend(work.split());
            } else {
                self.inputs.multiply_leaf(&work, c.block_for(&work));
            }
        }
        check(&self.cfg, Some(&c))
    }
}
