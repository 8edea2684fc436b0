//! Recursive Matrix Multiplication on the sequential floor: the same decomposition and SPEC.md's
//! leaf kernel (the i-j-k loop of every default program), in one thread with plain calls. The Work
//! items are taken in the order the Master forwards them (first in, first out), so every block of
//! C receives its leaves in the same order as in the actor program.

use std::collections::VecDeque;

use super::{check, Config, Inputs, Leaf, SharedC};
use crate::bench::Prepared;
use crate::params::Params;

/// Builds the matrices (untimed); `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program_validated(
        MatMulFloor {
            cfg,
            inputs: Inputs::new(cfg.n),
            c: SharedC::new(&cfg),
        },
        MatMulFloor::run,
        |floor: &MatMulFloor, ()| check(&floor.cfg, Some(&floor.c)),
    )
}

/// What every iteration reads, made once, untimed.
struct MatMulFloor {
    cfg: Config,
    inputs: Inputs,
    c: SharedC,
}

impl MatMulFloor {
    /// One timed iteration: zeroes C and runs the program (C is checked after it, untimed).
    fn run(&self) {
        let c = &self.c;
        c.clear();
        let mut queue = VecDeque::from([self.cfg.root_work()]);
        while let Some(work) = queue.pop_front() {
            if work.num_blocks > self.cfg.threshold {
                queue.extend(work.split());
            } else {
                let mut block = c.block_for(&work);
                self.inputs.multiply_leaf(Leaf::Plain, &work, &mut block);
            }
        }
    }
}
