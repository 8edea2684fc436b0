//! Ping Pong in behaviour-oriented concurrency (motet-boc): a cown per player, each holding its
//! partner's cown as the actors hold addresses; a message is a `when` on the receiver's cown that
//! the sender spawns. The last round trip breaks the cycle between the two cowns. Messages are
//! `when_detached`, as a message is a `tell`: nobody awaits their results (a `when` over one cown is
//! never rejected, so their `Ok` is not checked). As SPEC.md's Ping does, Ping's `SendPong`
//! behaviour sends Ping a `Ping` (a behaviour on its own cown, which it holds until the last round)
//! while pings are left, and that behaviour sends the next `SendPing` (3N + 1 behaviours per pair).
//! `boc-tuned` follows Verona's port instead: the `SendPong` behaviour sends the next `SendPing`
//! itself (2N + 2 behaviours; deviation `no-self-message`).

use motet_boc::{when_detached, Cown};
use motet_runtime::Runtime;

use super::{check_pairs, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, |cfg, rt| {
        run(cfg, rt, true)
    })
}

/// Builds the runtime for the tuned program (no `Ping` self-message, `no-self-message`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, |cfg, rt| {
        run(cfg, rt, false)
    })
}

struct Ping {
    /// Ping's own cown, to send itself `Ping` (`None` in the tuned program and after the last
    /// round, which breaks the cycle).
    me: Option<Cown<Ping>>,
    pong: Option<Cown<Pong>>,
    pings_left: u64,
    pongs: u64,
    result: ResultSlot<u64>,
}

struct Pong {
    ping: Option<Cown<Ping>>,
    count: u64,
    result: ResultSlot<u64>,
}

impl Ping {
    /// Sends the next ping, counting it.
    fn ping(&mut self) {
        self.pings_left -= 1;
        if let Some(pong) = &self.pong {
            send_ping(pong);
        }
    }
}

/// `SendPing` to Pong: it counts the ping and answers with `SendPong`.
fn send_ping(pong: &Cown<Pong>) {
    let _ = when_detached(pong, |pong| {
        pong.count += 1;
        if let Some(ping) = &pong.ping {
            send_pong(ping);
        }
    });
}

/// `SendPong` to Ping: it pings again while pings are left, otherwise stops both players.
fn send_pong(ping: &Cown<Ping>) {
    let _ = when_detached(ping, |ping| {
        ping.pongs += 1;
        if ping.pings_left > 0 {
            match &ping.me {
                // `Ping` to itself, which sends the next `SendPing`.
                Some(me) => {
                    let _ = when_detached(me, Ping::ping);
                }
                None => ping.ping(),
            }
        } else {
            ping.me = None;
            if let Some(pong) = ping.pong.take() {
                // `Stop`: Pong reports its count and lets go of Ping's cown.
                let _ = when_detached(&pong, |pong| {
                    pong.result.set(pong.count);
                    pong.ping = None;
                });
            }
            ping.result.set(ping.pongs);
        }
    });
}

/// One timed iteration: creates `p` pairs of players, runs them to quiescence and checks every
/// pair's counts; Ping sends itself `Ping` after each `SendPong` if `self_message`.
fn run(cfg: &Config, rt: &Runtime, self_message: bool) -> Outcome {
    let h = rt.handle();
    let slots: Vec<_> = (0..cfg.p)
        .map(|_| {
            let (pongs, count) = (ResultSlot::new(), ResultSlot::new());
            let pong = Cown::new(
                h,
                Pong {
                    ping: None,
                    count: 0,
                    result: count.clone(),
                },
            );
            let ping = Cown::new(
                h,
                Ping {
                    me: None,
                    pong: Some(pong.clone()),
                    pings_left: cfg.n,
                    pongs: 0,
                    result: pongs.clone(),
                },
            );
            let partner = ping.clone();
            // Spawned before the first ping, so Pong knows Ping before it is pinged.
            let _ = when_detached(&pong, move |pong| pong.ping = Some(partner));
            if self_message {
                let me = ping.clone();
                let _ = when_detached(&ping, move |ping| ping.me = Some(me));
            }
            let _ = when_detached(&ping, Ping::ping);
            (count, pongs)
        })
        .collect();
    rt.wait_quiescent();
    check_pairs(
        cfg.n,
        cfg.p,
        slots
            .iter()
            .map(|(count, pongs)| (count.take().unwrap_or(0), pongs.take().unwrap_or(0))),
    )
}
