//! Dining Philosophers as motet actors.
//!
//! `Hungry` carries the philosopher's address and id, as Savina's does, and the Arbitrator answers
//! that address; a philosopher keeps its own address to send itself `Start` and `Hungry`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context, Spawn, DEFAULT_BATCH};
use motet_runtime::Runtime;

use super::{check, Config, Forks, ARBITRATOR_BATCH};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, DEFAULT_BATCH), threads, run)
}

/// As [`prepare`], with the Arbitrator's batch [`ARBITRATOR_BATCH`] (deviation `batch`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(
        (Config::from_params(params)?, ARBITRATOR_BATCH),
        threads,
        run,
    )
}

enum ArbitratorMsg {
    Hungry(Addr<PhilosopherMsg>, u32),
    Done(u32),
    Exit,
}

enum PhilosopherMsg {
    Start,
    Denied,
    Eat,
}

struct Arbitrator {
    philosophers: usize,
    forks: Forks,
    exited: usize,
    result: ResultSlot<Forks>,
}

impl Actor for Arbitrator {
    type Msg = ArbitratorMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ArbitratorMsg) {
        match msg {
            ArbitratorMsg::Hungry(from, id) => {
                let answer = if self.forks.try_grant(id) {
                    PhilosopherMsg::Eat
                } else {
                    PhilosopherMsg::Denied
                };
                let _ = from.send(answer);
            }
            ArbitratorMsg::Done(id) => self.forks.release(id),
            ArbitratorMsg::Exit => {
                self.exited += 1;
                if self.exited == self.philosophers {
                    self.result.set(self.forks.clone());
                    ctx.stop();
                }
            }
        }
    }
}

struct Philosopher {
    id: u32,
    rounds: u64,
    eaten: u64,
    denials: u64,
    arbitrator: Addr<ArbitratorMsg>,
    me: Option<Addr<PhilosopherMsg>>,
    /// Meals and denials, summed over the philosophers as they stop.
    meals: Arc<[AtomicU64; 2]>,
}

impl Philosopher {
    /// Asks the Arbitrator for the forks.
    fn hungry(&self) {
        if let Some(me) = &self.me {
            let _ = self
                .arbitrator
                .tell(ArbitratorMsg::Hungry(me.clone(), self.id));
        }
    }
}

impl Actor for Philosopher {
    type Msg = PhilosopherMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.me = Some(ctx.myself());
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: PhilosopherMsg) {
        match msg {
            PhilosopherMsg::Start => self.hungry(),
            PhilosopherMsg::Denied => {
                self.denials += 1;
                self.hungry();
            }
            PhilosopherMsg::Eat => {
                self.eaten += 1;
                let _ = self.arbitrator.tell(ArbitratorMsg::Done(self.id));
                if self.eaten < self.rounds {
                    if let Some(me) = &self.me {
                        let _ = me.tell(PhilosopherMsg::Start);
                    }
                } else {
                    let _ = self.arbitrator.tell(ArbitratorMsg::Exit);
                    self.meals[0].fetch_add(self.eaten, Ordering::Relaxed);
                    self.meals[1].fetch_add(self.denials, Ordering::Relaxed);
                    self.me = None;
                    ctx.stop();
                }
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run((cfg, batch): &(Config, u32), rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let result = ResultSlot::new();
    let meals = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let arbitrator = Spawn::new(Arbitrator {
        philosophers: cfg.n,
        forks: Forks::new(cfg.n),
        exited: 0,
        result: result.clone(),
    })
    .batch(*batch)
    .spawn(h);
    let philosophers: Vec<Addr<PhilosopherMsg>> = (0..cfg.n)
        .map(|id| {
            spawn(
                h,
                Philosopher {
                    id: id as u32,
                    rounds: cfg.m,
                    eaten: 0,
                    denials: 0,
                    arbitrator: arbitrator.clone(),
                    me: None,
                    meals: meals.clone(),
                },
            )
        })
        .collect();
    drop(arbitrator);
    for philosopher in philosophers {
        let _ = philosopher.send(PhilosopherMsg::Start);
    }
    rt.wait_quiescent();
    check(
        cfg,
        meals[0].load(Ordering::Relaxed),
        meals[1].load(Ordering::Relaxed),
        result.take().as_ref(),
    )
}
