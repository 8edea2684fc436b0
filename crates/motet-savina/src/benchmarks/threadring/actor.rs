//! Thread Ring as motet actors.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, Counts};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum RingMsg {
    Data(Addr<RingMsg>),
    Ping(u64),
    Exit(usize),
}

/// What the ring's actors add up as they exit: the pings they handled, and how many exited.
#[derive(Default)]
struct Totals {
    pings: AtomicU64,
    exits: AtomicU64,
}

struct Ring {
    index: usize,
    n: usize,
    next: Option<Addr<RingMsg>>,
    /// Pings handled; added to `totals` on exit, after the token's last pass (the exit wave
    /// starts at the zero ping and reaches each actor after every ping sent to it).
    pings: u64,
    zero_at: ResultSlot<usize>,
    totals: Arc<Totals>,
}

impl Ring {
    fn send_next(&self, msg: RingMsg) {
        if let Some(next) = &self.next {
            let _ = next.tell(msg);
        }
    }

    /// Every message but a ping to pass on: once or twice per actor, so kept out of line, which
    /// leaves the handler's hot path (passing a ping, all but about 200 of the messages) without
    /// the register saves and the call that the rest needs.
    #[cold]
    #[inline(never)]
    fn handle_rare(&mut self, ctx: &mut Context<'_, Self>, msg: RingMsg) {
        match msg {
            RingMsg::Data(next) => self.next = Some(next),
            RingMsg::Ping(_) => {
                self.pings += 1;
                self.zero_at.set(self.index);
                // The exit wave: N + 1 exits, so one actor gets a second, ignored one.
                self.send_next(RingMsg::Exit(self.n));
            }
            RingMsg::Exit(e) => {
                if e > 0 {
                    self.send_next(RingMsg::Exit(e - 1));
                }
                self.totals.pings.fetch_add(self.pings, Ordering::Relaxed);
                self.totals.exits.fetch_add(1, Ordering::Relaxed);
                ctx.stop();
            }
        }
    }
}

impl Actor for Ring {
    type Msg = RingMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: RingMsg) {
        match msg {
            RingMsg::Ping(k) if k > 0 => {
                self.pings += 1;
                self.send_next(RingMsg::Ping(k - 1));
            }
            msg => self.handle_rare(ctx, msg),
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let Config { n, r } = *cfg;
    let zero_at = ResultSlot::new();
    let totals = Arc::new(Totals::default());
    let h = rt.handle();
    let ring: Vec<Addr<RingMsg>> = (0..n)
        .map(|index| {
            spawn(
                h,
                Ring {
                    index,
                    n,
                    next: None,
                    pings: 0,
                    zero_at: zero_at.clone(),
                    totals: totals.clone(),
                },
            )
        })
        .collect();
    for (i, actor) in ring.iter().enumerate() {
        let _ = actor.tell(RingMsg::Data(ring[(i + 1) % n].clone()));
    }
    let _ = ring[0].tell(RingMsg::Ping(r));
    drop(ring);
    rt.wait_quiescent();
    let counts = Counts {
        zero_at: zero_at.take(),
        pings: totals.pings.load(Ordering::Relaxed),
        exits: Some(totals.exits.load(Ordering::Relaxed)),
    };
    check(*cfg, counts)
}
