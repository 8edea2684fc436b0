//! Successive Over-Relaxation on the sequential floor: the runner, the peer and the cells with the
//! same message flow on the floor's actor system (one multiply-add per value message: the program
//! is bound by its messages, so the floor keeps them). Cells are spawned from the runner's and
//! the peer's handlers, as in the actor program.

use std::rc::Rc;

use super::{check, neighbours, CellState, Config, Grid, Update};
use crate::bench::Prepared;
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Draws the grid and computes the reference total (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program_validated(
        SorFloor {
            cfg,
            grid: Rc::new(Grid::new(&cfg)),
        },
        SorFloor::run,
        |floor: &SorFloor, total| check(&floor.cfg, floor.grid.reference, total),
    )
}

/// What every iteration reads, made once, untimed.
struct SorFloor {
    cfg: Config,
    grid: Rc<Grid>,
}

impl SorFloor {
    /// One timed iteration: runs the program on a fresh system; the runner's total and the number
    /// of cells it covers, checked after the run (untimed).
    fn run(&self) -> Option<(f64, usize)> {
        let mut sys = System::new();
        let runner = sys.spawn(Node::Runner(Runner {
            cfg: self.cfg,
            grid: self.grid.clone(),
            cells: Vec::new(),
            total: 0.0,
            cells_reported: 0,
            results: 0,
            done: false,
        }));
        sys.send(runner, Msg::Boot);
        sys.run();
        let Node::Runner(r) = sys.actor(runner) else {
            unreachable!("actor 0 is the runner")
        };
        r.done.then_some((r.total, r.cells_reported))
    }
}

/// The addresses of a half's cells, with the other half's border column, row-major.
type Cells = Rc<[ActorId]>;

/// The messages of SOR.
enum Msg {
    /// To the runner and the peer: create your half.
    Boot,
    /// To the runner: the peer's border column.
    Border(Cells),
    /// To the runner and the peer: a final value or the peer's total, covering `cells` cells.
    Result { value: f64, cells: usize },
    /// To a cell: start iterating.
    Start(Cells),
    /// To a cell: a neighbour's value.
    Value(f64),
}

enum Node {
    Runner(Runner),
    Peer(Peer),
    Cell(Cell),
}

struct Runner {
    cfg: Config,
    grid: Rc<Grid>,
    cells: Vec<Option<ActorId>>,
    total: f64,
    cells_reported: usize,
    results: usize,
    done: bool,
}

struct Peer {
    cfg: Config,
    grid: Rc<Grid>,
    runner: ActorId,
    runner_border: Cells,
    total: f64,
    cells_reported: usize,
}

struct Cell {
    state: CellState,
    neighbours: super::Neighbours,
    targets: Vec<ActorId>,
    owner: ActorId,
    pending: Vec<f64>,
    started: bool,
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Runner(r) => r.receive(msg, cx),
            Node::Peer(p) => p.receive(msg, cx),
            Node::Cell(c) => c.receive_msg(msg, cx),
        }
    }
}

/// A new cell actor of `owner`'s half.
fn cell(
    cfg: &Config,
    value: f64,
    (i, j): (usize, usize),
    pos: usize,
    ny: usize,
    owner: ActorId,
) -> Node {
    let neighbours = neighbours(pos, cfg.s, ny);
    Node::Cell(Cell {
        state: CellState::new(value, i, j, neighbours.len(), cfg.iterations),
        neighbours,
        targets: Vec::new(),
        owner,
        pending: Vec::new(),
        started: false,
    })
}

