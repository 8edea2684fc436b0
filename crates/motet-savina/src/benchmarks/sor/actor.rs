//! Successive Over-Relaxation as motet actors: the runner and the peer spawn the cell actors from
//! their handlers, during the timed run, as Savina's do.

use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, neighbours, CellState, Config, Grid, Neighbours, Update};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Draws the grid, computes the reference total and builds the runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let program = Program {
        cfg,
        grid: Arc::new(Grid::new(&cfg)),
    };
    motet_support::prepare_validated(program, threads, run, validate)
}

/// The parameters and the grid every iteration shares.
struct Program {
    cfg: Config,
    grid: Arc<Grid>,
}

/// One timed iteration: boots the runner and runs to quiescence; the runner's total.
fn run(program: &Program, rt: &Runtime) -> Option<(f64, usize)> {
    total(&program.cfg, program.grid.clone(), rt)
}

/// Checks the runner's total after the run (untimed).
fn validate(program: &Program, total: Option<(f64, usize)>) -> Outcome {
    check(&program.cfg, program.grid.reference, total)
}

/// Runs the actors to quiescence; the runner's total and the number of cells it covers.
pub(super) fn total(cfg: &Config, grid: Arc<Grid>, rt: &Runtime) -> Option<(f64, usize)> {
    let result = ResultSlot::new();
    let runner = spawn(
        rt.handle(),
        Runner {
            cfg: *cfg,
            grid,
            cells: Vec::new(),
            total: 0.0,
            cells_reported: 0,
            results: 0,
            result: result.clone(),
        },
    );
    let _ = runner.send(OwnerMsg::Boot);
    rt.wait_quiescent();
    result.take()
}

/// The addresses of a half's cells, with the other half's border column, row-major.
type Cells = Arc<[Addr<CellMsg>]>;

/// Messages to the runner and to the peer.
enum OwnerMsg {
    Boot,
    /// To the runner: the peer's border column (its first column), by row.
    Border(Cells),
    /// A final value, or (from the peer) its half's total; `cells` is how many cells it covers.
    Result {
        value: f64,
        cells: usize,
    },
}

enum CellMsg {
    /// Start iterating; `Cells` holds the neighbours' addresses.
    Start(Cells),
    /// A neighbour's value.
    Value(f64),
}

/// Creates the left half and the peer; adds up the results.
struct Runner {
    cfg: Config,
    grid: Arc<Grid>,
    /// The left half, `s × (part + 1)`: column `part` is the peer's border, filled on `Border`.
    cells: Vec<Option<Addr<CellMsg>>>,
    total: f64,
    cells_reported: usize,
    results: usize,
    result: ResultSlot<(f64, usize)>,
}

impl Runner {
    fn boot(&mut self, ctx: &mut Context<'_, Self>) {
        let (s, part) = (self.cfg.s, self.cfg.part());
        let ny = part + 1;
        self.cells = (0..s * ny).map(|_| None).collect();
        let mut border = Vec::with_capacity(s);
        for i in 0..s {
            for j in 0..part {
                let pos = i * ny + j;
                let cell = ctx.spawn(Cell::new(
                    &self.cfg,
                    self.grid.values[i * s + j],
                    (i, j),
                    neighbours(pos, s, ny),
                    ctx.myself(),
                ));
                if j == part - 1 {
                    border.push(cell.clone());
                }
                self.cells[pos] = Some(cell);
            }
        }
        let peer = ctx.spawn(Peer {
            cfg: self.cfg,
            grid: self.grid.clone(),
            runner: ctx.myself(),
            runner_border: border.into(),
            total: 0.0,
            cells_reported: 0,
        });
        let _ = peer.send(OwnerMsg::Boot);
    }

    fn start(&mut self, peer_border: Cells) {
        let (s, ny) = (self.cfg.s, self.cfg.part() + 1);
        for (i, cell) in peer_border.iter().enumerate().take(s) {
            self.cells[(i + 1) * ny - 1] = Some(cell.clone());
        }
        let all: Option<Cells> = self.cells.iter().cloned().collect();
        let Some(all) = all else { return };
        for (pos, cell) in all.iter().enumerate() {
            if pos % ny != ny - 1 {
                let _ = cell.tell(CellMsg::Start(all.clone()));
            }
        }
    }
}

