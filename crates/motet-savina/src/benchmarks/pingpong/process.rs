//! Ping Pong as motet processes: Pong is a process reading its channel; each ping carries the
//! channel its pong goes back on (pi-calculus mobility, as Effpi writes it), here Ping's own
//! channel. Ping is a process reading that channel with SPEC.md's flow: `Start` from the main
//! thread, then after each `SendPong` a `Ping` sent to itself while pings are left, on which it
//! sends the next `SendPing` (3N + 1 messages per pair).

use std::sync::atomic::Ordering;

use motet_process::channel::{self, Receiver, Sender};
use motet_process::ProcessSystem;

use super::{Config, Tallies};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run)
}

/// What Ping sends to Pong.
enum PongMsg {
    /// A ping, with the channel to answer on (Ping's).
    SendPing(Sender<PingMsg>),
    /// The last round trip is done.
    Stop,
}

/// What Ping receives.
enum PingMsg {
    /// From the main thread: send the first ping.
    Start,
    /// From Ping itself after a `SendPong` while pings are left: send the next ping.
    Ping,
    /// Pong's answer.
    SendPong,
}

/// Pong: answers every ping on the channel it carries, counts them, and reports on `Stop`.
async fn pong(inbox: Receiver<PongMsg>, pair: usize, tallies: Tallies) {
    let mut count = 0;
    while let Ok(msg) = inbox.recv().await {
        match msg {
            PongMsg::SendPing(reply) => {
                count += 1;
                let _ = reply.send(PingMsg::SendPong);
            }
            PongMsg::Stop => break,
        }
    }
    let tally = tallies.pair(pair);
    tally.pings_counted.store(count, Ordering::Relaxed);
}

/// Ping: on `Start` or its own `Ping`, sends `SendPing` (carrying its own channel) and counts a
/// ping down; on `SendPong`, sends itself `Ping` while pings are left, else `Stop` to Pong.
async fn ping(
    inbox: Receiver<PingMsg>,
    me: Sender<PingMsg>,
    pong: Sender<PongMsg>,
    n: u64,
    pair: usize,
    tallies: Tallies,
) {
    let (mut pings_left, mut received) = (n, 0);
    while let Ok(msg) = inbox.recv().await {
        match msg {
            PingMsg::Start | PingMsg::Ping => {
                pings_left -= 1;
                if pong.send(PongMsg::SendPing(me.clone())).is_err() {
                    break;
                }
            }
            PingMsg::SendPong => {
                received += 1;
                if pings_left > 0 {
                    let _ = me.send(PingMsg::Ping);
                } else {
                    break;
                }
            }
        }
    }
    let _ = pong.send(PongMsg::Stop);
    let tally = tallies.pair(pair);
    tally.pongs_received.store(received, Ordering::Relaxed);
}

/// One timed iteration: spawns the `p` pairs, waits for every process to finish and checks every
/// pair.
fn run(cfg: &Config, system: &ProcessSystem) -> Outcome {
    let Config { n, p } = *cfg;
    let tallies = Tallies::new(p);
    for pair in 0..p {
        let (pong_tx, pong_rx) = channel::unbounded();
        let (ping_tx, ping_rx) = channel::unbounded();
        system.spawn(pong(pong_rx, pair, tallies.clone()));
        let _ = ping_tx.send(PingMsg::Start);
        system.spawn(ping(ping_rx, ping_tx, pong_tx, n, pair, tallies.clone()));
    }
    process_support::finish(system, || tallies.check(n))
}
