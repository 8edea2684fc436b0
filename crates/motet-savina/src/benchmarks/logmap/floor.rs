//! Logistic Map Series on the sequential floor.

use std::collections::VecDeque;

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, next_term, Config, SendOrder};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let master = sys.spawn(Node::Master(Master {
        terms: cfg.terms,
        order: cfg.order,
        workers: Vec::new(),
        computers: Vec::new(),
        received: 0,
        sum: 0.0,
    }));
    let computers: Vec<ActorId> = (0..cfg.series)
        .map(|i| sys.spawn(Node::Computer(cfg.rate_of(i))))
        .collect();
    let workers: Vec<ActorId> = computers
        .iter()
        .enumerate()
        .map(|(i, &computer)| {
            sys.spawn(Node::Worker(Worker {
                term: Config::start_of(i),
                master,
                computer,
                in_reply_mode: false,
                stash: VecDeque::new(),
            }))
        })
        .collect();
    sys.send(master, Msg::Start { workers, computers });
    sys.run();
    let Node::Master(m) = sys.actor(master) else {
        unreachable!("actor 0 is the master")
    };
    check(cfg, (m.received == cfg.series).then_some(m.sum))
}

/// The messages of Logistic Map Series.
enum Msg {
    /// To the Master: the workers and computers, by series.
    Start {
        workers: Vec<ActorId>,
        computers: Vec<ActorId>,
    },
    /// To a worker: compute the next term.
    NextTerm,
    /// To a worker: answer the current term.
    GetTerm,
    /// To a worker from its computer, and to the Master from a worker.
    Result(f64),
    /// To a computer: the next term after `term`, answered to `reply_to`.
    Compute {
        term: f64,
        reply_to: ActorId,
    },
    Stop,
}

/// The Master, the workers and the computers (holding their rate).
enum Node {
    Master(Master),
    Worker(Worker),
    Computer(f64),
}

struct Master {
    terms: u64,
    order: SendOrder,
    workers: Vec<ActorId>,
    computers: Vec<ActorId>,
    received: usize,
    sum: f64,
}

struct Worker {
    term: f64,
    master: ActorId,
    computer: ActorId,
    in_reply_mode: bool,
    stash: VecDeque<Msg>,
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Master(m) => m.receive(msg, cx),
            Node::Worker(w) => w.receive(msg, cx),
            Node::Computer(rate) => match msg {
                Msg::Compute { term, reply_to } => {
                    cx.send(reply_to, Msg::Result(next_term(term, *rate)));
                }
                Msg::Stop => cx.exit(),
                _ => unreachable!("logmap: unexpected message to a computer"),
            },
        }
    }
}

impl Master {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start { workers, computers } => {
                self.workers = workers;
                self.computers = computers;
                let workers = &self.workers;
                self.order.for_each(self.terms, workers.len(), |i| {
                    cx.send(workers[i], Msg::NextTerm);
                });
                for &worker in &self.workers {
                    cx.send(worker, Msg::GetTerm);
                }
            }
            Msg::Result(term) => {
                self.sum += term;
                self.received += 1;
                if self.received == self.workers.len() {
                    for &actor in self.computers.iter().chain(&self.workers) {
                        cx.send(actor, Msg::Stop);
                    }
                    cx.exit();
                }
            }
            _ => unreachable!("logmap: unexpected message to the master"),
        }
    }
}

impl Worker {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        if self.in_reply_mode {
            match msg {
                Msg::Result(term) => {
                    self.in_reply_mode = false;
                    self.term = term;
                }
                other => self.stash.push_back(other),
            }
        } else {
            self.serve(msg, cx);
        }
        if !self.in_reply_mode {
            if let Some(msg) = self.stash.pop_front() {
                let me = cx.me();
                cx.send(me, msg);
            }
        }
    }

    /// Handles a message out of reply mode.
    fn serve(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::NextTerm => {
                let me = cx.me();
                cx.send(
                    self.computer,
                    Msg::Compute {
                        term: self.term,
                        reply_to: me,
                    },
                );
                self.in_reply_mode = true;
            }
            Msg::GetTerm => {
                if self.stash.is_empty() {
                    cx.send(self.master, Msg::Result(self.term));
                } else {
                    self.stash.push_back(Msg::GetTerm);
                }
            }
            Msg::Stop => cx.exit(),
            _ => unreachable!("logmap: unexpected message to a worker"),
        }
    }
}
