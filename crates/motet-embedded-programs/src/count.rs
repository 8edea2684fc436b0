//! Savina's Counting Actor (SPEC.md benchmark 2) as reactors, after LF's port: the Producer sends
//! one increment per tag (a logical action `next` triggers its `send` reaction until N are sent,
//! then it sets `retrieve`); the Counter counts and answers with its count. Validated as SPEC.md
//! says: the result equals N.

use core::time::Duration;

use motet_reactor_core::{BuildError, Program, ProgramBuilder, ReactorId, Startup};

use crate::Outcome;

/// Increments on the board (Savina's default is 1,000,000; fewer keep the emulated run short).
pub const BOARD_N: u64 = 100_000;

/// The Producer's state.
struct Producer {
    sent: u64,
    result: Option<u64>,
}

/// The built program and what is needed to read its outcome.
pub struct Count {
    /// The program, to run.
    pub program: Program,
    producer: ReactorId<Producer>,
    n: u64,
}

/// Builds the Counting program with `n` increments.
pub fn build(n: u64) -> Result<Count, BuildError> {
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
            if p.sent < n {
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
    Ok(Count {
        program: b.build()?,
        producer,
        n,
    })
}

impl Count {
    /// The count the Producer retrieved, validated against N.
    pub fn outcome(&mut self) -> Outcome {
        let got = self.program.state_mut(self.producer).result;
        Outcome {
            result: got,
            validated: got == Some(self.n),
        }
    }
}
