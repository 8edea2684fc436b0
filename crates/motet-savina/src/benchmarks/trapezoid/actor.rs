//! Trapezoidal Approximation as motet actors: the Master creates its workers when the work arrives.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{area, check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum MasterMsg {
    Work { l: f64, r: f64, h: f64 },
    Result(f64),
}

struct Work {
    l: f64,
    r: f64,
    h: f64,
}

struct Master {
    workers: usize,
    received: usize,
    area: f64,
    result: ResultSlot<f64>,
}

impl Actor for Master {
    type Msg = MasterMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg) {
        match msg {
            MasterMsg::Work { l, r, h } => {
                let width = (r - l) / self.workers as f64;
                for i in 0..self.workers {
                    let wl = width * i as f64 + l;
                    let worker = ctx.spawn(Worker {
                        master: ctx.myself(),
                    });
                    let _ = worker.send(Work {
                        l: wl,
                        r: wl + width,
                        h,
                    });
                }
            }
            MasterMsg::Result(area) => {
                self.area += area;
                self.received += 1;
                if self.received == self.workers {
                    self.result.set(self.area);
                    ctx.stop();
                }
            }
        }
    }
}

struct Worker {
    master: Addr<MasterMsg>,
}

impl Actor for Worker {
    type Msg = Work;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, work: Work) {
        let _ = self
            .master
            .tell(MasterMsg::Result(area(work.l, work.r, work.h)));
        ctx.stop();
    }
}

/// One timed iteration: creates the Master, runs to quiescence and checks the area.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let master = spawn(
        rt.handle(),
        Master {
            workers: cfg.w,
            received: 0,
            area: 0.0,
            result: result.clone(),
        },
    );
    let _ = master.send(MasterMsg::Work {
        l: cfg.l,
        r: cfg.r,
        h: cfg.h(),
    });
    rt.wait_quiescent();
    check(cfg, result.take())
}
