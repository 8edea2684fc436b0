//! Logistic Map Series as motet actors.
//!
//! `Compute` carries the worker's address as its reply-to, which the computer consumes with
//! [`Addr::send`]; a worker keeps its own address to re-send stashed messages to itself.
//!
//! The stash is Savina's list of put-aside messages, oldest first, held as runs of equal messages
//! ([`Stash`]): the Master's `NextTerm`s reach a worker all at once, so at the defaults each
//! worker stashes up to 24,999 of them in a row, which as a list of messages is 400 KB per worker
//! (4 MB in all, written and read back once per iteration, and regrown each time) and as runs is
//! one entry with a count. What is stashed, the order in which it comes back and every re-send to
//! the worker itself are unchanged.
//!
//! The Master sends each worker its `NextTerm`s in a row unless `rr=1` asks for Savina's
//! round-robin ([`SendOrder`] explains why: the burst's message nodes stay in order in memory).

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
    stash: Stash,
}

/// A message a worker can stash: any but the computer's `Result`, which ends reply mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stashed {
    NextTerm,
    GetTerm,
    Stop,
}

/// A worker's stash: the messages it put aside in reply mode, oldest first, as runs of equal
/// messages (see the module docs).
#[derive(Default)]
struct Stash {
    /// Each message with how many times it comes in a row.
    runs: VecDeque<(Stashed, u32)>,
}

impl Stash {
    fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Puts `msg` aside, after every message already stashed.
    fn push_back(&mut self, msg: Stashed) {
        match self.runs.back_mut() {
            Some((last, count)) if *last == msg && *count < u32::MAX => *count += 1,
            _ => self.runs.push_back((msg, 1)),
        }
    }

    /// Takes out the oldest stashed message.
    fn pop_front(&mut self) -> Option<WorkerMsg> {
        let (msg, count) = self.runs.front_mut()?;
        let msg = *msg;
        if *count == 1 {
            self.runs.pop_front();
        } else {
            *count -= 1;
        }
        Some(match msg {
            Stashed::NextTerm => WorkerMsg::NextTerm,
            Stashed::GetTerm => WorkerMsg::GetTerm,
            Stashed::Stop => WorkerMsg::Stop,
        })
    }
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
                    self.stash.push_back(Stashed::GetTerm);
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
                WorkerMsg::NextTerm => self.stash.push_back(Stashed::NextTerm),
                WorkerMsg::GetTerm => self.stash.push_back(Stashed::GetTerm),
                WorkerMsg::Stop => self.stash.push_back(Stashed::Stop),
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
                    stash: Stash::default(),
                },
            )
        })
        .collect();
    let _ = master.send(MasterMsg::Start { workers, computers });
    rt.wait_quiescent();
    check(cfg, result.take())
}

#[cfg(test)]
mod tests {
    use super::{Stash, Stashed, WorkerMsg};

    fn kind(msg: WorkerMsg) -> Stashed {
        match msg {
            WorkerMsg::NextTerm => Stashed::NextTerm,
            WorkerMsg::GetTerm => Stashed::GetTerm,
            WorkerMsg::Stop => Stashed::Stop,
            WorkerMsg::Result(_) => panic!("a Result is never stashed"),
        }
    }

    /// The runs give back every stashed message once, oldest first, as a list would.
    #[test]
    fn the_stash_is_a_fifo_of_messages() {
        use Stashed::{GetTerm, NextTerm, Stop};
        let stashed = [NextTerm, NextTerm, NextTerm, GetTerm, NextTerm, Stop, Stop];
        let mut stash = Stash::default();
        for msg in stashed {
            stash.push_back(msg);
        }
        assert_eq!(stash.runs.len(), 4);
        let mut out = Vec::new();
        while let Some(msg) = stash.pop_front() {
            out.push(kind(msg));
            if out.len() == 2 {
                stash.push_back(GetTerm);
            }
        }
        let mut expected = stashed.to_vec();
        expected.push(GetTerm);
        assert_eq!(out, expected);
        assert!(stash.is_empty());
    }
}
