//! Trapezoidal Approximation as motet actors: the Master creates its workers when the work arrives.
//!
//! Workers integrate with SPEC.md's kernel ([`area`], x³ by `pow`); under `actor-tuned` with x³ as
//! two multiplications ([`area_cube_by_multiplication`], deviation `cube-by-multiplication`). The
//! program's state carries the kernel, and the Master hands it to each worker.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{area, area_cube_by_multiplication, check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// A worker's kernel: its area from its range and the piece width.
type Kernel = fn(f64, f64, f64) -> f64;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, area as Kernel), threads, run)
}

/// [`prepare`] with x³ as two multiplications (deviation `cube-by-multiplication`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(
        (
            Config::from_params(params)?,
            area_cube_by_multiplication as Kernel,
        ),
        threads,
        run,
    )
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
    kernel: Kernel,
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
                        kernel: self.kernel,
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
    kernel: Kernel,
}

impl Actor for Worker {
    type Msg = Work;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, work: Work) {
        let _ = self
            .master
            .tell(MasterMsg::Result((self.kernel)(work.l, work.r, work.h)));
        ctx.stop();
    }
}

/// One timed iteration: creates the Master, runs to quiescence and checks the area.
fn run((cfg, kernel): &(Config, Kernel), rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let master = spawn(
        rt.handle(),
        Master {
            workers: cfg.w,
            kernel: *kernel,
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
