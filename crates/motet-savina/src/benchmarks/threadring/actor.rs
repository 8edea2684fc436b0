//! Thread Ring as motet actors.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config};
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

struct Ring {
    index: usize,
    n: usize,
    next: Option<Addr<RingMsg>>,
    zero_at: ResultSlot<usize>,
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
                self.zero_at.set(self.index);
                // The exit wave: N + 1 exits, so one actor gets a second, ignored one.
                self.send_next(RingMsg::Exit(self.n));
            }
            RingMsg::Exit(e) => {
                if e > 0 {
                    self.send_next(RingMsg::Exit(e - 1));
                }
                ctx.stop();
            }
        }
    }
}

impl Actor for Ring {
    type Msg = RingMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: RingMsg) {
        match msg {
            RingMsg::Ping(k) if k > 0 => self.send_next(RingMsg::Ping(k - 1)),
            msg => self.handle_rare(ctx, msg),
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let Config { n, r } = *cfg;
    let zero_at = ResultSlot::new();
    let h = rt.handle();
    let ring: Vec<Addr<RingMsg>> = (0..n)
        .map(|index| {
            spawn(
                h,
                Ring {
                    index,
                    n,
                    next: None,
                    zero_at: zero_at.clone(),
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
    check(n, r, zero_at.take())
}
