//! Recursive Matrix Multiplication on the sequential floor: the actor program's message flow (a
//! Master that creates W workers and routes every Work to worker `(srC + scC) mod W`, workers that
//! split or multiply a leaf with SPEC.md's i-j-k loop into the shared C and answer `Done`, `Stop`
//! and its echoes) on one thread. C is checked after the run, untimed.

use std::sync::Arc;

use super::{check, Config, Inputs, Leaf, SharedC, Work};
use crate::bench::Prepared;
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the matrices (untimed); `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let matrices = Matrices {
        cfg,
        inputs: Arc::new(Inputs::new(cfg.n)),
        c: Arc::new(SharedC::new(&cfg)),
    };
    crate::floor::program_validated(matrices, run, |m: &Matrices, finished: bool| {
        if finished {
            check(&m.cfg, Some(&m.c))
        } else {
            check(&m.cfg, None)
        }
    })
}

/// The parameters and the matrices every iteration shares.
struct Matrices {
    cfg: Config,
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
}

/// One timed iteration: zeroes C and runs the program; whether the Master finished.
fn run(m: &Matrices) -> bool {
    m.c.clear();
    let mut sys = System::new();
    let master = sys.spawn(Node::Master(Master {
        cfg: m.cfg,
        inputs: Arc::clone(&m.inputs),
        c: Arc::clone(&m.c),
        workers: Vec::new(),
        sent: 0,
        done: 0,
        stopped: 0,
        finished: false,
    }));
    sys.run();
    let Node::Master(m) = sys.actor(master) else {
        unreachable!("the first actor is the Master")
    };
    m.finished
}

/// Every message of the program.
enum Msg {
    /// To the Master: a product to route; to a worker: a product to split or multiply.
    Work(Work),
    /// To the Master: a worker processed one Work.
    Done,
    /// To a worker: stop.
    Stop,
    /// To the Master: a worker's echo of `Stop`.
    Stopped,
}

/// The Master and the workers.
enum Node {
    Master(Master),
    Worker(Worker),
}

struct Master {
    cfg: Config,
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
    workers: Vec<ActorId>,
    sent: u64,
    done: u64,
    stopped: usize,
    /// Set when every worker has echoed `Stop`.
    finished: bool,
}

struct Worker {
    master: ActorId,
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
    threshold: usize,
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Master(m) = self {
            let master = cx.me();
            m.workers = (0..m.cfg.workers)
                .map(|_| {
                    cx.spawn(Node::Worker(Worker {
                        master,
                        inputs: Arc::clone(&m.inputs),
                        c: Arc::clone(&m.c),
                        threshold: m.cfg.threshold,
                    }))
                })
                .collect();
            m.send_work(m.cfg.root_work(), cx);
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
    fn send_work(&mut self, work: Work, cx: &mut Context<Node>) {
        cx.send(self.workers[self.cfg.worker_of(&work)], Msg::Work(work));
        self.sent += 1;
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Work(work) => self.send_work(work, cx),
            Msg::Done => {
                self.done += 1;
                if self.done == self.sent {
                    for &worker in &self.workers {
                        cx.send(worker, Msg::Stop);
                    }
                }
            }
            Msg::Stopped => {
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    self.finished = true;
                    cx.exit();
                }
            }
            Msg::Stop => unreachable!("recmatmul: a worker's message to the Master"),
        }
    }
}

impl Worker {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Work(work) => {
                if work.num_blocks > self.threshold {
                    for part in work.split() {
                        cx.send(self.master, Msg::Work(part));
                    }
                } else {
                    let mut block = self.c.block_for(&work);
                    self.inputs.multiply_leaf(Leaf::Plain, &work, &mut block);
                }
                cx.send(self.master, Msg::Done);
            }
            Msg::Stop => {
                cx.send(self.master, Msg::Stopped);
                cx.exit();
            }
            Msg::Done | Msg::Stopped => unreachable!("recmatmul: the Master's message to a worker"),
        }
    }
}