impl Runner {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        let (s, part) = (self.cfg.s, self.cfg.part());
        let ny = part + 1;
        match msg {
            Msg::Boot => {
                self.cells = vec![None; s * ny];
                let me = cx.me();
                let mut border = Vec::with_capacity(s);
                for i in 0..s {
                    for j in 0..part {
                        let pos = i * ny + j;
                        let value = self.grid.values[i * s + j];
                        let id = cx.spawn(cell(&self.cfg, value, (i, j), pos, ny, me));
                        if j == part - 1 {
                            border.push(id);
                        }
                        self.cells[pos] = Some(id);
                    }
                }
                let peer = cx.spawn(Node::Peer(Peer {
                    cfg: self.cfg,
                    grid: self.grid.clone(),
                    runner: me,
                    runner_border: border.into(),
                    total: 0.0,
                    cells_reported: 0,
                }));
                cx.send(peer, Msg::Boot);
            }
            Msg::Border(peer_border) => {
                for (i, &id) in peer_border.iter().enumerate().take(s) {
                    self.cells[(i + 1) * ny - 1] = Some(id);
                }
                let Some(all) = self.cells.iter().copied().collect::<Option<Cells>>() else {
                    return;
                };
                for (pos, &id) in all.iter().enumerate() {
                    if pos % ny != ny - 1 {
                        cx.send(id, Msg::Start(all.clone()));
                    }
                }
            }
            Msg::Result { value, cells } => {
                self.total += value;
                self.cells_reported += cells;
                self.results += 1;
                if self.results == s * part + 1 {
                    self.done = true;
                    cx.exit();
                }
            }
            Msg::Start(_) | Msg::Value(_) => unreachable!("sor: cell message sent to the runner"),
        }
    }
}

impl Peer {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        let (s, part) = (self.cfg.s, self.cfg.part());
        let ny = s - part + 1;
        match msg {
            Msg::Boot => {
                let me = cx.me();
                let mut cells = Vec::with_capacity(s * ny);
                let mut border = Vec::with_capacity(s);
                for i in 0..s {
                    cells.push(self.runner_border[i]);
                    for j in 1..ny {
                        let column = part + j - 1;
                        let value = self.grid.values[i * s + column];
                        let id = cx.spawn(cell(&self.cfg, value, (i, column), i * ny + j, ny, me));
                        if j == 1 {
                            border.push(id);
                        }
                        cells.push(id);
                    }
                }
                cx.send(self.runner, Msg::Border(border.into()));
                let cells: Cells = cells.into();
                for (pos, &id) in cells.iter().enumerate() {
                    if pos % ny != 0 {
                        cx.send(id, Msg::Start(cells.clone()));
                    }
                }
            }
            Msg::Result { value, cells } => {
                self.total += value;
                self.cells_reported += cells;
                if self.cells_reported == s * (s - part) {
                    cx.send(
                        self.runner,
                        Msg::Result {
                            value: self.total,
                            cells: self.cells_reported,
                        },
                    );
                    cx.exit();
                }
            }
            Msg::Border(_) | Msg::Start(_) | Msg::Value(_) => {
                unreachable!("sor: unexpected message to the peer")
            }
        }
    }
}

impl Cell {
    fn send(&self, v: f64, cx: &mut Context<Node>) {
        for &target in &self.targets {
            cx.send(target, Msg::Value(v));
        }
    }

    fn value(&mut self, v: f64, cx: &mut Context<Node>) {
        match self.state.receive(v) {
            Update::Wait => {}
            Update::Send(v) => self.send(v, cx),
            Update::SendAndFinish(v) => {
                self.send(v, cx);
                cx.send(self.owner, Msg::Result { value: v, cells: 1 });
                cx.exit();
            }
        }
    }

    fn receive_msg(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start(cells) => {
                self.targets = self.neighbours.iter().map(|&p| cells[p]).collect();
                self.started = true;
                if let Some(v) = self.state.start() {
                    self.send(v, cx);
                }
                for v in std::mem::take(&mut self.pending) {
                    self.value(v, cx);
                }
            }
            Msg::Value(v) if !self.started => self.pending.push(v),
            Msg::Value(v) => self.value(v, cx),
            Msg::Boot | Msg::Border(_) | Msg::Result { .. } => {
                unreachable!("sor: owner message sent to a cell")
            }
        }
    }
}
