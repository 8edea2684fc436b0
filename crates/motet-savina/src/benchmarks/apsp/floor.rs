//! All-Pairs Shortest Path on the sequential floor: the actor program's message flow (Savina's:
//! every step's whole block to every neighbour; see the `actor` module) on one thread, the blocks
//! shared through an `Rc` where the actors share an `Arc`. The final blocks and any protocol error
//! stay in each block's state, where the untimed validation reads them.

use std::rc::Rc;

pub(super) use super::floor_tuned::prepare as prepare_tuned;
use super::state::BlockState;
use super::{check, Config, Dist, Graph};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the graph and its reference distances (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let graph = Graph::new(&cfg);
    crate::floor::program_validated((cfg, graph), run, validate)
}

/// A block as the floor's actors share it.
type Shared = Rc<[Dist]>;

/// One timed iteration: creates the block actors and runs them to quiescence on a fresh system.
fn run((cfg, graph): &(Config, Graph)) -> (System<BlockActor>, Vec<ActorId>) {
    let mut sys = System::new();
    let blocks = start(cfg, graph, &mut sys);
    sys.run();
    (sys, blocks)
}

/// Checks the distances (untimed).
fn validate(
    (cfg, graph): &(Config, Graph),
    (mut sys, blocks): (System<BlockActor>, Vec<ActorId>),
) -> Outcome {
    let finals: Vec<Option<Shared>> = blocks
        .iter()
        .map(|&b| {
            let block = sys.actor(b);
            block.state.done().then(|| block.state.current().clone())
        })
        .collect();
    let mut outcome = check(cfg, graph, &finals);
    // The first error in block order.
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
            sys.spawn(BlockActor {
                id,
                state: BlockState::new(id, layout, layout.cut(&graph.weights, id)),
                neighbours: Vec::new(),
                started: false,
                error: None,
            })
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
    /// The other blocks of this block's row and column, in [`super::Layout::neighbours`] order.
    Neighbors(Vec<ActorId>),
    /// Start: send the initial block.
    Initial,
    /// Block `from`'s result of step `k`.
    Result { k: i32, from: u32, data: Shared },
}

struct BlockActor {
    id: usize,
    state: BlockState<Shared>,
    neighbours: Vec<ActorId>,
    /// Whether `Initial` has come (the block has sent its step −1).
    started: bool,
    /// What went wrong, if the block stopped on an unexpected result.
    error: Option<String>,
}

impl BlockActor {
    /// Sends the current block to every neighbour.
    fn notify(&self, cx: &mut Context<Self>) {
        for &neighbour in &self.neighbours {
            cx.send(
                neighbour,
                Msg::Result {
                    k: self.state.k(),
                    from: self.id as u32,
                    data: self.state.current().clone(),
                },
            );
        }
    }

    /// Steps while every neighbour's result of the last step is here; exits after the last step.
    fn advance(&mut self, cx: &mut Context<Self>) {
        while self.started && self.state.ready() {
            self.state.step();
            self.notify(cx);
        }
        if self.state.done() {
            self.neighbours.clear();
            cx.exit();
        }
    }
}

impl Actor for BlockActor {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match msg {
            Msg::Result { k, from, data } => match self.state.store(k, from as usize, data) {
                Ok(()) => self.advance(cx),
                Err(e) => {
                    self.error = Some(e);
                    self.neighbours.clear();
                    cx.exit();
                }
            },
            Msg::Neighbors(neighbours) => self.neighbours = neighbours,
            Msg::Initial => {
                self.started = true;
                self.notify(cx);
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
