//! All-Pairs Shortest Path as motet actors: one actor per block of the distance matrix.
//!
//! # Steps
//! A block that has done step `k` (`k = −1` before the first) waits for the step-`k` results of
//! its neighbours. A neighbour can be at most one step ahead, since its step `k + 2` needs this
//! block's result `k + 1`; so results are kept apart by the parity of their step ([`Steps`]) and
//! never overwrite one another. After a step, the next step's results may all be here already
//! (every neighbour got ahead), so the block steps again at once.
//!
//! Blocks are shared, not copied. A step reads one column and one row, from one block of its
//! block row and one of its block column; so every neighbour gets the result message, and the
//! result carries an `Arc` of the new block to the neighbours whose next step reads it (those of
//! the block row or column holding row and column `k + 1`, none at most steps): the others only
//! count it (Savina's blocks store every neighbour's block but read only those two), and sharing
//! the block with them would cost two atomic updates of its count per message. A block copies the column
//! and the row it reads out of those results as they come (`b` distances each) and drops them.
//! So a block's last result is unshared as soon as the neighbours that read it have taken it, and
//! the next step updates it in place, as the floor does (row and column `k` do not change in step
//! `k`). Where a neighbour has not taken it yet, the step writes into the block of two steps ago
//! instead (double buffering), or a fresh one if that too is still held.

use std::sync::{Arc, Mutex};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::blocks::{relax, relax_in_place};
use super::{check, Block, Config, Dist, Graph, Layout};
use crate::bench::{Iteration, Outcome};
use crate::motet_support;
use crate::params::Params;

/// Builds the graph, its reference distances and the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
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
            let initial: Block = layout.cut(&program.graph.weights, id).into();
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
    /// The block at (block row, block column) `from`, after its step `k`; the block itself only
    /// to a neighbour whose step `k + 1` reads it.
    Result {
        k: i64,
        from: (u32, u32),
        data: Option<Block>,
    },
}

/// The neighbours' results of one step: which neighbours have sent theirs, and the row and the
/// column the next step reads. The step needs one column and one row, held by one block of this
/// block's row and one of its column: they are copied out of those two results as they come, so
/// that no result is kept (and the sender may update its block in place once every neighbour has
/// taken it); the other results are only counted.
struct Step {
    /// The block row and block column holding row and column `k + 1`: `(k + 1) / b`.
    source: usize,
    seen: Vec<bool>,
    count: usize,
    /// Column `k + 1` for this block's rows (`D[i][k + 1]`), copied from the block holding it if
    /// that is a neighbour.
    column: Vec<Dist>,
    /// Row `k + 1` for this block's columns (`D[k + 1][j]`), copied from the block holding it if
    /// that is a neighbour.
    row: Vec<Dist>,
}

impl Step {
    fn new(neighbours: usize, source: usize, b: usize) -> Step {
        Step {
            source,
            seen: vec![false; neighbours],
            count: 0,
            column: Vec::with_capacity(b),
            row: Vec::with_capacity(b),
        }
    }

    /// Empties the step for the results it collects next, which feed the step reading block row
    /// and column `source`.
    fn clear(&mut self, source: usize) {
        self.source = source;
        self.seen.iter_mut().for_each(|s| *s = false);
        self.count = 0;
    }
}

/// The results of two consecutive steps, kept apart by the step's parity.
struct Steps([Step; 2]);

impl Steps {
    /// Results of step −1 (odd, feeding step 0) and of step 0 (even, feeding step 1).
    fn new(neighbours: usize, b: usize) -> Steps {
        Steps([Step::new(neighbours, 1 / b, b), Step::new(neighbours, 0, b)])
    }

    fn of(&mut self, k: i64) -> &mut Step {
        &mut self.0[(k & 1) as usize]
    }
}

struct BlockActor {
    id: usize,
    /// (block row, block column).
    at: (usize, usize),
    layout: Layout,
    neighbours: Vec<Addr<BlockMsg>>,
    /// The last step done (−1: none yet).
    k: i64,
    /// Whether `Initial` has come (the block has broadcast its step −1).
    started: bool,
    current: Block,
    /// The block of two steps ago, reused when no neighbour holds it any more.
    spare: Option<Block>,
    steps: Steps,
    finals: Finals,
    errors: Arc<Mutex<Vec<String>>>,
}

impl BlockActor {
    fn new(
        id: usize,
        layout: Layout,
        initial: Block,
        finals: Finals,
        errors: Arc<Mutex<Vec<String>>>,
    ) -> BlockActor {
        BlockActor {
            id,
            at: layout.coords(id),
            layout,
            neighbours: Vec::new(),
            k: -1,
            started: false,
            current: initial,
            spare: None,
            steps: Steps::new(0, layout.b()),
            finals,
            errors,
        }
    }

