//! Logistic Map Series as motet actors.
//!
//! `Compute` carries the worker's address as its reply-to, which the computer consumes with
//! [`Addr::send`]; a worker keeps its own address to re-send stashed messages to itself.
//!
//! The stash is Savina's list of put-aside messages, oldest first (a `VecDeque` of the messages
//! themselves): the Master's `NextTerm`s reach a worker all at once, so a worker stashes up to
//! T − 1 of them, and re-sends them to itself one at a time.
//!
//! The Master sends the `NextTerm`s round-robin, as Savina does, unless `rr=0` asks for each
//! worker's in a row ([`SendOrder`]).

use std::collections::VecDeque;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, next_term, Config, SendOrder};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum MasterMsg {
    /// The workers and computers, by series.
    Start {
        workers: Vec<Addr<WorkerMsg>>,
        computers: Vec<Addr<ComputerMsg>>,
    },
    Result(f64),
}

enum WorkerMsg {
    NextTerm,
    GetTerm,
    /// The computer's answer.
    Result(f64),
    Stop,
}

enum ComputerMsg {
    Compute {
        term: f64,
        reply_to: Addr<WorkerMsg>,
    },
    Stop,
}

struct Master {
    terms: u64,
    order: SendOrder,
    workers: Vec<Addr<WorkerMsg>>,
    computers: Vec<Addr<ComputerMsg>>,
    received: usize,
    sum: f64,
    result: ResultSlot<f64>,
}

impl Actor for Master {
    type Msg = MasterMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg) {
        match msg {
            MasterMsg::Start { workers, computers } => {
                self.workers = workers;
                self.computers = computers;
                let workers = &self.workers;
                self.order.for_each(self.terms, workers.len(), |i| {
                    let _ = workers[i].tell(WorkerMsg::NextTerm);
                });
                for worker in &self.workers {
                    let _ = worker.tell(WorkerMsg::GetTerm);
                }
            }
            MasterMsg::Result(term) => {
                self.sum += term;
                self.received += 1;
                if self.received == self.workers.len() {
                    self.finish(ctx);
                }
            }
        }
    }
}

impl Master {
    /// Stops every worker and computer, records the sum and stops.
    fn finish(&mut self, ctx: &mut Context<'_, Self>) {
        for computer in self.computers.drain(..) {
            let _ = computer.send(ComputerMsg::Stop);
        }
        for worker in self.workers.drain(..) {
            let _ = worker.send(WorkerMsg::Stop);
        }
        self.result.set(self.sum);
        ctx.stop();
    }
}

struct Worker {
    term: f64,
    master: Addr<MasterMsg>,
    computer: Addr<ComputerMsg>,
    me: Option<Addr<WorkerMsg>>,
    in_reply_mode: bool,
    /// Savina's stash: the messages put aside in reply mode, oldest first. Never a `Result`,
    /// which ends reply mode.
    stash: VecDeque<WorkerMsg>,
}

impl Worker {
    /// Handles a message out of reply mode.
    fn serve(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        match msg {
            WorkerMsg::NextTerm => {
                if let Some(me) = &self.me {
                    let _ = self.computer.tell(ComputerMsg::Compute {
                        term: self.term,
                        reply_to: me.clone(),
                    });
                    self.in_reply_mode = true;
                }
            }
            WorkerMsg::GetTerm => {
                if self.stash.is_empty() {
                    let _ = self.master.tell(MasterMsg::Result(self.term));
                } else {
                    self.stash.push_back(WorkerMsg::GetTerm);
                }
            }
            WorkerMsg::Stop => {
                self.me = None;
                ctx.stop();
            }
            // A Result is only ever sent to a worker waiting for one.
            WorkerMsg::Result(_) => {}
        }
    }
}

impl Actor for Worker {
    type Msg = WorkerMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.me = Some(ctx.myself());
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        if self.in_reply_mode {
            match msg {
                WorkerMsg::Result(term) => {
                    self.in_reply_mode = false;
                    self.term = term;
                }
                other => self.stash.push_back(other),
            }
        } else {
            self.serve(ctx, msg);
        }
        if !self.in_reply_mode {
            if let (Some(me), Some(msg)) = (&self.me, self.stash.pop_front()) {
                let _ = me.tell(msg);
            }
        }
    }
}

struct Computer {
    rate: f64,
}

impl Actor for Computer {
    type Msg = ComputerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ComputerMsg) {
        match msg {
            ComputerMsg::Compute { term, reply_to } => {
                let _ = reply_to.send(WorkerMsg::Result(next_term(term, self.rate)));
            }
            ComputerMsg::Stop => ctx.stop(),
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let result = ResultSlot::new();
    let master = spawn(
        h,
        Master {
            terms: cfg.terms,
            order: cfg.order,
            workers: Vec::new(),
            computers: Vec::new(),
            received: 0,
            sum: 0.0,
            result: result.clone(),
        },
    );
    let computers: Vec<Addr<ComputerMsg>> = (0..cfg.series)
        .map(|i| {
            spawn(
                h,
                Computer {
                    rate: cfg.rate_of(i),
                },
            )
        })
        .collect();
    let workers = computers
        .iter()
        .enumerate()
        .map(|(i, computer)| {
            spawn(
                h,
                Worker {
                    term: Config::start_of(i),
                    master: master.clone(),
                    computer: computer.clone(),
                    me: None,
                    in_reply_mode: false,
                    stash: VecDeque::new(),
                },
            )
        })
        .collect();
    let _ = master.send(MasterMsg::Start { workers, computers });
    rt.wait_quiescent();
    check(cfg, result.take())
}
