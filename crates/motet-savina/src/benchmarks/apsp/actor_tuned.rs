//! All-Pairs Shortest Path as motet actors: one actor per block of the distance matrix.
//!
//! # Steps
//! A block that has done step `k` (`k = −1` before the first) waits for the step-`k` results of
//! its neighbours. A neighbour can be at most one step ahead, since its step `k + 2` needs this
//! block's result `k + 1`; so results are counted apart by the parity of their step ([`Step`])
//! and never overwrite one another. After a step, the next step's results may all be here already
//! (every neighbour got ahead), so the block steps again at once.
//!
//! # What a result carries
//! Every neighbour gets a result message per step, as in Savina. Step `k + 1` of a block reads one
//! column and one row: column `k + 1` for its rows, held by the block of its block row in block
//! column `(k + 1) / b`, and row `k + 1` for its columns, held by the block of its block column in
//! block row `(k + 1) / b` (Savina's blocks store every neighbour's block and read those two
//! parts). So a result carries, shared by the neighbours it goes to, only the part of the new
//! block that their next step reads: row `k + 1` (`b` distances) to the blocks of its block column
//! if its block row holds that row, column `k + 1` to the blocks of its block row if its block
//! column holds that column, nothing otherwise. The receiver copies the part into the step's row
//! or column. The sender's block is therefore never shared: every step updates it in place, as
//! the floor does (row and column `k` do not change in step `k`), with no second buffer and no
//! block copy; and the strided column is gathered once by its sender instead of once by each of
//! the neighbours that read it. A result names the sender by its slot in the receiver's list of
//! neighbours, so the receiver files it without working out where the sender sits.

use std::sync::{Arc, Mutex};

/// A final block.
type Block = Arc<[Dist]>;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::narrow::{narrow, relax_in_place, Narrow as Dist};
use super::{check, Config, Graph, Layout};
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
    motet_support::prepare(program, threads, run)
}

/// The parameters and the graph every iteration shares.
struct Program {
    cfg: Config,
    graph: Graph,
}

/// The final block of each actor, by block id.
type Finals = Arc<Mutex<Vec<Option<Block>>>>;

/// One timed iteration: creates the block actors, runs them to quiescence and checks the
/// distances.
fn run(program: &Program, rt: &Runtime) -> Outcome {
    let layout = program.cfg.layout();
    let finals: Finals = Arc::new(Mutex::new(vec![None; layout.blocks()]));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let blocks: Vec<Addr<BlockMsg>> = (0..layout.blocks())
        .map(|id| {
            let initial = narrow(layout.cut(&program.graph.weights, id));
            spawn(
                rt.handle(),
                BlockActor::new(id, layout, initial, finals.clone(), errors.clone()),
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
    let finals = std::mem::take(&mut *finals.lock().unwrap_or_else(|e| e.into_inner()));
    let mut outcome = check(&program.cfg, &program.graph, &finals);
    if let Some(e) = errors.lock().unwrap_or_else(|e| e.into_inner()).first() {
        outcome.check = Err(e.clone());
    }
    outcome
}

enum BlockMsg {
    /// The other blocks of this block's row and column, in [`Layout::neighbours`] order.
    Neighbors(Vec<Addr<BlockMsg>>),
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
type Part = Arc<[Dist]>;

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
    neighbours: Vec<Addr<BlockMsg>>,
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
    finals: Finals,
    errors: Arc<Mutex<Vec<String>>>,
}

impl BlockActor {
    fn new(
        id: usize,
        layout: Layout,
        initial: Vec<Dist>,
        finals: Finals,
        errors: Arc<Mutex<Vec<String>>>,
    ) -> BlockActor {
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
            finals,
            errors,
        }
    }

    /// Sends the result of step `k` to every neighbour: row `k + 1` of the block to the
    /// neighbours of its block column if this block row holds that row, column `k + 1` to those
    /// of its block row if this block column holds that column (after the last step, neither).
    fn broadcast(&self) {
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
        for (at, (neighbour, &slot)) in self.neighbours.iter().zip(&self.slots).enumerate() {
            let part = if at < column_neighbours {
                &row
            } else {
                &column
            };
            let _ = neighbour.tell(BlockMsg::Result {
                k: self.k,
                slot,
                part: part.clone(),
            });
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
    fn advance(&mut self, ctx: &mut Context<'_, Self>) {
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
                return self.fail(ctx, e);
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
            self.broadcast();
        }
        if self.k == last {
            let block: Block = std::mem::take(&mut self.current).into();
            self.finals.lock().unwrap_or_else(|e| e.into_inner())[self.id] = Some(block);
            self.neighbours.clear();
            ctx.stop();
        }
    }

    fn fail(&mut self, ctx: &mut Context<'_, Self>, error: String) {
        self.errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(error);
        self.neighbours.clear();
        ctx.stop();
    }
}

impl Actor for BlockActor {
    type Msg = BlockMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: BlockMsg) {
        match msg {
            BlockMsg::Result { k, slot, part } => {
                if self.store(k, slot, part) {
                    // Most results complete no step: only the last of a step's calls `advance`.
                    if self.steps[(self.k & 1) as usize].count == self.neighbours.len() {
                        self.advance(ctx);
                    }
                } else {
                    let e = format!(
                        "block {} at step {}: unexpected result of step {k} from slot {slot}",
                        self.id, self.k
                    );
                    self.fail(ctx, e);
                }
            }
            BlockMsg::Neighbors(neighbours) => {
                self.slots = self
                    .layout
                    .neighbours(self.id)
                    .into_iter()
                    .map(|n| self.layout.slot(n, self.id) as u32)
                    .collect();
                self.neighbours = neighbours;
            }
            BlockMsg::Initial => {
                self.started = true;
                self.broadcast();
                self.advance(ctx);
            }
        }
    }
}
