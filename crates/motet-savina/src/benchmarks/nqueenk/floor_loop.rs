//! N-Queens first K solutions on the sequential floor: the workers' computation as one recursion,
//! with the same validity checks in the same order, without messages. Every board a worker would
//! receive as Work is counted as one; the solution limit does not stop the recursion (the check
//! accepts any count from the limit to the number of solutions).

use super::{check, expected_work_items, Config, Counts, Kernel, Plain as Board};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;

/// Counts the expected Work items (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        NQueensFloor {
            cfg,
            expected_items: expected_work_items(&cfg),
        },
        NQueensFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct NQueensFloor {
    cfg: Config,
    expected_items: u64,
}

impl NQueensFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let mut counts = Counts {
            solutions: 0,
            work_items: 0,
        };
        explore(&self.cfg, Board::empty(), &mut counts);
        check(&self.cfg, self.expected_items, Some(counts))
    }
}

/// What a worker does with `board` as a Work item, with the Work items it splits off explored in
/// turn.
fn explore(cfg: &Config, mut board: Board, counts: &mut Counts) {
    counts.work_items += 1;
    if board.depth() == cfg.n {
        counts.solutions += 1;
    } else if board.depth() >= cfg.threshold {
        board.search(cfg.n, &mut || counts.solutions += 1);
    } else {
        for c in 0..cfg.n {
            let next = board.with(c);
            if next.valid() {
                explore(cfg, next, counts);
            }
        }
    }
}
