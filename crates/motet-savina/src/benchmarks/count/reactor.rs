//! Counting Actor as reactors, after LF's port.
//!
//! A reactor has no mailbox to fill, so the Producer sends one increment per tag: a logical action
//! `next` triggers its `send` reaction, which sets `increment` and schedules `next` again until N
//! are sent, then sets `retrieve`. The Counter counts each increment and answers `retrieve` with
//! its count on `result`, which the Producer keeps. N + 2 tags, 2N + 4 reactions.

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

/// The Producer's state.
struct Producer {
    sent: u64,
    result: Option<u64>,
}

/// What reads the result of a built program: the Producer, which holds the result.
pub(super) struct Counting {
    n: u64,
    producer: ReactorId<Producer>,
}

/// Builds the program for `cfg.n` increments.
pub(super) fn build(cfg: &Config) -> (Program, Counting) {
    let n = cfg.n;
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
    reactor_support::at_startup(&mut b, producer, next, reactor_support::schedule_now);
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
    (
        b.build().expect("the counting program is well formed"),
        Counting { n, producer },
    )
}

impl Built for Counting {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        match program.state_mut(self.producer).result {
            Some(count) => check(self.n, count),
            None => Outcome::failed("the counter never answered"),
        }
    }
}
