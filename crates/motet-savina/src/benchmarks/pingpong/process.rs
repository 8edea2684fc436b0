//! Ping Pong as motet processes, as Effpi writes it: Pong is a process reading its channel; each
//! ping carries the channel its pong goes back on (pi-calculus mobility), here Ping's own channel.
//! Ping is a process that sends a ping and waits for the pong, `n` times, then stops Pong.

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
    /// A ping, with the channel to answer on.
    SendPing(Sender<SendPong>),
    /// The last round trip is done.
    Stop,
}

/// Pong's answer.
struct SendPong;

/// Pong: answers every ping on the channel it carries, counts them, and reports on `Stop`.
async fn pong(inbox: Receiver<PongMsg>, pair: usize, tallies: Tallies) {
    let mut count = 0;
    while let Ok(msg) = inbox.recv().await {
        match msg {
            PongMsg::SendPing(reply) => {
                count += 1;
                let _ = reply.send(SendPong);
            }
            PongMsg::Stop => break,
        }
    }
    let tally = tallies.pair(pair);
    tally.pings_counted.store(count, Ordering::Relaxed);
}

/// Ping: `n` round trips with Pong, each ping carrying Ping's own channel, then `Stop`.
async fn ping(pong: Sender<PongMsg>, n: u64, pair: usize, tallies: Tallies) {
    let (me, pongs) = channel::unbounded::<SendPong>();
    let mut received = 0;
    for _ in 0..n {
        if pong.send(PongMsg::SendPing(me.clone())).is_err() {
            break;
        }
        match pongs.recv().await {
            Ok(SendPong) => received += 1,
            Err(_) => break,
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
        system.spawn(pong(pong_rx, pair, tallies.clone()));
        system.spawn(ping(pong_tx, n, pair, tallies.clone()));
    }
    process_support::finish(system, || tallies.check(n))
}
