//! `count`: Savina's Counting Actor (SPEC.md benchmark 2) as reactors, after LF's port: the
//! Producer sends one increment per tag (a logical action `next` triggers its `send` reaction
//! until N are sent, then it sets `retrieve`); the Counter counts and answers with its count.
//!
//! Validated as SPEC.md says: the result equals N.
#![no_std]
#![no_main]

use core::time::Duration;

use cortex_m_rt::entry;
use motet_embedded::{init_heap, report, Board};
use motet_reactor_core::{run_sequential, ProgramBuilder, RunOptions, Startup};

/// Increments (Savina's default is 1,000,000; fewer keep the emulated run short).
const N: u64 = 100_000;

/// The Producer's state.
struct Producer {
    sent: u64,
    result: Option<u64>,
}

#[entry]
fn main() -> ! {
    init_heap!(16 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    let producer = b.reactor(
        "producer",
        Producer {
            sent: 0,
            result: None,
        },
    );
    let next = b.logical_action::<(), _>(producer, "next", Duration::ZERO);
    let increment = b.output::<(), _>(producer, "increment");
    let retrieve = b.output::<(), _>(producer, "retrieve");
    let result = b.input::<u64, _>(producer, "result");
    b.reaction(producer, "start")
        .trigger(Startup)
        .effect(next)
        .body(move |_, ctx| ctx.schedule(next, (), Duration::ZERO));
    b.reaction(producer, "send")
        .trigger(next)
        .effect(increment)
        .effect(retrieve)
        .effect(next)
        .body(move |p: &mut Producer, ctx| {
            if p.sent < N {
                ctx.set(increment, ());
                p.sent += 1;
                ctx.schedule(next, (), Duration::ZERO);
            } else {
                ctx.set(retrieve, ());
            }
        });
    b.reaction(producer, "result")
        .trigger(result)
        .body(move |p: &mut Producer, ctx| p.result = ctx.get(result).copied());
    let counter = b.reactor("counter", 0u64);
    let increment_in = b.input::<(), _>(counter, "increment");
    let retrieve_in = b.input::<(), _>(counter, "retrieve");
    let result_out = b.output::<u64, _>(counter, "result");
    b.reaction(counter, "count")
        .trigger(increment_in)
        .body(|count, _| *count += 1);
    b.reaction(counter, "retrieve")
        .trigger(retrieve_in)
        .effect(result_out)
        .body(move |count, ctx| ctx.set(result_out, *count));
    b.connect(increment, increment_in);
    b.connect(retrieve, retrieve_in);
    b.connect(result_out, result);
    let mut program = b.build().expect("the counting program is well formed");
    let options = RunOptions {
        fast: true,
        ..RunOptions::default()
    };
    let run = run_sequential(&mut program, &mut board, &options, &mut ());
    report::memory();
    let got = program.state_mut(producer).result;
    match (run, got) {
        (Ok(_), Some(count)) => report::finish("count", count, count == N),
        (Ok(_), None) => report::finish("count", "no-answer", false),
        (Err(e), _) => report::finish("count", e, false),
    }
}
