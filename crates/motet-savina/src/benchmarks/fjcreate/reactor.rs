//! Fork Join (actor creation) as reactors: the workers are created while the program runs, by a
//! mutation.
//!
//! The driver's startup reaction requests one mutation that loops N times: it creates a worker
//! beside the driver, connects the driver's `message` output to the worker's input and the
//! worker's `done` output to channel `i` of the driver's `done` multiport. The workers exist from
//! the next microstep, where the driver's `send` reaction (triggered by a zero-delay action the
//! startup reaction scheduled, Savina's send after the spawn) sets `message`: every worker
//! computes `sin(37.2)²` once and reports on `done`. The driver counts the reports and deletes the
//! workers (an actor's exit). Creating, connecting and deleting the N reactors is inside the timed
//! run, as the actors' creation is in the actor program.
//!
//! Validation: N completions, counted by the driver; the record's `reactors_created` is N.

use std::time::Duration;

use motet_reactor::{InputMultiport, Output, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The driver's state: the workers it created, and the reports counted.
struct Driver {
    workers: Vec<ReactorId<()>>,
    completions: u64,
}

/// What reads the result of a built program.
pub(super) struct ForkJoin {
    n: u64,
    driver: ReactorId<Driver>,
}

/// Declares one worker (in a mutation): computes once per message and reports on `done`.
fn worker(
    m: &mut ProgramBuilder,
    i: u64,
) -> (
    ReactorId<()>,
    motet_reactor::Input<()>,
    motet_reactor::Output<()>,
) {
    // The name without the formatting machinery: one is made per created reactor.
    let mut name = String::with_capacity(16);
    name.push_str("worker[");
    name.push_str(&i.to_string());
    name.push(']');
    let w = m.reactor(&name, ());
    let inp = m.input::<(), _>(w, "message");
    let done = m.output::<(), _>(w, "done");
    m.reaction(w, "compute")
        .trigger(inp)
        .effect(done)
        .body(move |_, ctx| {
            perform_computation(FJ_THETA);
            ctx.set(done, ());
        });
    (w, inp, done)
}

/// Builds the program for `cfg.n` workers.
pub(super) fn build(cfg: &Config) -> (Program, ForkJoin) {
    let n = cfg.n;
    let mut b = ProgramBuilder::new();
    let driver = b.reactor(
        "driver",
        Driver {
            workers: Vec::with_capacity(n as usize),
            completions: 0,
        },
    );
    let message: Output<()> = b.output(driver, "message");
    let done: InputMultiport<()> = b.input_multiport(driver, "done", n as usize);
    let send = b.logical_action::<(), _>(driver, "send", Duration::ZERO);
    b.reaction(driver, "spawn")
        .trigger(Startup)
        .effect(send)
        .mutates()
        .body(move |_, ctx| {
            ctx.mutate(move |m| {
                let mut made = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let (w, inp, out) = worker(m, i);
                    m.connect(message, inp);
                    m.connect(out, done.channel(i as usize));
                    made.push(w);
                }
                if let Some(d) = m.state_mut(driver) {
                    d.workers = made;
                }
            });
            ctx.schedule(send, (), Duration::ZERO);
        });
    b.reaction(driver, "send")
        .trigger(send)
        .effect(message)
        .body(move |_, ctx| ctx.set(message, ()));
    b.reaction(driver, "done")
        .trigger(done)
        .mutates()
        .body(move |d: &mut Driver, ctx| {
            d.completions += ctx.present_count(done) as u64;
            let workers = std::mem::take(&mut d.workers);
            ctx.mutate(move |m| {
                for w in workers {
                    m.delete(w);
                }
            });
        });
    (
        b.build().expect("the fork-join program is well formed"),
        ForkJoin { n, driver },
    )
}

impl Built for ForkJoin {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        check(self.n, program.state_mut(self.driver).completions)
    }
}
