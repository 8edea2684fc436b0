//! N-Queens first K solutions on the sequential floor: the actor program's message flow (a Master
//! that creates W workers and forwards the Work items they split off, round-robin) on one thread,
//! with Savina's board (`floor`) or the vectorised one (`floor-tuned`).

use std::marker::PhantomData;

use super::ledger::Ledger;
use super::{check, expected_work_items, Board, Config, Counts, Kernel, Plain};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Counts the expected Work items (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program((cfg, expected_work_items(&cfg)), run::<Plain>)
}

/// The tuned program (the vectorised board, `window-board`): as [`prepare`].
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program((cfg, expected_work_items(&cfg)), run::<Board>)
}

/// One timed iteration: runs the search on a fresh system and checks the counts.
fn run<K: Kernel>((cfg, expected_items): &(Config, u64)) -> Outcome {
    let mut sys = System::new();
    let master = sys.spawn(Node::<K>::Master(Master {
        cfg: *cfg,
        ledger: Ledger::new(cfg.limit),
        result: None,
    }));
    sys.run();
    let Node::Master(m) = sys.actor(master) else {
        unreachable!("the first actor is the Master")
    };
    check(cfg, *expected_items, m.result)
}

/// Every message of the program.
enum Msg<K> {
    /// To the Master: a valid partial board to forward. To a worker: a board to process.
    Work(K),
    /// To the Master: one solution.
    Result,
    /// To the Master: a worker processed one Work.
    Done,
    /// To the Master: a worker's echo of `Stop`.
    Stopped,
    /// To a worker: stop.
    Stop,
}

/// The Master and the workers.
enum Node<K> {
    Master(Master),
    Worker(Worker<K>),
}

struct Master {
    cfg: Config,
    ledger: Ledger<ActorId>,
    result: Option<Counts>,
}

struct Worker<K> {
    master: ActorId,
    n: usize,
    threshold: usize,
    kernel: PhantomData<K>,
}

impl<K: Kernel> Actor for Node<K> {
    type Msg = Msg<K>;

    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Master(m) = self {
            let master = cx.me();
            for _ in 0..m.cfg.workers {
                let worker = cx.spawn(Node::Worker(Worker {
                    master,
                    n: m.cfg.n,
                    threshold: m.cfg.threshold,
                    kernel: PhantomData,
                }));
                m.ledger.add_worker(worker);
            }
            m.send_work(K::empty(), cx);
        }
    }

    fn receive(&mut self, msg: Msg<K>, cx: &mut Context<Self>) {
        match self {
            Node::Master(m) => m.receive(msg, cx),
            Node::Worker(w) => w.receive(msg, cx),
        }
    }
}

impl Master {
    fn send_work<K: Kernel>(&mut self, board: K, cx: &mut Context<Node<K>>) {
        cx.send(*self.ledger.send(), Msg::Work(board));
    }

    fn stop_workers<K: Kernel>(&mut self, cx: &mut Context<Node<K>>) {
        for &worker in self.ledger.workers() {
            cx.send(worker, Msg::Stop);
        }
    }

    fn receive<K: Kernel>(&mut self, msg: Msg<K>, cx: &mut Context<Node<K>>) {
        match msg {
            Msg::Work(board) => self.send_work(board, cx),
            Msg::Result => {
                if self.ledger.solution() {
                    self.stop_workers(cx);
                }
            }
            Msg::Done => {
                if self.ledger.done() {
                    self.stop_workers(cx);
                }
            }
            Msg::Stopped => {
                if let Some(counts) = self.ledger.stopped() {
                    self.result = Some(counts);
                    cx.exit();
                }
            }
            Msg::Stop => unreachable!("nqueenk: Stop goes to the workers"),
        }
    }
}

impl<K: Kernel> Worker<K> {
    /// Savina's `nqueensKernelPar`, as the actor program's worker runs it.
    fn process(&self, mut board: K, cx: &mut Context<Node<K>>) {
        if board.depth() == self.n {
            cx.send(self.master, Msg::Result);
        } else if board.depth() >= self.threshold {
            board.search(self.n, &mut || cx.send(self.master, Msg::Result));
        } else {
            for c in 0..self.n {
                let next = board.with(c);
                if next.valid() {
                    cx.send(self.master, Msg::Work(next));
                }
            }
        }
    }

    fn receive(&mut self, msg: Msg<K>, cx: &mut Context<Node<K>>) {
        match msg {
            Msg::Work(board) => {
                self.process(board, cx);
                cx.send(self.master, Msg::Done);
            }
            Msg::Stop => {
                cx.send(self.master, Msg::Stopped);
                cx.exit();
            }
            _ => unreachable!("nqueenk: the workers' messages go to the Master"),
        }
    }
}
