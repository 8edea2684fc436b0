//! A-star search on the sequential floor: the actor program's message flow (Savina's: the
//! Master forwards Work items round-robin, the workers search the shared graph and send back what
//! is left of their queue, one Work item per node) on the floor's actor system.

use std::rc::Rc;
use std::sync::Arc;

pub(super) use super::floor_tuned::prepare as prepare_tuned;
use super::graph::Graph;
use super::nodes::{search, Nodes, Sent};
use super::{check_search, Config, Searched};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the graph (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let graph = Rc::new(Graph::new(cfg.grid));
    let nodes = Arc::new(Nodes::new(&graph));
    crate::floor::program_validated((cfg, graph, nodes), run, validate)
}

/// What every iteration reads, made once, untimed.
type Program = (Config, Rc<Graph>, Arc<Nodes>);

/// One timed iteration: runs the program on a fresh system; how many workers echoed `Stop`.
fn run((cfg, graph, nodes): &Program) -> Option<usize> {
    let mut sys = System::new();
    let master = sys.spawn(Node::Master(Master {
        workers_wanted: cfg.workers,
        threshold: cfg.threshold,
        graph: graph.clone(),
        nodes: nodes.clone(),
        workers: Vec::new(),
        sent: 0,
        completed: 0,
        stopping: false,
        stopped: 0,
    }));
    sys.run();
    let Node::Master(m) = sys.actor(master) else {
        unreachable!("actor 0 is the Master")
    };
    (m.stopped == m.workers.len()).then_some(m.stopped)
}

/// Checks the path (untimed) and clears the search state for the next iteration.
fn validate((cfg, graph, nodes): &Program, stopped: Option<usize>) -> Outcome {
    let outcome = check_search(
        graph,
        &Searched {
            nodes,
            stopped,
            workers: cfg.workers,
        },
    );
    nodes.clear();
    outcome
}

enum Msg {
    /// To a worker: a node to search from; to the Master: one to forward.
    Work(u32),
    /// To the Master: a worker has finished a Work item.
    Received,
    /// To the Master: a worker has given the target its parent.
    Done,
    /// To a worker: stop; to the Master: a worker's echo.
    Stop,
}

enum Node {
    Master(Master),
    Worker(Worker),
}

struct Master {
    workers_wanted: usize,
    threshold: usize,
    graph: Rc<Graph>,
    nodes: Arc<Nodes>,
    workers: Vec<ActorId>,
    sent: u64,
    completed: u64,
    stopping: bool,
    stopped: usize,
}

struct Worker {
    master: ActorId,
    threshold: usize,
    graph: Rc<Graph>,
    nodes: Arc<Nodes>,
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Master(m) = self {
            m.start(cx);
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
    fn start(&mut self, cx: &mut Context<Node>) {
        let me = cx.me();
        for _ in 0..self.workers_wanted {
            let worker = cx.spawn(Node::Worker(Worker {
                master: me,
                threshold: self.threshold,
                graph: self.graph.clone(),
                nodes: self.nodes.clone(),
            }));
            self.workers.push(worker);
        }
        self.send_work(self.graph.origin(), cx);
    }

    /// Savina's `sendWork`: item `sent` to worker `sent mod W`.
    fn send_work(&mut self, node: u32, cx: &mut Context<Node>) {
        let to = self.workers[(self.sent % self.workers.len() as u64) as usize];
        self.sent += 1;
        cx.send(to, Msg::Work(node));
    }

    /// Sends every worker `Stop`, once; later Work items are not forwarded.
    fn stop_workers(&mut self, cx: &mut Context<Node>) {
        if !std::mem::replace(&mut self.stopping, true) {
            for &worker in &self.workers {
                cx.send(worker, Msg::Stop);
            }
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Work(node) => {
                if !self.stopping {
                    self.send_work(node, cx);
                }
            }
            Msg::Received => {
                self.completed += 1;
                if self.completed == self.sent {
                    self.stop_workers(cx);
                }
            }
            Msg::Done => self.stop_workers(cx),
            Msg::Stop => {
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    cx.exit();
                }
            }
        }
    }
}

impl Worker {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        let master = self.master;
        match msg {
            Msg::Work(start) => {
                search(&self.graph, &self.nodes, start, self.threshold, |sent| {
                    let msg = match sent {
                        Sent::Done => Msg::Done,
                        Sent::Work(node) => Msg::Work(node),
                    };
                    cx.send(master, msg);
                });
                cx.send(master, Msg::Received);
            }
            Msg::Stop => {
                cx.send(master, Msg::Stop);
                cx.exit();
            }
            Msg::Received | Msg::Done => {}
        }
    }
}
