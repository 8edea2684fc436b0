//! Ping Pong on ractor: `Ping` and `Pong` actors on a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::pingpong::Config;
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

use super::Report;

/// Ping's messages.
enum PingMsg {
    /// Kicks off the exchange.
    Start,
    /// Ping's message to itself after a `SendPong` while pings are left: send the next ping.
    Ping,
    /// Pong's answer.
    SendPong,
}

/// Pong's messages.
enum PongMsg {
    /// A ping, carrying the actor to answer.
    SendPing(ActorRef<PingMsg>),
    /// Ends the exchange.
    Stop,
}

struct PingState {
    pings_left: u64,
    pongs: u64,
    pong: ActorRef<PongMsg>,
    done: Reporter<Report>,
}

impl PingState {
    fn send_ping(&mut self, myself: ActorRef<PingMsg>) -> Result<(), ActorProcessingErr> {
        self.pings_left -= 1;
        self.pong.cast(PongMsg::SendPing(myself))?;
        Ok(())
    }
}

impl RactorState for PingState {
    type Msg = PingMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<PingMsg>,
        msg: PingMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            PingMsg::Start | PingMsg::Ping => self.send_ping(myself)?,
            PingMsg::SendPong => {
                self.pongs += 1;
                if self.pings_left > 0 {
                    myself.cast(PingMsg::Ping)?;
                } else {
                    self.pong.cast(PongMsg::Stop)?;
                    self.done.report(Report::PongsReceived(self.pongs));
                    myself.stop(None);
                }
            }
        }
        Ok(())
    }
}

struct PongState {
    count: u64,
    done: Reporter<Report>,
}

impl RactorState for PongState {
    type Msg = PongMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<PongMsg>,
        msg: PongMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            PongMsg::SendPing(ping) => {
                self.count += 1;
                ping.cast(PingMsg::SendPong)?;
            }
            PongMsg::Stop => {
                self.done.report(Report::PingsAnswered(self.count));
                myself.stop(None);
            }
        }
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(super::config(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, .. }: Config, reporter: Reporter<Report>) {
    let pong_state = PongState {
        count: 0,
        done: reporter.clone(),
    };
    let (pong, _) = ractor_spawn(pong_state).await.expect("spawn Pong");
    let ping_state = PingState {
        pings_left: n,
        pongs: 0,
        pong,
        done: reporter,
    };
    let (ping, _) = ractor_spawn(ping_state).await.expect("spawn Ping");
    ping.cast(PingMsg::Start).expect("Ping is running");
    drop(ping);
}