impl Actor for Runner {
    type Msg = OwnerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: OwnerMsg) {
        match msg {
            OwnerMsg::Boot => self.boot(ctx),
            OwnerMsg::Border(peer_border) => self.start(peer_border),
            OwnerMsg::Result { value, cells } => {
                self.total += value;
                self.cells_reported += cells;
                self.results += 1;
                if self.results == self.cfg.s * self.cfg.part() + 1 {
                    self.result.set((self.total, self.cells_reported));
                    self.cells.clear();
                    ctx.stop();
                }
            }
        }
    }
}

/// Creates the right half; sends its total to the runner.
struct Peer {
    cfg: Config,
    grid: Arc<Grid>,
    runner: Addr<OwnerMsg>,
    /// The runner's last column, by row.
    runner_border: Cells,
    total: f64,
    cells_reported: usize,
}

impl Peer {
    fn boot(&mut self, ctx: &mut Context<'_, Self>) {
        let (s, part) = (self.cfg.s, self.cfg.part());
        let ny = s - part + 1;
        let mut cells = Vec::with_capacity(s * ny);
        let mut border = Vec::with_capacity(s);
        for i in 0..s {
            cells.push(self.runner_border[i].clone());
            for j in 1..ny {
                let column = part + j - 1;
                let cell = ctx.spawn(Cell::new(
                    &self.cfg,
                    self.grid.values[i * s + column],
                    (i, column),
                    neighbours(i * ny + j, s, ny),
                    ctx.myself(),
                ));
                if j == 1 {
                    border.push(cell.clone());
                }
                cells.push(cell);
            }
        }
        let _ = self.runner.tell(OwnerMsg::Border(border.into()));
        let cells: Cells = cells.into();
        for (pos, cell) in cells.iter().enumerate() {
            if pos % ny != 0 {
                let _ = cell.tell(CellMsg::Start(cells.clone()));
            }
        }
    }
}

impl Actor for Peer {
    type Msg = OwnerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: OwnerMsg) {
        match msg {
            OwnerMsg::Boot => self.boot(ctx),
            OwnerMsg::Border(_) => {}
            OwnerMsg::Result { value, cells } => {
                self.total += value;
                self.cells_reported += cells;
                if self.cells_reported == self.cfg.s * (self.cfg.s - self.cfg.part()) {
                    let _ = self.runner.tell(OwnerMsg::Result {
                        value: self.total,
                        cells: self.cells_reported,
                    });
                    ctx.stop();
                }
            }
        }
    }
}

/// One grid cell.
struct Cell {
    state: CellState,
    neighbours: Neighbours,
    /// The neighbours' addresses, from `Start`.
    targets: Vec<Addr<CellMsg>>,
    owner: Addr<OwnerMsg>,
    /// Values that came before `Start`.
    pending: Vec<f64>,
    started: bool,
}

impl Cell {
    fn new(
        cfg: &Config,
        value: f64,
        (i, j): (usize, usize),
        neighbours: Neighbours,
        owner: Addr<OwnerMsg>,
    ) -> Cell {
        Cell {
            state: CellState::new(value, i, j, neighbours.len(), cfg.iterations),
            neighbours,
            targets: Vec::new(),
            owner,
            pending: Vec::new(),
            started: false,
        }
    }

    fn send(&self, v: f64) {
        for target in &self.targets {
            let _ = target.tell(CellMsg::Value(v));
        }
    }

    fn receive(&mut self, ctx: &mut Context<'_, Self>, v: f64) {
        match self.state.receive(v) {
            Update::Wait => {}
            Update::Send(v) => self.send(v),
            Update::SendAndFinish(v) => {
                self.send(v);
                let _ = self.owner.tell(OwnerMsg::Result { value: v, cells: 1 });
                self.targets.clear();
                ctx.stop();
            }
        }
    }
}

impl Actor for Cell {
    type Msg = CellMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: CellMsg) {
        match msg {
            CellMsg::Start(cells) => {
                self.targets = self.neighbours.iter().map(|&p| cells[p].clone()).collect();
                self.started = true;
                if let Some(v) = self.state.start() {
                    self.send(v);
                }
                for v in std::mem::take(&mut self.pending) {
                    self.receive(ctx, v);
                }
            }
            CellMsg::Value(v) if !self.started => self.pending.push(v),
            CellMsg::Value(v) => self.receive(ctx, v),
        }
    }
}
