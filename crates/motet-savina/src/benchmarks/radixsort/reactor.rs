//! Radix Sort as reactors, after LF's port: a pipeline.
//!
//! Source → one Sort stage per bit (radix 1 first) → Validation, joined by single ports. The Source
//! sends one value per tag through its logical action `next`. A stage forwards a value whose bit is
//! clear at the same tag and keeps the others; once it has seen all `n` values it sends the kept
//! ones on, one per tag, through its own action `flush`. At most one value crosses each connection
//! per tag, so a value moves through every stage up to the next keeping one within one tag: a
//! chain of reactions, one per level. The level scheduler passes a barrier at every level of
//! the chain; the readiness scheduler runs the chain on one worker without one.

use std::time::Duration;

use motet_reactor::{Input, Output, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config, Expected, Seen};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::random::PseudoRandom;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters and the expected result are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, Expected::of(&cfg)), threads, model, build)
}

/// The Source's state: the generator and the values left to send.
struct Source {
    random: PseudoRandom,
    left: u64,
}

/// A sort stage's state.
struct Stage {
    radix: u64,
    received: u64,
    kept: Vec<u64>,
    /// The next kept value to send.
    sent: usize,
}

/// What reads the result of a built program: the Validation stage.
pub(super) struct RadixSort {
    n: u64,
    expected: Expected,
    validation: ReactorId<Seen>,
}

/// Builds the pipeline for `cfg.n` values below `cfg.m`.
fn build(&(cfg, expected): &(Config, Expected)) -> (Program, RadixSort) {
    let (n, m) = (cfg.n, cfg.m);
    let mut b = ProgramBuilder::new();
    let source = b.reactor(
        "source",
        Source {
            random: PseudoRandom::new(cfg.seed),
            left: n,
        },
    );
    let out = b.output::<u64, _>(source, "value");
    let next = b.logical_action::<(), _>(source, "next", Duration::ZERO);
    b.reaction(source, "send")
        .trigger(Startup)
        .trigger(next)
        .effect(out)
        .effect(next)
        .body(move |s: &mut Source, ctx| {
            if s.left == 0 {
                return;
            }
            s.left -= 1;
            ctx.set(out, s.random.next_long().unsigned_abs() % m);
            if s.left > 0 {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let mut upstream: Output<u64> = out;
    let mut radices: Vec<u64> = cfg.radices().collect();
    radices.reverse();
    for radix in radices {
        let (input, output) = stage(&mut b, radix, n);
        b.connect(upstream, input);
        upstream = output;
    }
    let (validation, input) = reactor_support::sink(
        &mut b,
        "validation",
        Seen::default(),
        "value",
        "validate",
        Seen::push,
    );
    b.connect(upstream, input);
    (
        b.build().expect("the radixsort program is well formed"),
        RadixSort {
            n,
            expected,
            validation,
        },
    )
}

/// Declares the sort stage for `radix` and returns its input and output.
fn stage(b: &mut ProgramBuilder, radix: u64, n: u64) -> (Input<u64>, Output<u64>) {
    let r = b.reactor(
        &format!("sort[{radix}]"),
        Stage {
            radix,
            received: 0,
            kept: Vec::new(),
            sent: 0,
        },
    );
    let input = b.input::<u64, _>(r, "value");
    let output = b.output::<u64, _>(r, "value");
    let flush = b.logical_action::<(), _>(r, "flush", Duration::ZERO);
    b.reaction(r, "sort")
        .trigger(input)
        .effect(output)
        .effect(flush)
        .body(move |s: &mut Stage, ctx| {
            let Some(&v) = ctx.get(input) else { return };
            s.received += 1;
            if v & s.radix == 0 {
                ctx.set(output, v);
            } else {
                s.kept.push(v);
            }
            if s.received == n && !s.kept.is_empty() {
                ctx.schedule(flush, (), Duration::ZERO);
            }
        });
    b.reaction(r, "flush")
        .trigger(flush)
        .effect(output)
        .effect(flush)
        .body(move |s: &mut Stage, ctx| {
            ctx.set(output, s.kept[s.sent]);
            s.sent += 1;
            if s.sent < s.kept.len() {
                ctx.schedule(flush, (), Duration::ZERO);
            }
        });
    (input, output)
}

impl Built for RadixSort {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let seen = *program.state_mut(self.validation);
        check(&self.expected, (seen.count == self.n).then_some(seen))
    }
}
