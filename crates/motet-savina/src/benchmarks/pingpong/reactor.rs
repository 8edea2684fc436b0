//! Ping Pong as reactors, after LF's port (paper section 5.2, Figure 12b).
//!
//! Ping has a logical action `serve` in place of Savina's self-message: its startup reaction
//! schedules `serve`; the `serve` reaction counts a ping down and sets `ping`; Pong's reaction
//! answers every ping on `pong`; Ping's `pong` reaction schedules `serve` again while pings are
//! left. The action breaks the causality loop Ping → Pong → Ping, so each round trip is one tag
//! (the next microstep) and three reactions. LF's benchmark runner reactor is left out: the harness
//! times the program from start to finish.

use std::time::Duration;

use motet_reactor::{Program, ProgramBuilder, ReactorId};

use super::{check, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// Ping's state.
struct Ping {
    pings_left: u64,
    pongs: u64,
}

/// What reads the result of a built program: the reactors whose state holds the result.
pub(super) struct PingPong {
    n: u64,
    ping: ReactorId<Ping>,
    pong: ReactorId<u64>,
}

/// Builds the program for `cfg.n` round trips.
pub(super) fn build(cfg: &Config) -> (Program, PingPong) {
    let mut b = ProgramBuilder::new();
    let ping = b.reactor(
        "ping",
        Ping {
            pings_left: cfg.n,
            pongs: 0,
        },
    );
    let serve = b.logical_action::<(), _>(ping, "serve", Duration::ZERO);
    let send = b.output::<(), _>(ping, "ping");
    let receive = b.input::<(), _>(ping, "pong");
    reactor_support::at_startup(&mut b, ping, serve, reactor_support::schedule_now);
    b.reaction(ping, "serve")
        .trigger(serve)
        .effect(send)
        .body(move |p: &mut Ping, ctx| {
            p.pings_left -= 1;
            ctx.set(send, ());
        });
    b.reaction(ping, "pong")
        .trigger(receive)
        .effect(serve)
        .body(move |p: &mut Ping, ctx| {
            p.pongs += 1;
            if p.pings_left > 0 {
                ctx.schedule(serve, (), Duration::ZERO);
            }
        });
    let pong = b.reactor("pong", 0u64);
    let ping_in = b.input::<(), _>(pong, "ping");
    let pong_out = b.output::<(), _>(pong, "pong");
    b.reaction(pong, "reply")
        .trigger(ping_in)
        .effect(pong_out)
        .body(move |count, ctx| {
            *count += 1;
            ctx.set(pong_out, ());
        });
    b.connect(send, ping_in);
    b.connect(pong_out, receive);
    (
        b.build().expect("the ping-pong program is well formed"),
        PingPong {
            n: cfg.n,
            ping,
            pong,
        },
    )
}

impl Built for PingPong {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let count = *program.state_mut(self.pong);
        let pongs = program.state_mut(self.ping).pongs;
        check(self.n, count, pongs)
    }
}
