//! Cigarette Smokers as motet actors.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, Picks, BUSY_SEED};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::BusyWait;
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum ArbiterMsg {
    /// The smokers, by index: start the first round.
    Start(Vec<Addr<SmokerMsg>>),
    StartedSmoking,
}

enum SmokerMsg {
    StartSmoking(u32),
    Exit,
}

struct Arbiter {
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
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ArbiterMsg) {
        match msg {
            ArbiterMsg::Start(smokers) => {
                self.smokers = smokers;
                self.notify_random_smoker();
            }
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
    busy: BusyWait,
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

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let result = ResultSlot::new();
    let draws = Arc::new(AtomicU64::new(0));
    let arbiter = spawn(
        h,
        Arbiter {
            rounds: cfg.rounds,
            played: 0,
            picks: cfg.picks(),
            smokers: Vec::new(),
            result: result.clone(),
        },
    );
    let smokers = (0..cfg.smokers)
        .map(|_| {
            spawn(
                h,
                Smoker {
                    arbiter: arbiter.clone(),
                    busy: BusyWait::new(BUSY_SEED),
                    draws: draws.clone(),
                },
            )
        })
        .collect();
    let _ = arbiter.send(ArbiterMsg::Start(smokers));
    rt.wait_quiescent();
    check(cfg, result.take(), draws.load(Ordering::Relaxed))
}
