//! Savina's Ping Pong (SPEC.md benchmark 1) as reactors, after LF's port: Ping's logical action
//! `serve` stands in for Savina's self-message, so each round trip is one tag (the next
//! microstep) and three reactions. Validated as SPEC.md says: Pong counted N pings and Ping
//! received N pongs.

use core::time::Duration;

use motet_reactor_core::{BuildError, Program, ProgramBuilder, ReactorId, Startup};

use crate::Outcome;

/// Round trips on the board (Savina's default is 40,000; fewer keep the emulated run short).
pub const BOARD_N: u64 = 10_000;

/// Ping's state.
struct Ping {
    pings_left: u64,
    pongs: u64,
}

/// The built program and what is needed to read its outcome.
pub struct PingPong {
    /// The program, to run.
    pub program: Program,
    ping: ReactorId<Ping>,
    pong: ReactorId<u64>,
    n: u64,
}

/// Builds Ping Pong with `n` round trips.
pub fn build(n: u64) -> Result<PingPong, BuildError> {
    let mut b = ProgramBuilder::new();
    let ping = b.reactor(
        "ping",
        Ping {
            pings_left: n,
            pongs: 0,
        },
    );
    let serve = b.logical_action::<(), _>(ping, "serve", Duration::ZERO);
    let send = b.output::<(), _>(ping, "ping");
    let receive = b.input::<(), _>(ping, "pong");
    b.reaction(ping, "start")
        .trigger(Startup)
        .effect(serve)
        .body(move |p: &mut Ping, ctx| {
            if p.pings_left > 0 {
                ctx.schedule(serve, (), Duration::ZERO);
            }
        });
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
    Ok(PingPong {
        program: b.build()?,
        ping,
        pong,
        n,
    })
}

impl PingPong {
    /// The pings Pong counted, validated against the pongs Ping received.
    pub fn outcome(&mut self) -> Outcome {
        let pings = *self.program.state_mut(self.pong);
        let pongs = self.program.state_mut(self.ping).pongs;
        Outcome {
            result: Some(pings),
            validated: pings == self.n && pongs == self.n,
        }
    }
}
