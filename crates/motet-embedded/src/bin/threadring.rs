//! `threadring`: Savina's Thread Ring (SPEC.md benchmark 5) as reactors, after LF's port: N nodes
//! in a cycle, node 0 opening the causality loop with a logical action; a node receiving `Ping(k)`
//! passes `Ping(k - 1)` if k > 0, and the node receiving `Ping(0)` reports its index to the
//! initializer, which also starts the ring with `Ping(R)` at node 0.
//!
//! Validated as SPEC.md says: the zero ping arrives at node R mod N.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::format;
use core::time::Duration;

use cortex_m_rt::entry;
use motet_embedded::{init_heap, report, Board};
use motet_reactor_core::{run_sequential, Ports, ProgramBuilder, RunOptions, Startup};

/// Nodes in the ring (Savina's default).
const N: usize = 100;
/// Passes (Savina's default is 100,000; fewer keep the emulated run short). Not a multiple of N,
/// so that the validation tells the nodes apart.
const R: u64 = 10_037;

#[entry]
fn main() -> ! {
    init_heap!(256 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    let init = b.reactor("init", None::<usize>);
    let start = b.output::<u64, _>(init, "start");
    let done = b.input_multiport::<(), _>(init, "done", N);
    b.reaction(init, "start")
        .trigger(Startup)
        .effect(start)
        .body(move |_, ctx| ctx.set(start, R));
    b.reaction(init, "done")
        .trigger(done)
        .body(move |zero_at: &mut Option<usize>, ctx| {
            *zero_at = ctx.present_unordered(done).next().map(|(i, _)| i);
        });
    let nodes = b.bank(N, |b, i| {
        let node = b.reactor(&format!("node[{i}]"), ());
        let input = b.input::<u64, _>(node, "in");
        let out = b.output::<u64, _>(node, "out");
        let finished = b.output::<(), _>(node, "done");
        if i == 0 {
            // The loop opener: what it receives goes on at the next microstep.
            let pass = b.logical_action::<u64, _>(node, "pass", Duration::ZERO);
            let first = b.input::<u64, _>(node, "start");
            b.reaction(node, "send")
                .trigger(pass)
                .effect(out)
                .body(move |_, ctx| {
                    if let Some(&k) = ctx.get(pass) {
                        ctx.set(out, k);
                    }
                });
            b.reaction(node, "receive")
                .trigger(input)
                .trigger(first)
                .effect(pass)
                .effect(finished)
                .body(move |_, ctx| {
                    let Some(&k) = ctx.get(input).or_else(|| ctx.get(first)) else {
                        return;
                    };
                    if k > 0 {
                        ctx.schedule(pass, k - 1, Duration::ZERO);
                    } else {
                        ctx.set(finished, ());
                    }
                });
            (input, out, finished, Some(first))
        } else {
            b.reaction(node, "pass")
                .trigger(input)
                .effect(out)
                .effect(finished)
                .body(move |_, ctx| {
                    let Some(&k) = ctx.get(input) else { return };
                    if k > 0 {
                        ctx.set(out, k - 1);
                    } else {
                        ctx.set(finished, ());
                    }
                });
            (input, out, finished, None)
        }
    });
    let outs: Ports<u64> = nodes.iter().map(|x| x.1).collect();
    let ins: Ports<u64> = nodes.iter().cycle().skip(1).take(N).map(|x| x.0).collect();
    b.connect(outs, ins);
    let finished: Ports<()> = nodes.iter().map(|x| x.2).collect();
    b.connect(finished, done);
    if let Some(first) = nodes[0].3 {
        b.connect(start, first);
    }
    drop(nodes);
    let mut program = b.build().expect("the thread-ring program is well formed");
    let options = RunOptions {
        fast: true,
        ..RunOptions::default()
    };
    let run = run_sequential(&mut program, &mut board, &options, &mut ());
    report::memory();
    let expected = (R % N as u64) as usize;
    match (run, *program.state_mut(init)) {
        (Ok(_), Some(at)) => report::finish("threadring", at, at == expected),
        (Ok(_), None) => report::finish("threadring", "no-zero-ping", false),
        (Err(e), _) => report::finish("threadring", e, false),
    }
}
