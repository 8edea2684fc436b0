//! Ping Pong as motet actors: SPEC.md's flow, Ping sending itself a `Ping` after each `SendPong`
//! while pings are left (3N + 1 messages per pair).

use std::sync::atomic::Ordering;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{Config, Tallies};
use crate::bench::{Outcome, Prepared};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum PingMsg {
    Start,
    /// Ping's message to itself after a `SendPong` while pings are left: send the next ping.
    Ping,
    SendPong,
}

enum PongMsg {
    SendPing(Addr<PingMsg>),
    Stop,
}

struct Ping {
    pong: Addr<PongMsg>,
    pings_left: u64,
    pongs: u64,
    pair: usize,
    tallies: Tallies,
}

impl Ping {
    #[inline]
    fn ping(&mut self, ctx: &mut Context<'_, Self>) {
        self.pings_left -= 1;
        let _ = self.pong.tell(PongMsg::SendPing(ctx.myself()));
    }

    /// The last `SendPong`: once per run, kept out of line so that the handler's hot path
    /// carries none of its code.
    #[cold]
    #[inline(never)]
    fn finish(&mut self, ctx: &mut Context<'_, Self>) {
        let _ = self.pong.tell(PongMsg::Stop);
        let tally = self.tallies.pair(self.pair);
        tally.pongs_received.store(self.pongs, Ordering::Relaxed);
        ctx.stop();
    }
}

impl Actor for Ping {
    type Msg = PingMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: PingMsg) {
        match msg {
            PingMsg::Start | PingMsg::Ping => self.ping(ctx),
            PingMsg::SendPong => {
                self.pongs += 1;
                if self.pings_left > 0 {
                    let _ = ctx.myself().send(PingMsg::Ping);
                } else {
                    self.finish(ctx);
                }
            }
        }
    }
}

struct Pong {
    count: u64,
    pair: usize,
    tallies: Tallies,
}

impl Pong {
    /// `Stop`: once per run, kept out of line so that the handler's hot path carries none of
    /// its code.
    #[cold]
    #[inline(never)]
    fn finish(&mut self, ctx: &mut Context<'_, Self>) {
        let tally = self.tallies.pair(self.pair);
        tally.pings_counted.store(self.count, Ordering::Relaxed);
        ctx.stop();
    }
}

impl Actor for Pong {
    type Msg = PongMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: PongMsg) {
        match msg {
            PongMsg::SendPing(ping) => {
                self.count += 1;
                let _ = ping.send(PingMsg::SendPong);
            }
            PongMsg::Stop => self.finish(ctx),
        }
    }
}

/// One timed iteration: creates the `p` pairs, starts them, runs them to quiescence and checks
/// every pair.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let Config { n, p } = *cfg;
    let tallies = Tallies::new(p);
    let h = rt.handle();
    for pair in 0..p {
        let pong = spawn(
            h,
            Pong {
                count: 0,
                pair,
                tallies: tallies.clone(),
            },
        );
        let ping = spawn(
            h,
            Ping {
                pong,
                pings_left: n,
                pongs: 0,
                pair,
                tallies: tallies.clone(),
            },
        );
        let _ = ping.tell(PingMsg::Start);
    }
    rt.wait_quiescent();
    tallies.check(n)
}
