//! Ping Pong as motet actors.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Iteration, Outcome};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum PingMsg {
    Start,
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
    result: ResultSlot<u64>,
}

impl Ping {
    fn ping(&mut self, ctx: &mut Context<'_, Self>) {
        self.pings_left -= 1;
        let _ = self.pong.tell(PongMsg::SendPing(ctx.myself()));
    }
}

impl Actor for Ping {
    type Msg = PingMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: PingMsg) {
        match msg {
            PingMsg::Start => self.ping(ctx),
            PingMsg::SendPong => {
                self.pongs += 1;
                if self.pings_left > 0 {
                    self.ping(ctx);
                } else {
                    let _ = self.pong.tell(PongMsg::Stop);
                    self.result.set(self.pongs);
                    ctx.stop();
                }
            }
        }
    }
}

struct Pong {
    count: u64,
    result: ResultSlot<u64>,
}

impl Actor for Pong {
    type Msg = PongMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: PongMsg) {
        match msg {
            PongMsg::SendPing(ping) => {
                self.count += 1;
                let _ = ping.send(PingMsg::SendPong);
            }
            PongMsg::Stop => {
                self.result.set(self.count);
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let (pongs, count) = (ResultSlot::new(), ResultSlot::new());
    let h = rt.handle();
    let pong = spawn(
        h,
        Pong {
            count: 0,
            result: count.clone(),
        },
    );
    let ping = spawn(
        h,
        Ping {
            pong,
            pings_left: cfg.n,
            pongs: 0,
            result: pongs.clone(),
        },
    );
    let _ = ping.tell(PingMsg::Start);
    drop(ping);
    rt.wait_quiescent();
    check(cfg.n, count.take().unwrap_or(0), pongs.take().unwrap_or(0))
}
