//! Precise Pi on the sequential floor: the actor program's message flow (a Master and the W
//! workers it creates when it starts) on one thread.

use std::sync::Arc;

use num_bigint::BigUint;

use super::terms::Terms;
use super::{bbp_term, check, Config, Expected, Kernel, Sum};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the kernel and the reference π (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let prepared = (cfg, Kernel::savina(cfg.p), Expected::new(cfg.p));
    crate::floor::program(prepared, run)
}

/// The same program with the tuned arithmetic (`shift-division`).
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let prepared = (cfg, Kernel::shift(cfg.p), Expected::new(cfg.p));
    crate::floor::program(prepared, run)
}

/// One timed iteration: runs the program on a fresh system and checks the Master's sum.
fn run((cfg, kernel, expected): &(Config, Arc<Kernel>, Expected)) -> Outcome {
    let mut sys = System::new();
    let master = sys.spawn(Node::Master(Master {
        cfg: *cfg,
        kernel: Arc::clone(kernel),
        workers: Vec::new(),
        terms: Terms::default(),
        stopped_workers: 0,
        result: None,
    }));
    sys.send(master, Msg::Start);
    sys.run();
    let Node::Master(m) = sys.actor_mut(master) else {
        unreachable!("the first actor is the Master")
    };
    check(expected, m.result.take())
}

/// Every message of the program.
enum Msg {
    /// To the Master: hand out the first window of terms.
    Start,
    /// To the Master: term `.0`, computed by worker `.1`.
    Result(BigUint, usize),
    /// To the Master: a worker has stopped.
    Stopped,
    /// To a worker: compute term `k`.
    Work(u32),
    /// To a worker: stop.
    Stop,
}

/// The Master and the workers.
enum Node {
    Master(Master),
    Worker(Worker),
}

/// Hands out terms, adds the results, and stops the workers when every term is back.
struct Master {
    cfg: Config,
    kernel: Arc<Kernel>,
    workers: Vec<ActorId>,
    terms: Terms,
    stopped_workers: usize,
    result: Option<Sum>,
}

/// Computes the terms it is sent.
struct Worker {
    id: usize,
    kernel: Arc<Kernel>,
    master: ActorId,
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Master(m) = self {
            let master = cx.me();
            m.workers = (0..m.cfg.w)
                .map(|id| {
                    cx.spawn(Node::Worker(Worker {
                        id,
                        kernel: Arc::clone(&m.kernel),
                        master,
                    }))
                })
                .collect();
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Master(m) => m.receive(msg, cx),
            Node::Worker(w) => w.receive(msg, cx),
        }
    }
}

impl Master {
    fn generate_work(&mut self, worker: usize, cx: &mut Context<Node>) {
        cx.send(self.workers[worker], Msg::Work(self.terms.hand_out()));
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start => {
                for t in 0..self.cfg.window() {
                    self.generate_work(t as usize % self.cfg.w, cx);
                }
            }
            Msg::Result(term, worker) => {
                if self.terms.receive(term) {
                    self.generate_work(worker, cx);
                }
                if self.terms.all_back() {
                    for &worker in &self.workers {
                        cx.send(worker, Msg::Stop);
                    }
                }
            }
            Msg::Stopped => {
                self.stopped_workers += 1;
                if self.stopped_workers == self.cfg.w {
                    self.result = Some(self.terms.take_sum());
                    cx.exit();
                }
            }
            Msg::Work(_) | Msg::Stop => {
                unreachable!("piprecision: a worker's message to the Master")
            }
        }
    }
}

impl Worker {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Work(k) => {
                let term = bbp_term(&self.kernel, k);
                cx.send(self.master, Msg::Result(term, self.id));
            }
            Msg::Stop => {
                cx.send(self.master, Msg::Stopped);
                cx.exit();
            }
            _ => unreachable!("piprecision: the Master's message to a worker"),
        }
    }
}
