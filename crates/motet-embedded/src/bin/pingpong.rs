//! `pingpong`: Savina's Ping Pong (SPEC.md benchmark 1) as reactors, after LF's port: Ping's
//! logical action `serve` stands in for Savina's self-message, so each round trip is one tag (the
//! next microstep) and three reactions.
//!
//! Validated as SPEC.md says: Pong counted N pings and Ping received N pongs. Reported: the
//! cycles per executed reaction over the whole run (scheduling included).
#![no_std]
#![no_main]

use core::time::Duration;

use cortex_m_rt::entry;
use motet_embedded::{clock, init_heap, report, Board};
use motet_reactor_core::{run_sequential, ProgramBuilder, RunOptions, Startup};

/// Round trips (Savina's default is 40,000; fewer keep the emulated run short).
const N: u64 = 10_000;

/// Ping's state.
struct Ping {
    pings_left: u64,
    pongs: u64,
}

#[entry]
fn main() -> ! {
    init_heap!(16 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    let ping = b.reactor(
        "ping",
        Ping {
            pings_left: N,
            pongs: 0,
        },
    );
    let serve = b.logical_action::<(), _>(ping, "serve", Duration::ZERO);
    let send = b.output::<(), _>(ping, "ping");
    let receive = b.input::<(), _>(ping, "pong");
    b.reaction(ping, "start")
        .trigger(Startup)
        .effect(serve)
        .body(move |_, ctx| ctx.schedule(serve, (), Duration::ZERO));
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
    let mut program = b.build().expect("the ping-pong program is well formed");
    let options = RunOptions {
        fast: true,
        ..RunOptions::default()
    };
    let start = clock::now_cycles();
    let run = run_sequential(&mut program, &mut board, &options, &mut ());
    let took = clock::now_cycles() - start;
    report::memory();
    let pings = *program.state_mut(pong);
    let pongs = program.state_mut(ping).pongs;
    match run {
        Ok(m) => {
            report::figure("reactions", m.reactions_executed);
            report::figure("per_reaction_cycles", took / m.reactions_executed.max(1));
            report::finish("pingpong", pings, pings == N && pongs == N)
        }
        Err(e) => report::finish("pingpong", e, false),
    }
}
