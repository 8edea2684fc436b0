//! All-Pairs Shortest Path on the sequential floor as a plain loop: the textbook Floyd–Warshall
//! over the whole matrix in Savina's `long`s, in place (row `k` copied out for each `k`, as it does
//! not change in step `k`).

use super::{check, floyd_warshall, Config, Dist, Graph};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;

/// Builds the graph and its reference distances (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program_validated((cfg, Graph::new(&cfg)), run, validate)
}

/// One timed iteration: the distances.
fn run((cfg, graph): &(Config, Graph)) -> Vec<Dist> {
    floyd_warshall(cfg.n, &graph.weights)
}

/// Cuts the distances into blocks and checks them (untimed).
fn validate((cfg, graph): &(Config, Graph), d: Vec<Dist>) -> Outcome {
    let layout = cfg.layout();
    let blocks: Vec<Option<Vec<Dist>>> = (0..layout.blocks())
        .map(|id| Some(layout.cut(&d, id)))
        .collect();
    check(cfg, graph, &blocks)
}
