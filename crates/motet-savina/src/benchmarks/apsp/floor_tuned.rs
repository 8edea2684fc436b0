//! All-Pairs Shortest Path on the sequential floor: the actor program's message flow (one actor per
//! block of the distance matrix, results carrying only the row or column the receiver's next step
//! reads; see the `actor` module) on one thread.
//!
//! The parts a result carries are shared by the neighbours it goes to through an `Rc`, where the
//! actors share an `Arc`; the final blocks and any protocol error stay in each block's state, where
//! the harness reads them once the system has run.

use std::rc::Rc;

/// A final block.
type Block = Vec<Dist>;

use super::narrow::{narrow, relax_in_place, Narrow as Dist};
use super::{check, Config, Graph, Layout};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the graph and its reference distances (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let graph = Graph::new(&cfg);
    crate::floor::program((cfg, graph), run)
}

/// One timed iteration: creates the block actors, runs them to quiescence on a fresh system and
/// checks the distances.
fn run((cfg, graph): &(Config, Graph)) -> Outcome {
    let mut sys = System::new();
    let blocks = start(cfg, graph, &mut sys);
    sys.run();
    let finals: Vec<Option<Block>> = blocks
        .iter()
        .map(|&b| sys.actor_mut(b).result.take())
        .collect();
    let mut outcome = check(cfg, graph, &finals);
    // The first error in block order (the actors report the first in time).
    if let Some(e) = blocks.iter().find_map(|&b| sys.actor_mut(b).error.take()) {
        outcome.check = Err(e);
    }
    outcome
}

/// Spawns one actor per block (in block order, so that a block's id is its actor's index) and
/// sends every block its neighbours, then every block `Initial`, as the actor program does;
/// returns the blocks' ids.
fn start(cfg: &Config, graph: &Graph, sys: &mut System<BlockActor>) -> Vec<ActorId> {
    let layout = cfg.layout();
    let blocks: Vec<ActorId> = (0..layout.blocks())
        .map(|id| {
            let initial = narrow(layout.cut(&graph.weights, id));
            sys.spawn(BlockActor::new(id, layout, initial))
        })
        .collect();
    for (id, &block) in blocks.iter().enumerate() {
        let neighbours = layout
            .neighbours(id)
            .into_iter()
            .map(|n| blocks[n])
            .collect();
        sys.send(block, Msg::Neighbors(neighbours));
    }
    for &block in &blocks {
        sys.send(block, Msg::Initial);
    }
    blocks
}

/// Every message of the program (all go to blocks).
enum Msg {
    /// The other blocks of this block's row and column, in [`Layout::neighbours`] order.
    Neighbors(Vec<ActorId>),
    /// Start: broadcast the initial block.
    Initial,
    /// The sender's result of step `k`: `slot` is the sender's place in the receiver's list of
    /// neighbours, `part` the row or column of the new block that the receiver's step `k + 1`
    /// reads, if that is the sender's.
    Result {
        k: i32,
        slot: u32,
        part: Option<Part>,
    },
}

/// Row or column `k + 1` of a block after its step `k` (`b` distances), shared by the neighbours
/// whose step `k + 1` reads it.
type Part = Rc<[Dist]>;

/// The neighbours' results of one step: how many have come, and the row and the column of the
/// next step (copied out of the two results that carry them; the others are only counted).
struct Step {
    /// Results received.
    count: usize,
    /// Results received with a part.
    parts: usize,
    /// Column `k + 1` for this block's rows (`D[i][k + 1]`).
    column: Vec<Dist>,
    /// Row `k + 1` for this block's columns (`D[k + 1][j]`).
    row: Vec<Dist>,
}

impl Step {
    fn new(b: usize) -> Step {
        Step {
            count: 0,
            parts: 0,
            column: Vec::with_capacity(b),
            row: Vec::with_capacity(b),
        }
    }
}

struct BlockActor {
    id: usize,
    /// (block row, block column).
    at: (usize, usize),
    layout: Layout,
    neighbours: Vec<ActorId>,
    /// This block's slot in each neighbour's list of neighbours, in the order of `neighbours`.
    slots: Vec<u32>,
    /// The last step done (−1: none yet).
    k: i32,
    /// Whether `Initial` has come (the block has broadcast its step −1).
    started: bool,
    /// The block's distances after step `k`, never shared (results carry copies of one row or
    /// column).
    current: Vec<Dist>,
    /// The results of steps with an even (0) and an odd (1) `k`.
    steps: [Step; 2],
    /// The final distances, set after step `n − 1`.
    result: Option<Block>,
    /// What went wrong, if the block stopped on an unexpected result.
    error: Option<String>,
}

impl BlockActor {
    fn new(id: usize, layout: Layout, initial: Vec<Dist>) -> BlockActor {
        BlockActor {
            id,
            at: layout.coords(id),
            layout,
            neighbours: Vec::new(),
            slots: Vec::new(),
            k: -1,
            started: false,
            current: initial,
            steps: [Step::new(layout.b()), Step::new(layout.b())],
            result: None,
            error: None,
        }
    }

