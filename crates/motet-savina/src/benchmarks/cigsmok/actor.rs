//! Cigarette Smokers as motet actors: the Arbiter creates the smokers as it starts (Savina's
//! flow); they busy-wait on the one shared `Math.random()`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, Picks};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::SharedWait;
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum ArbiterMsg {
    /// Start the first round.
    Start,
    StartedSmoking,
}

enum SmokerMsg {
    StartSmoking(u32),
    Exit,
}

struct Arbiter {
    smokers_wanted: usize,
    draws: Arc<AtomicU64>,
    rounds: u64,
    played: u64,
    picks: Picks,
    smokers: Vec<Addr<SmokerMsg>>,
    result: ResultSlot<u64>,
}

impl Arbiter {
    fn notify_random_smoker(&mut self) {
        let (smoker, period) = self.picks.next_pick();
        let _ = self.smokers[smoker].tell(SmokerMsg::StartSmoking(period));
    }
}

impl Actor for Arbiter {
    type Msg = ArbiterMsg;

    /// Creates the smokers, as Savina's Arbiter does in its constructor.
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.smokers = (0..self.smokers_wanted)
            .map(|_| {
                ctx.spawn(Smoker {
                    arbiter: ctx.myself(),
                    busy: SharedWait::new(),
                    draws: self.draws.clone(),
                })
            })
            .collect();
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ArbiterMsg) {
        match msg {
            ArbiterMsg::Start => self.notify_random_smoker(),
            ArbiterMsg::StartedSmoking => {
                self.played += 1;
                if self.played >= self.rounds {
                    for smoker in self.smokers.drain(..) {
                        let _ = smoker.send(SmokerMsg::Exit);
                    }
                    self.result.set(self.played);
                    ctx.stop();
                } else {
                    self.notify_random_smoker();
                }
            }
        }
    }
}

struct Smoker {
    arbiter: Addr<ArbiterMsg>,
    busy: SharedWait,
    draws: Arc<AtomicU64>,
}

impl Actor for Smoker {
    type Msg = SmokerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SmokerMsg) {
        match msg {
            SmokerMsg::StartSmoking(period) => {
                let _ = self.arbiter.tell(ArbiterMsg::StartedSmoking);
                self.busy.spin(period);
            }
            SmokerMsg::Exit => {
                self.draws.fetch_add(self.busy.draws(), Ordering::Relaxed);
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the Arbiter (which creates the smokers), runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let result = ResultSlot::new();
    let draws = Arc::new(AtomicU64::new(0));
    let arbiter = spawn(
        h,
        Arbiter {
            smokers_wanted: cfg.smokers,
            draws: draws.clone(),
            rounds: cfg.rounds,
            played: 0,
            picks: cfg.picks(),
            smokers: Vec::new(),
            result: result.clone(),
        },
    );
    let _ = arbiter.send(ArbiterMsg::Start);
    rt.wait_quiescent();
    check(cfg, result.take(), draws.load(Ordering::Relaxed))
}
