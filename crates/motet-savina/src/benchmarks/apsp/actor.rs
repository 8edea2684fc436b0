//! All-Pairs Shortest Path as motet actors: one actor per block of the distance matrix, Savina's
//! flow and step (SPEC.md section 3.25).
//!
//! A block gets `Neighbors`, then `Initial`, on which it sends its block to its neighbours as the
//! result of step −1. Every step's result is the whole new block, shared by the neighbours it goes
//! to; once a block holds every neighbour's result of its last step it does the next step (a new
//! block, Savina's plain loop: [`BlockState::step`]) and sends the result; it exits after step
//! `n − 1`. The neighbours' blocks are kept by step parity and sender ([`BlockState`]).

use std::sync::{Arc, Mutex};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

pub(super) use super::actor_tuned::prepare as prepare_tuned;
use super::state::BlockState;
use super::{check, Block, Config, Graph};
use crate::bench::{Outcome, Prepared};
use crate::motet_support;
use crate::params::Params;

/// Builds the graph, its reference distances and the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let program = Program {
        cfg,
        graph: Graph::new(&cfg),
    };
    motet_support::prepare_validated(program, threads, run, validate)
}

/// The parameters and the graph every iteration shares.
struct Program {
    cfg: Config,
    graph: Graph,
}

/// What a run ends with: the final block of each actor, by block id, and the errors the blocks
/// met.
#[derive(Default)]
struct Ended {
    finals: Vec<Option<Block>>,
    errors: Vec<String>,
}

/// One timed iteration: creates the block actors and runs them to quiescence.
fn run(program: &Program, rt: &Runtime) -> Ended {
    let layout = program.cfg.layout();
    let ended = Arc::new(Mutex::new(Ended {
        finals: vec![None; layout.blocks()],
        errors: Vec::new(),
    }));
    let blocks: Vec<Addr<BlockMsg>> = (0..layout.blocks())
        .map(|id| {
            let state = BlockState::new(id, layout, layout.cut(&program.graph.weights, id));
            spawn(
                rt.handle(),
                BlockActor {
                    id,
                    state,
                    neighbours: Vec::new(),
                    started: false,
                    ended: ended.clone(),
                },
            )
        })
        .collect();
    for (id, block) in blocks.iter().enumerate() {
        let neighbours = layout
            .neighbours(id)
            .into_iter()
            .map(|n| blocks[n].clone())
            .collect();
        let _ = block.tell(BlockMsg::Neighbors(neighbours));
    }
    for block in &blocks {
        let _ = block.tell(BlockMsg::Initial);
    }
    drop(blocks);
    rt.wait_quiescent();
    let mut ended = ended.lock().unwrap_or_else(|e| e.into_inner());
    std::mem::take(&mut *ended)
}

/// Checks the distances (untimed).
fn validate(program: &Program, ended: Ended) -> Outcome {
    let mut outcome = check(&program.cfg, &program.graph, &ended.finals);
    if let Some(e) = ended.errors.into_iter().next() {
        outcome.check = Err(e);
    }
    outcome
}

enum BlockMsg {
    /// The other blocks of this block's row and column, in [`super::Layout::neighbours`] order.
    Neighbors(Vec<Addr<BlockMsg>>),
    /// Start: send the initial block.
    Initial,
    /// Block `from`'s result of step `k`.
    Result { k: i32, from: u32, data: Block },
}

struct BlockActor {
    id: usize,
    state: BlockState<Block>,
    neighbours: Vec<Addr<BlockMsg>>,
    /// Whether `Initial` has come (the block has sent its step −1).
    started: bool,
    ended: Arc<Mutex<Ended>>,
}

impl BlockActor {
    /// Sends the current block to every neighbour.
    fn notify(&self) {
        for neighbour in &self.neighbours {
            let _ = neighbour.tell(BlockMsg::Result {
                k: self.state.k(),
                from: self.id as u32,
                data: self.state.current().clone(),
            });
        }
    }

    /// Steps while every neighbour's result of the last step is here; exits after the last step.
    fn advance(&mut self, ctx: &mut Context<'_, Self>) {
        while self.started && self.state.ready() {
            self.state.step();
            self.notify();
        }
        if self.state.done() {
            let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
            ended.finals[self.id] = Some(self.state.current().clone());
            drop(ended);
            self.neighbours.clear();
            ctx.stop();
        }
    }
}

impl Actor for BlockActor {
    type Msg = BlockMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: BlockMsg) {
        match msg {
            BlockMsg::Result { k, from, data } => match self.state.store(k, from as usize, data) {
                Ok(()) => self.advance(ctx),
                Err(e) => {
                    let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
                    ended.errors.push(e);
                    drop(ended);
                    self.neighbours.clear();
                    ctx.stop();
                }
            },
            BlockMsg::Neighbors(neighbours) => self.neighbours = neighbours,
            BlockMsg::Initial => {
                self.started = true;
                self.notify();
                self.advance(ctx);
            }
        }
    }
}
