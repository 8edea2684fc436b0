//! All-Pairs Shortest Path on the sequential floor: the same blocks and the same step kernel in
//! one thread, each block updated in place (row and column `k` do not change in step `k`).

use super::blocks::relax_in_place;
use super::{check, Config, Dist, Graph};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;

/// Builds the graph and its reference distances (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        ApspFloor {
            cfg,
            graph: Graph::new(&cfg),
        },
        ApspFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct ApspFloor {
    cfg: Config,
    graph: Graph,
}

impl ApspFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let layout = self.cfg.layout();
        let mut blocks: Vec<Vec<Dist>> = (0..layout.blocks())
            .map(|id| layout.cut(&self.graph.weights, id))
            .collect();
        let (mut column, mut row) = (Vec::new(), Vec::new());
        for k in 0..self.cfg.n {
            for id in 0..blocks.len() {
                let (row_source, column_source) = layout.sources(id, k);
                layout.column_into(&blocks[row_source], k, &mut column);
                row.clear();
                row.extend_from_slice(layout.row(&blocks[column_source], k));
                relax_in_place(&mut blocks[id], &column, &row);
            }
        }
        let finals: Vec<_> = blocks.into_iter().map(|b| Some(b.into())).collect();
        check(&self.cfg, &self.graph, &finals)
    }
}
