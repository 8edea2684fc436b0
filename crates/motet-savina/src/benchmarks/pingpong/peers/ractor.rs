//! Ping Pong on ractor: `Ping` and `Pong` actors on a tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::pingpong::Config;
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

use super::Report;

/// Ping's messages.
enum PingMsg {
    /// Kicks off the exchange.
    Start,
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

struct Ping;

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

impl Actor for Ping {
    type Msg = PingMsg;
    type State = PingState;
    type Arguments = PingState;

    async fn pre_start(
        &self,
        _: ActorRef<PingMsg>,
        state: PingState,
    ) -> Result<PingState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<PingMsg>,
        msg: PingMsg,
        state: &mut PingState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            PingMsg::Start => state.send_ping(myself)?,
            PingMsg::SendPong => {
                state.pongs += 1;
                if state.pings_left > 0 {
                    state.send_ping(myself)?;
                } else {
                    state.pong.cast(PongMsg::Stop)?;
                    state.done.report(Report::PongsReceived(state.pongs));
                    myself.stop(None);
                }
            }
        }
        Ok(())
    }
}

struct Pong;

struct PongState {
    count: u64,
    done: Reporter<Report>,
}

impl Actor for Pong {
    type Msg = PongMsg;
    type State = PongState;
    type Arguments = PongState;

    async fn pre_start(
        &self,
        _: ActorRef<PongMsg>,
        state: PongState,
    ) -> Result<PongState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<PongMsg>,
        msg: PongMsg,
        state: &mut PongState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            PongMsg::SendPing(ping) => {
                state.count += 1;
                ping.cast(PingMsg::SendPong)?;
            }
            PongMsg::Stop => {
                state.done.report(Report::PingsAnswered(state.count));
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
    let (pong, _) = Actor::spawn(None, Pong, pong_state)
        .await
        .expect("spawn Pong");
    let ping_state = PingState {
        pings_left: n,
        pongs: 0,
        pong,
        done: reporter,
    };
    let (ping, _) = Actor::spawn(None, Ping, ping_state)
        .await
        .expect("spawn Ping");
    ping.cast(PingMsg::Start).expect("Ping is running");
    drop(ping);
}