    /// Sends the result of step `k` to every neighbour, with the current block to those whose
    /// step `k + 1` reads it: the neighbours of this block's column if this block row holds row
    /// `k + 1`, those of its row if this block column holds column `k + 1`.
    fn broadcast(&self) {
        let source = (self.k + 1) as usize / self.layout.b();
        let (bi, bj) = self.at;
        // [`Layout::neighbours`] order: the other blocks of this block column, then of this row.
        let column_neighbours = self.neighbours.len() / 2;
        for (slot, neighbour) in self.neighbours.iter().enumerate() {
            let reads = if slot < column_neighbours {
                bi == source
            } else {
                bj == source
            };
            let _ = neighbour.tell(BlockMsg::Result {
                k: self.k,
                from: (bi as u32, bj as u32),
                data: reads.then(|| self.current.clone()),
            });
        }
    }

    /// Stores the result of step `k` (this step or the next) of the block at `from`; false if
    /// that block is not a neighbour, already sent it, or did not send a block the next step
    /// reads. (No divisions: this runs per message.)
    fn store(&mut self, k: i64, from: (u32, u32), data: Option<Block>) -> bool {
        let (fi, fj) = (from.0 as usize, from.1 as usize);
        let (bi, bj) = self.at;
        let skip = |x: usize, own: usize| if x < own { x } else { x - 1 };
        let per_dim = self.neighbours.len() / 2 + 1;
        let slot = match (fi == bi, fj == bj) {
            (false, true) if fi < per_dim => skip(fi, bi),
            (true, false) if fj < per_dim => per_dim - 1 + skip(fj, bj),
            _ => return false,
        };
        let step = self.steps.of(k);
        if std::mem::replace(&mut step.seen[slot], true) {
            return false;
        }
        step.count += 1;
        let source = step.source;
        if fj == source && fi == bi {
            let Some(data) = &data else { return false };
            self.layout
                .column_into(data, (k + 1) as usize, &mut step.column);
        }
        if fi == source && fj == bj {
            let Some(data) = &data else { return false };
            step.row.clear();
            step.row
                .extend_from_slice(self.layout.row(data, (k + 1) as usize));
        }
        true
    }

    /// Steps while every neighbour's result for the last step is here; stops after step `n − 1`.
    fn advance(&mut self, ctx: &mut Context<'_, Self>) {
        let last = self.layout.n() as i64 - 1;
        let neighbours = self.neighbours.len();
        while self.started && self.k < last && self.steps.of(self.k).count == neighbours {
            let k = (self.k + 1) as usize;
            let (bi, bj) = self.at;
            let step = &mut self.steps.0[(self.k & 1) as usize];
            debug_assert_eq!(step.source, k / self.layout.b());
            // Row and column k held by this block itself are copied out here (they do not change
            // in step k, as D[k][k] = 0, so the block can then be updated in place).
            if step.source == bj {
                self.layout.column_into(&self.current, k, &mut step.column);
            }
            if step.source == bi {
                step.row.clear();
                step.row
                    .extend_from_slice(self.layout.row(&self.current, k));
            }
            if let Some(block) = Arc::get_mut(&mut self.current) {
                // Every neighbour has taken the last result and dropped it: update it in place,
                // as the floor does.
                relax_in_place(block, &step.column, &step.row);
            } else {
                // A neighbour has not taken the last result yet: write the step into the block
                // of two steps ago.
                let fresh = || -> Block { vec![0; self.current.len()].into() };
                let mut next = self.spare.take().unwrap_or_else(fresh);
                if Arc::get_mut(&mut next).is_none() {
                    next = fresh();
                }
                let out = Arc::get_mut(&mut next).expect("a fresh block is not shared");
                relax(&self.current, out, &step.column, &step.row);
                self.spare = Some(std::mem::replace(&mut self.current, next));
            }
            // These slots next collect the results of step k + 1, which feed step k + 2.
            step.clear((k + 2) / self.layout.b());
            self.k += 1;
            self.broadcast();
        }
        if self.k == last {
            self.finals.lock().unwrap_or_else(|e| e.into_inner())[self.id] =
                Some(self.current.clone());
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
            BlockMsg::Neighbors(neighbours) => {
                self.steps = Steps::new(neighbours.len(), self.layout.b());
                self.neighbours = neighbours;
            }
            BlockMsg::Initial => {
                self.started = true;
                self.broadcast();
                self.advance(ctx);
            }
            BlockMsg::Result { k, from, data } => {
                if (k == self.k || k == self.k + 1) && self.store(k, from, data) {
                    // Most results complete no step: only the last of a step's calls `advance`.
                    if self.steps.of(self.k).count == self.neighbours.len() {
                        self.advance(ctx);
                    }
                } else {
                    let e = format!(
                        "block {} at step {}: unexpected result of step {k} from block {from:?}",
                        self.id, self.k
                    );
                    self.fail(ctx, e);
                }
            }
        }
    }
}
