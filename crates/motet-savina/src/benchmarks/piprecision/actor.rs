//! Precise Pi as motet actors: a Master and W workers it creates when it starts.

use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;
use num_bigint::BigUint;

use super::terms::Terms;
use super::{bbp_term, check, Config, Expected, Kernel, Sum};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime, the kernel and the reference π (all untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let prepared = (cfg, Kernel::savina(cfg.p), Expected::new(cfg.p));
    motet_support::prepare(prepared, threads, run)
}

/// The same program with the tuned arithmetic (`shift-division`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let prepared = (cfg, Kernel::shift(cfg.p), Expected::new(cfg.p));
    motet_support::prepare(prepared, threads, run)
}

enum MasterMsg {
    Start,
    Result(BigUint, usize),
    Stop,
}

enum WorkerMsg {
    Work(u32),
    Stop,
}

/// Hands out terms, adds the results, and stops the workers when every term is back.
struct Master {
    cfg: Config,
    kernel: Arc<Kernel>,
    workers: Vec<Addr<WorkerMsg>>,
    terms: Terms,
    stopped_workers: usize,
    result: ResultSlot<Sum>,
}

impl Master {
    fn generate_work(&mut self, worker: usize) {
        let _ = self.workers[worker].tell(WorkerMsg::Work(self.terms.hand_out()));
    }
}

impl Actor for Master {
    type Msg = MasterMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.workers = (0..self.cfg.w)
            .map(|id| {
                ctx.spawn(Worker {
                    id,
                    kernel: self.kernel.clone(),
                    master: ctx.myself(),
                })
            })
            .collect();
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg) {
        match msg {
            MasterMsg::Start => {
                for t in 0..self.cfg.window() {
                    self.generate_work(t as usize % self.cfg.w);
                }
            }
            MasterMsg::Result(term, worker) => {
                if self.terms.receive(term) {
                    self.generate_work(worker);
                }
                if self.terms.all_back() {
                    for worker in &self.workers {
                        let _ = worker.tell(WorkerMsg::Stop);
                    }
                }
            }
            MasterMsg::Stop => {
                self.stopped_workers += 1;
                if self.stopped_workers == self.cfg.w {
                    self.result.set(self.terms.take_sum());
                    self.workers.clear();
                    ctx.stop();
                }
            }
        }
    }
}

/// Computes the terms it is sent.
struct Worker {
    id: usize,
    kernel: Arc<Kernel>,
    master: Addr<MasterMsg>,
}

impl Actor for Worker {
    type Msg = WorkerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        match msg {
            WorkerMsg::Work(k) => {
                let term = bbp_term(&self.kernel, k);
                let _ = self.master.tell(MasterMsg::Result(term, self.id));
            }
            WorkerMsg::Stop => {
                let _ = self.master.tell(MasterMsg::Stop);
                ctx.stop();
            }
        }
    }
}

/// Runs the program once on `rt` and returns the Master's sum.
pub(super) fn compute(cfg: Config, kernel: &Arc<Kernel>, rt: &Runtime) -> Option<Sum> {
    let result = ResultSlot::new();
    let master = spawn(
        rt.handle(),
        Master {
            cfg,
            kernel: kernel.clone(),
            workers: Vec::new(),
            terms: Terms::default(),
            stopped_workers: 0,
            result: result.clone(),
        },
    );
    let _ = master.send(MasterMsg::Start);
    rt.wait_quiescent();
    result.take()
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the sum.
fn run((cfg, kernel, expected): &(Config, Arc<Kernel>, Expected), rt: &Runtime) -> Outcome {
    check(expected, compute(*cfg, kernel, rt))
}
