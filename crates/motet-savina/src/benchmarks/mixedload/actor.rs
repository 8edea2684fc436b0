//! Mixed load as motet actors: masters spawn their chain links from their handler
//! (`Context::spawn`), a link's last token goes with `Addr::send`, which gives up the address in
//! the same step.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, factorize, Config, Tally};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    program(Config::from_params(params)?, threads)
}

/// Builds the program for `cfg`.
pub(super) fn program(cfg: Config, threads: usize) -> Prepared {
    motet_support::prepare(cfg, threads, run)
}

/// What masters and chain links receive.
enum RingMsg {
    /// Build the first ring (masters only).
    Build,
    /// The token.
    Token(u64),
}

/// What the collector receives.
enum Collected {
    /// A worker's factorization.
    Factors(Vec<u64>),
    /// A master is done, having seen this many tokens.
    Done(u64),
}

/// Builds `k` rings one after the other, passing the token down to 0 on each.
struct Master {
    cfg: Config,
    rings_left: u64,
    tokens: u64,
    next: Option<Addr<RingMsg>>,
    worker: Addr<u64>,
    collector: Addr<Collected>,
}

impl Master {
    /// Spawns `l` links behind itself, starts the token and the worker's factorization.
    fn build(&mut self, ctx: &mut Context<'_, Self>) {
        let mut next = ctx.myself();
        for _ in 0..self.cfg.l {
            next = ctx.spawn(ChainLink { next: Some(next) });
        }
        let _ = next.tell(RingMsg::Token(self.cfg.t));
        self.next = Some(next);
        let _ = self.worker.tell(self.cfg.number);
    }
}

impl Actor for Master {
    type Msg = RingMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: RingMsg) {
        match msg {
            RingMsg::Build => self.build(ctx),
            RingMsg::Token(x) => {
                self.tokens += 1;
                if x > 0 {
                    if let Some(next) = &self.next {
                        let _ = next.tell(RingMsg::Token(x - 1));
                    }
                    return;
                }
                // Token 0 has been round: every link of this ring has exited.
                self.next = None;
                self.rings_left -= 1;
                if self.rings_left > 0 {
                    self.build(ctx);
                } else {
                    let _ = self.collector.tell(Collected::Done(self.tokens));
                    ctx.stop();
                }
            }
        }
    }
}

/// Forwards tokens; exits after forwarding 0.
struct ChainLink {
    next: Option<Addr<RingMsg>>,
}

impl Actor for ChainLink {
    type Msg = RingMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: RingMsg) {
        match msg {
            RingMsg::Token(0) => {
                if let Some(next) = self.next.take() {
                    let _ = next.send(RingMsg::Token(0));
                }
                ctx.stop();
            }
            RingMsg::Token(n) => {
                if let Some(next) = &self.next {
                    let _ = next.tell(RingMsg::Token(n));
                }
            }
            RingMsg::Build => {}
        }
    }
}

/// Factors the numbers it is sent.
struct Worker {
    collector: Addr<Collected>,
}

impl Actor for Worker {
    type Msg = u64;

    fn handle(&mut self, _ctx: &mut Context<'_, Self>, n: u64) {
        let _ = self.collector.tell(Collected::Factors(factorize(n)));
    }
}

/// Waits for every factorization and every master.
struct Collector {
    cfg: Config,
    tally: Tally,
    slot: ResultSlot<Tally>,
}

impl Actor for Collector {
    type Msg = Collected;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Collected) {
        match msg {
            Collected::Factors(factors) => self.tally.factors(factors, &self.cfg.factors),
            Collected::Done(tokens) => self.tally.done(tokens),
        }
        if self.tally.complete(&self.cfg) {
            self.slot.set(std::mem::take(&mut self.tally));
            ctx.stop();
        }
    }
}

/// One timed iteration: creates the collector, the masters and their workers, starts the masters,
/// runs to quiescence and checks the tally.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let slot = ResultSlot::new();
    let collector = spawn(
        rt.handle(),
        Collector {
            cfg: *cfg,
            tally: Tally::default(),
            slot: slot.clone(),
        },
    );
    let masters: Vec<Addr<RingMsg>> = (0..cfg.r)
        .map(|_| {
            let worker = spawn(
                rt.handle(),
                Worker {
                    collector: collector.clone(),
                },
            );
            spawn(
                rt.handle(),
                Master {
                    cfg: *cfg,
                    rings_left: cfg.k,
                    tokens: 0,
                    next: None,
                    worker,
                    collector: collector.clone(),
                },
            )
        })
        .collect();
    drop(collector);
    for master in masters {
        let _ = master.send(RingMsg::Build);
    }
    rt.wait_quiescent();
    check(cfg, slot.take().as_ref())
}
