//! Fork Join (throughput) as reactors, after LF's port.
//!
//! A Producer broadcasts one message per tag to a bank of A workers (LF's `(producer.out)+ ->
//! worker.in`): a logical action `next` triggers its `send` reaction, which sets `message` and
//! schedules `next` again until N are sent. Each worker's reaction does the fork-join work
//! (`perform_computation`) and counts. The A worker reactions of a tag are independent, so on
//! several workers they run in parallel. N + 1 tags, N·(A + 1) + 1 reactions.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId};

use super::{check, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// What reads the result of a built program: the workers, whose state is their message count.
pub(super) struct Throughput {
    cfg: Config,
    workers: Vec<ReactorId<u64>>,
}

/// Builds the program for `cfg.n` messages to each of `cfg.a` workers.
pub(super) fn build(cfg: &Config) -> (Program, Throughput) {
    let n = cfg.n;
    let mut b = ProgramBuilder::new();
    let producer = b.reactor("producer", 0u64);
    let next = b.logical_action::<(), _>(producer, "next", Duration::ZERO);
    let message = b.output::<(), _>(producer, "message");
    reactor_support::at_startup(&mut b, producer, next, reactor_support::schedule_now);
    b.reaction(producer, "send")
        .trigger(next)
        .effect(message)
        .effect(next)
        .body(move |sent, ctx| {
            ctx.set(message, ());
            *sent += 1;
            if *sent < n {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let bank = b.bank(cfg.a, |b, i| {
        let w = b.reactor(&format!("worker[{i}]"), 0u64);
        let input = b.input::<(), _>(w, "message");
        b.reaction(w, "work").trigger(input).body(|count, _| {
            perform_computation(FJ_THETA);
            *count += 1;
        });
        (w, input)
    });
    let inputs: Ports<()> = bank.iter().map(|&(_, input)| input).collect();
    b.connect_broadcast(message, inputs);
    (
        b.build().expect("the throughput program is well formed"),
        Throughput {
            cfg: *cfg,
            workers: bank.into_iter().map(|(w, _)| w).collect(),
        },
    )
}

impl Built for Throughput {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let counts: Vec<u64> = self
            .workers
            .iter()
            .map(|&w| *program.state_mut(w))
            .collect();
        check(self.cfg.n, self.cfg.a, &counts)
    }
}
