//! All-Pairs Shortest Path as reactors, after LF's port.
//!
//! One reactor per `b × b` block of the distance matrix, a bank of `(n/b)²`. Each block has one
//! output and two multiports: `from_row` (channel c: the block in column c of its block row) and
//! `from_col` (channel r: the block in row r of its block column). Every block output is broadcast
//! to its block row and its block column, itself included (LF's `(blocks.toNeighbors)+ ->
//! blocks.fromRow` and the column connections). At each tag every block sends its current block
//! (its logical action `notify`, which breaks the cycle through its own output); the `step`
//! reaction then does Floyd–Warshall step k with column k from `from_row` and row k from
//! `from_col`, and schedules the new block for the next tag. After n steps the block keeps its
//! final distances. A run is n + 1 tags of `(n/b)²` parallel steps.

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{InputMultiport, Output, Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::blocks::relax;
use super::{check, Block, Config, Dist, Graph};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters and the graph are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, Arc::new(Graph::new(&cfg))), threads, model, build)
}

/// A block's state.
struct BlockState {
    /// The block's distances after the steps done so far.
    current: Block,
    /// Steps done.
    k: usize,
    /// Column k of the block row, copied out for the step.
    column: Vec<Dist>,
    /// The block of the step before, which the next step writes into once no port holds it any
    /// more (the current block is still on this tag's ports when the step runs).
    spare: Option<Block>,
}

/// What reads the result of a built program: the blocks.
pub(super) struct Apsp {
    cfg: Config,
    graph: Arc<Graph>,
    blocks: Vec<ReactorId<BlockState>>,
}

/// A block's handles: the reactor, its output and its two multiports.
type Handles = (
    ReactorId<BlockState>,
    Output<Block>,
    InputMultiport<Block>,
    InputMultiport<Block>,
);

/// Builds the program for the `(n/b)²` blocks.
fn build(&(cfg, ref graph): &(Config, Arc<Graph>)) -> (Program, Apsp) {
    let layout = cfg.layout();
    let (n, per_dim) = (cfg.n, cfg.n / cfg.b);
    let mut b = ProgramBuilder::new();
    let blocks: Vec<Handles> = b.bank(layout.blocks(), |b, id| {
        let r = b.reactor(
            &format!("block[{id}]"),
            BlockState {
                current: layout.cut(&graph.weights, id).into(),
                k: 0,
                column: Vec::new(),
                spare: None,
            },
        );
        let out = b.output::<Block, _>(r, "to_neighbors");
        let from_row = b.input_multiport::<Block, _>(r, "from_row", per_dim);
        let from_col = b.input_multiport::<Block, _>(r, "from_col", per_dim);
        let notify = b.logical_action::<Block, _>(r, "notify", Duration::ZERO);
        b.reaction(r, "start").trigger(Startup).effect(notify).body(
            move |s: &mut BlockState, ctx| {
                ctx.schedule(notify, Arc::clone(&s.current), Duration::ZERO);
            },
        );
        b.reaction(r, "notify")
            .trigger(notify)
            .effect(out)
            .body(move |_, ctx| {
                if let Some(block) = ctx.get(notify) {
                    ctx.set(out, Arc::clone(block));
                }
            });
        b.reaction(r, "step")
            .trigger(from_row)
            .trigger(from_col)
            .effect(notify)
            .body(move |s: &mut BlockState, ctx| {
                if s.k == n {
                    return;
                }
                let kb = s.k / layout.b();
                let (Some(row_source), Some(column_source)) =
                    (ctx.get(from_row.channel(kb)), ctx.get(from_col.channel(kb)))
                else {
                    return;
                };
                layout.column_into(row_source, s.k, &mut s.column);
                let fresh = || -> Block { vec![0; s.current.len()].into() };
                let mut next = s.spare.take().unwrap_or_else(fresh);
                if Arc::get_mut(&mut next).is_none() {
                    next = fresh();
                }
                let out = Arc::get_mut(&mut next).expect("the spare block is not shared");
                relax(&s.current, out, &s.column, layout.row(column_source, s.k));
                s.spare = Some(std::mem::replace(&mut s.current, next));
                s.k += 1;
                if s.k < n {
                    ctx.schedule(notify, Arc::clone(&s.current), Duration::ZERO);
                }
            });
        (r, out, from_row, from_col)
    });
    for i in 0..per_dim {
        let row: Vec<&Handles> = (0..per_dim).map(|j| &blocks[layout.id(i, j)]).collect();
        b.connect_broadcast(
            row.iter().map(|x| x.1).collect::<Ports<Block>>(),
            row.iter().map(|x| x.2).collect::<Ports<Block>>(),
        );
        let column: Vec<&Handles> = (0..per_dim).map(|r| &blocks[layout.id(r, i)]).collect();
        b.connect_broadcast(
            column.iter().map(|x| x.1).collect::<Ports<Block>>(),
            column.iter().map(|x| x.3).collect::<Ports<Block>>(),
        );
    }
    (
        b.build().expect("the apsp program is well formed"),
        Apsp {
            cfg,
            graph: Arc::clone(graph),
            blocks: blocks.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for Apsp {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let n = self.cfg.n;
        let finals: Vec<Option<Block>> = self
            .blocks
            .iter()
            .map(|&r| {
                let s = program.state_mut(r);
                (s.k == n).then(|| Arc::clone(&s.current))
            })
            .collect();
        check(&self.cfg, &self.graph, &finals)
    }
}
