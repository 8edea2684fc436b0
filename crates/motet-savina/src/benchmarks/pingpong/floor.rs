//! Ping Pong on the sequential floor: SPEC.md's flow, Ping sending itself a `Ping` after each
//! `SendPong` while pings are left (3N + 1 messages per pair).

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check_pairs, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let Config { n, p } = *cfg;
    let (sys, pairs) = run_pairs(cfg);
    let reports = pairs.iter().map(|&(ping, pong)| {
        let Node::Pong { count } = *sys.actor(pong) else {
            unreachable!("a pair's pong is a Pong")
        };
        let Node::Ping { pongs, .. } = *sys.actor(ping) else {
            unreachable!("a pair's ping is a Ping")
        };
        (count, pongs)
    });
    check_pairs(n, p, reports)
}

/// Runs the `p` pairs to quiescence on a fresh system; returns it with each pair's (Ping, Pong).
fn run_pairs(cfg: &Config) -> (System<Node>, Vec<(ActorId, ActorId)>) {
    let Config { n, p } = *cfg;
    let mut sys = System::new();
    let mut pairs = Vec::with_capacity(p);
    for _ in 0..p {
        let pong = sys.spawn(Node::Pong { count: 0 });
        let ping = sys.spawn(Node::Ping {
            pong,
            pings_left: n,
            pongs: 0,
        });
        sys.send(ping, Msg::Start);
        pairs.push((ping, pong));
    }
    sys.run();
    (sys, pairs)
}

/// The messages of Ping Pong.
enum Msg {
    /// From the main thread to Ping.
    Start,
    /// From Ping to itself after a `SendPong` while pings are left: send the next ping.
    Ping,
    /// From Ping to Pong, carrying Ping's address for the reply.
    SendPing(ActorId),
    /// Pong's reply.
    SendPong,
    /// From Ping to Pong after the last round trip.
    Stop,
}

/// The two actors.
enum Node {
    Ping {
        pong: ActorId,
        pings_left: u64,
        pongs: u64,
    },
    Pong {
        count: u64,
    },
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (
                Node::Ping {
                    pong, pings_left, ..
                },
                Msg::Start,
            ) => send_ping(*pong, pings_left, cx),
            (
                Node::Ping {
                    pong, pings_left, ..
                },
                Msg::Ping,
            ) => send_ping(*pong, pings_left, cx),
            (
                Node::Ping {
                    pong,
                    pings_left,
                    pongs,
                },
                Msg::SendPong,
            ) => {
                *pongs += 1;
                if *pings_left > 0 {
                    let me = cx.me();
                    cx.send(me, Msg::Ping);
                } else {
                    cx.send(*pong, Msg::Stop);
                    cx.exit();
                }
            }
            (Node::Pong { count }, Msg::SendPing(from)) => {
                *count += 1;
                cx.send(from, Msg::SendPong);
            }
            (Node::Pong { .. }, Msg::Stop) => cx.exit(),
            _ => unreachable!("pingpong: message sent to the wrong actor"),
        }
    }
}

/// Ping's step: one `SendPing` to Pong, one fewer ping left.
fn send_ping(pong: ActorId, pings_left: &mut u64, cx: &mut Context<Node>) {
    let me = cx.me();
    cx.send(pong, Msg::SendPing(me));
    *pings_left -= 1;
}

#[cfg(test)]
mod tests {
    use super::{run_pairs, Config};

    /// SPEC.md's message count: per pair, `Start`, N `SendPing`, N `SendPong`, N − 1 `Ping`
    /// self-messages and `Stop`, 3N + 1, all delivered.
    #[test]
    fn each_pair_exchanges_3n_plus_1_messages() {
        for (n, p) in [(1, 1), (7, 1), (40, 3)] {
            let (sys, _) = run_pairs(&Config { n, p });
            assert_eq!(sys.delivered(), (3 * n + 1) * p as u64, "n={n} p={p}");
            assert_eq!(sys.dropped(), 0);
            assert_eq!(sys.exited(), 2 * p);
        }
    }
}