    /// Sends the result of step `k` to every neighbour: row `k + 1` of the block to the
    /// neighbours of its block column if this block row holds that row, column `k + 1` to those
    /// of its block row if this block column holds that column (after the last step, neither).
    fn broadcast(&self, cx: &mut Context<Self>) {
        let next = (self.k + 1) as usize;
        let source = next / self.layout.b();
        let (bi, bj) = self.at;
        let row: Option<Part> = (bi == source).then(|| self.layout.row(&self.current, next).into());
        let column: Option<Part> = (bj == source).then(|| {
            let mut column = Vec::with_capacity(self.layout.b());
            self.layout.column_into(&self.current, next, &mut column);
            column.into()
        });
        // [`Layout::neighbours`] order: the other blocks of this block column, then of this row.
        let column_neighbours = self.neighbours.len() / 2;
        for (at, (&neighbour, &slot)) in self.neighbours.iter().zip(&self.slots).enumerate() {
            let part = if at < column_neighbours {
                &row
            } else {
                &column
            };
            cx.send(
                neighbour,
                Msg::Result {
                    k: self.k,
                    slot,
                    part: part.clone(),
                },
            );
        }
    }

    /// Files the result of step `k` (this step or the next) from the neighbour in `slot`; false if
    /// it is of neither step or from no neighbour.
    fn store(&mut self, k: i32, slot: u32, part: Option<Part>) -> bool {
        let slot = slot as usize;
        let ahead = k.wrapping_sub(self.k);
        if !(ahead == 0 || ahead == 1) || slot >= self.neighbours.len() {
            return false;
        }
        let step = &mut self.steps[(k & 1) as usize];
        step.count += 1;
        if let Some(part) = part {
            step.parts += 1;
            // The first half of the neighbours share this block's column: they send rows.
            let into = if slot < self.neighbours.len() / 2 {
                &mut step.row
            } else {
                &mut step.column
            };
            into.clear();
            into.extend_from_slice(&part);
        }
        true
    }

    /// Steps while every neighbour's result for the last step is here; stops after step `n − 1`.
    fn advance(&mut self, cx: &mut Context<Self>) {
        let last = self.layout.n() as i32 - 1;
        let neighbours = self.neighbours.len();
        while self.started && self.k < last && self.steps[(self.k & 1) as usize].count == neighbours
        {
            let k = (self.k + 1) as usize;
            let source = k / self.layout.b();
            let (bi, bj) = self.at;
            let step = &mut self.steps[(self.k & 1) as usize];
            // The neighbours send the row and the column this block does not hold itself.
            let expected = usize::from(bi != source) + usize::from(bj != source);
            if step.parts != expected {
                let e = format!(
                    "block {} at step {k}: {} of the {expected} row and column parts came",
                    self.id, step.parts
                );
                return self.fail(cx, e);
            }
            // Row and column k held by this block itself are copied out here (they do not change
            // in step k, as D[k][k] = 0, so the block can then be updated in place).
            if bj == source {
                self.layout.column_into(&self.current, k, &mut step.column);
            }
            if bi == source {
                step.row.clear();
                step.row
                    .extend_from_slice(self.layout.row(&self.current, k));
            }
            relax_in_place(&mut self.current, &step.column, &step.row);
            // These counts next collect the results of step k + 1, which feed step k + 2.
            step.count = 0;
            step.parts = 0;
            self.k += 1;
            self.broadcast(cx);
        }
        if self.k == last {
            self.result = Some(std::mem::take(&mut self.current));
            self.neighbours.clear();
            cx.exit();
        }
    }

    fn fail(&mut self, cx: &mut Context<Self>, error: String) {
        self.error = Some(error);
        self.neighbours.clear();
        cx.exit();
    }
}

impl Actor for BlockActor {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match msg {
            Msg::Result { k, slot, part } => {
                if self.store(k, slot, part) {
                    // Most results complete no step: only the last of a step's calls `advance`.
                    if self.steps[(self.k & 1) as usize].count == self.neighbours.len() {
                        self.advance(cx);
                    }
                } else {
                    let e = format!(
                        "block {} at step {}: unexpected result of step {k} from slot {slot}",
                        self.id, self.k
                    );
                    self.fail(cx, e);
                }
            }
            Msg::Neighbors(neighbours) => {
                self.slots = self
                    .layout
                    .neighbours(self.id)
                    .into_iter()
                    .map(|n| self.layout.slot(n, self.id) as u32)
                    .collect();
                self.neighbours = neighbours;
            }
            Msg::Initial => {
                self.started = true;
                self.broadcast(cx);
                self.advance(cx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{start, System};
    use crate::benchmarks::apsp::{Config, Graph, BENCHMARK};
    use crate::benchmarks::testing;

    /// Every block gets `Neighbors` and `Initial`, and a result from each of its neighbours for
    /// each step from −1 to `n − 1` (SPEC.md: 108,360 results at the defaults); those of the last
    /// step that reach a block which has already finished are dropped, as dead letters are.
    #[test]
    fn every_block_gets_every_result() {
        for (n, b) in [(24.0, 6.0), (20.0, 10.0), (8.0, 8.0)] {
            let cfg = Config::from_params(&testing::params(&BENCHMARK, &[("n", n), ("b", b)]));
            let cfg = cfg.unwrap();
            let graph = Graph::new(&cfg);
            let mut sys = System::new();
            let blocks = start(&cfg, &graph, &mut sys).len() as u64;
            sys.run();
            let neighbours = 2 * (cfg.n / cfg.b - 1) as u64;
            let results = blocks * neighbours * (cfg.n as u64 + 1);
            assert_eq!(sys.delivered() + sys.dropped(), 2 * blocks + results);
            assert_eq!(sys.exited() as u64, blocks);
        }
    }
}
