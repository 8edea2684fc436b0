//! A-star search on the sequential floor: the Master and the workers with the same message flow
//! on the floor's actor system (a few hundred nanoseconds of busy-wait per node against a message
//! per Work item and per answer).

use std::rc::Rc;

use super::graph::Graph;
use super::search::{expand, Ledger, Next, Proposal, Work};
use super::{check, Config, Found};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;
use crate::random::JavaRandom;

/// Builds the graph (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        AstarFloor {
            cfg,
            graph: Rc::new(Graph::new(cfg.grid)),
        },
        AstarFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct AstarFloor {
    cfg: Config,
    graph: Rc<Graph>,
}

impl AstarFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let mut sys = System::new();
        let master = sys.spawn(Node::Master(Box::new(Master {
            workers_wanted: self.cfg.workers,
            graph: self.graph.clone(),
            ledger: Some(Ledger::new(
                &self.graph,
                self.cfg.threshold,
                self.cfg.workers,
            )),
            workers: Vec::new(),
            stopping: false,
            stopped: 0,
            expanded: 0,
            found: None,
        })));
        sys.run();
        let Node::Master(m) = sys.actor(master) else {
            unreachable!("actor 0 is the Master")
        };
        check(&self.graph, m.found.as_ref())
    }
}

enum Msg {
    /// To a worker.
    Work(Work),
    /// To a worker: stop; to the Master: a worker stopped after expanding `expanded` nodes.
    Stop { expanded: u64 },
    /// To the Master: a worker's proposals for Work item `seq`.
    Answer { seq: u64, proposals: Vec<Proposal> },
}

enum Node {
    Master(Box<Master>),
    Worker(Worker),
}

struct Master {
    workers_wanted: usize,
    graph: Rc<Graph>,
    ledger: Option<Ledger>,
    workers: Vec<ActorId>,
    stopping: bool,
    stopped: usize,
    expanded: u64,
    found: Option<Found>,
}

struct Worker {
    master: ActorId,
    graph: Rc<Graph>,
    random: JavaRandom,
    expanded: u64,
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
        for i in 0..self.workers_wanted {
            let worker = cx.spawn(Node::Worker(Worker {
                master: me,
                graph: self.graph.clone(),
                random: JavaRandom::new(i as i64),
                expanded: 0,
            }));
            self.workers.push(worker);
        }
        if let Some(ledger) = &mut self.ledger {
            let first = ledger.start(&self.graph);
            self.send(first, cx);
        }
    }

    fn send(&self, items: Vec<Work>, cx: &mut Context<Node>) {
        for work in items {
            let to = self.workers[(work.seq % self.workers.len() as u64) as usize];
            cx.send(to, Msg::Work(work));
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Answer { seq, proposals } => {
                let Some(ledger) = &mut self.ledger else {
                    return;
                };
                let Next { send, stop } = ledger.answer(&self.graph, seq, proposals);
                self.send(send, cx);
                if stop && !self.stopping {
                    self.stopping = true;
                    for &w in &self.workers {
                        cx.send(w, Msg::Stop { expanded: 0 });
                    }
                }
            }
            Msg::Stop { expanded } => {
                self.expanded += expanded;
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    if let Some(ledger) = self.ledger.take() {
                        self.found = Some(Found {
                            nodes_sent: ledger.nodes_sent(),
                            tree: ledger.into_tree(),
                            nodes_expanded: self.expanded,
                        });
                    }
                    cx.exit();
                }
            }
            Msg::Work(_) => unreachable!("astar: Work sent to the Master"),
        }
    }
}

impl Worker {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Work(work) => {
                let proposals = expand(&self.graph, &work.nodes, &mut self.random);
                self.expanded += work.nodes.len() as u64;
                cx.send(
                    self.master,
                    Msg::Answer {
                        seq: work.seq,
                        proposals,
                    },
                );
            }
            Msg::Stop { .. } => {
                cx.send(
                    self.master,
                    Msg::Stop {
                        expanded: self.expanded,
                    },
                );
                cx.exit();
            }
            Msg::Answer { .. } => unreachable!("astar: an answer sent to a worker"),
        }
    }
}
