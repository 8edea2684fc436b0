//! Big as motet actors.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;
use crate::random::PseudoRandom;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

type Neighbors = Arc<[Addr<BigMsg>]>;

enum BigMsg {
    Neighbors(Neighbors),
    Ping(i32),
    Pong(i32),
    Exit,
}

enum SinkMsg {
    Neighbors(Neighbors),
    Exit,
}

struct Sink {
    w: usize,
    exits: u64,
    neighbors: Option<Neighbors>,
    result: ResultSlot<u64>,
}

impl Actor for Sink {
    type Msg = SinkMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SinkMsg) {
        match msg {
            SinkMsg::Neighbors(all) => self.neighbors = Some(all),
            SinkMsg::Exit => {
                self.exits += 1;
                if self.exits == self.w as u64 {
                    if let Some(all) = self.neighbors.take() {
                        for big in all.iter() {
                            let _ = big.tell(BigMsg::Exit);
                        }
                    }
                    self.result.set(self.exits);
                    ctx.stop();
                }
            }
        }
    }
}

/// What the Big actors add up as they exit: the pings they answered and the pongs that came from
/// a neighbor other than the one pinged.
#[derive(Default)]
struct Totals {
    pings_handled: AtomicU64,
    unexpected: AtomicU64,
}

struct Big {
    id: i32,
    n: u64,
    pings: u64,
    exp_pinger: i32,
    rng: PseudoRandom,
    sink: Addr<SinkMsg>,
    neighbors: Option<Neighbors>,
    pings_handled: u64,
    unexpected: u64,
    totals: Arc<Totals>,
}

impl Big {
    fn send_ping(&mut self) {
        let Some(all) = &self.neighbors else { return };
        let target = self.rng.next_int_below(all.len() as i32);
        self.exp_pinger = target;
        let _ = all[target as usize].tell(BigMsg::Ping(self.id));
        self.pings += 1;
    }
}

impl Actor for Big {
    type Msg = BigMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: BigMsg) {
        match msg {
            BigMsg::Neighbors(all) => self.neighbors = Some(all),
            BigMsg::Ping(sender) => {
                self.pings_handled += 1;
                if let Some(all) = &self.neighbors {
                    let _ = all[sender as usize].tell(BigMsg::Pong(self.id));
                }
            }
            BigMsg::Pong(sender) => {
                if sender != self.exp_pinger {
                    self.unexpected += 1;
                }
                if self.pings == self.n {
                    let _ = self.sink.tell(SinkMsg::Exit);
                } else {
                    self.send_ping();
                }
            }
            BigMsg::Exit => {
                self.totals
                    .pings_handled
                    .fetch_add(self.pings_handled, Ordering::Relaxed);
                self.totals
                    .unexpected
                    .fetch_add(self.unexpected, Ordering::Relaxed);
                self.neighbors = None;
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let Config { n, w } = *cfg;
    let result = ResultSlot::new();
    let totals = Arc::new(Totals::default());
    let h = rt.handle();
    let sink = spawn(
        h,
        Sink {
            w,
            exits: 0,
            neighbors: None,
            result: result.clone(),
        },
    );
    let bigs: Neighbors = (0..w)
        .map(|id| {
            spawn(
                h,
                Big {
                    id: id as i32,
                    n,
                    pings: 0,
                    exp_pinger: -1,
                    rng: PseudoRandom::new(id as i64),
                    sink: sink.clone(),
                    neighbors: None,
                    pings_handled: 0,
                    unexpected: 0,
                    totals: totals.clone(),
                },
            )
        })
        .collect();
    let _ = sink.tell(SinkMsg::Neighbors(bigs.clone()));
    for big in bigs.iter() {
        let _ = big.tell(BigMsg::Neighbors(bigs.clone()));
    }
    for big in bigs.iter() {
        let _ = big.tell(BigMsg::Pong(-1));
    }
    drop(bigs);
    drop(sink);
    rt.wait_quiescent();
    check(
        *cfg,
        result.take().unwrap_or(0),
        totals.pings_handled.load(Ordering::Relaxed),
        totals.unexpected.load(Ordering::Relaxed),
    )
}
