//! The pieces of the fan-out and fan-in programs that the scheduling tests run for many tags: a
//! source sets the channels of a multiport, a worker per channel computes on its value, and a
//! sink gathers the workers' outputs into a checksum that it logs now and then. The programs
//! differ in what the source sets, what each worker computes and when the sink logs; the
//! schedulers must give the same log on every configuration and run.

use motet_reactor::{
    Input, InputMultiport, Output, OutputMultiport, Ports, Program, ProgramBuilder, Startup,
};
use std::time::Duration;

use super::Log;

/// A source that loops through its sink: reactor `src` with a multiport `out` of `width`
/// channels, a zero-delay action `again` and an input `back`. At startup and at each `again`,
/// round `k` sets channel `c` to `emit(k, c)` (absent for `None`); a value on `back` ends the
/// round, and the next one follows until `rounds` rounds ran: `rounds` tags, one microstep after
/// another.
pub fn looping_source(
    b: &mut ProgramBuilder,
    width: usize,
    rounds: u64,
    emit: fn(u64, usize) -> Option<u64>,
) -> (OutputMultiport<u64>, Input<u64>) {
    let src = b.reactor("src", 0u64);
    let o = b.output_multiport::<u64, _>(src, "out", width);
    let again = b.logical_action::<(), _>(src, "again", Duration::ZERO);
    let back = b.input::<u64, _>(src, "back");
    b.reaction(src, "emit")
        .trigger(Startup)
        .trigger(again)
        .effect(o)
        .body(move |k, ctx| {
            for c in 0..width {
                if let Some(v) = emit(*k, c) {
                    ctx.set(o.channel(c), v);
                }
            }
        });
    b.reaction(src, "loop")
        .trigger(back)
        .effect(again)
        .body(move |k, ctx| {
            *k += 1;
            if *k < rounds {
                ctx.schedule(again, (), Duration::ZERO);
            }
        });
    (o, back)
}

/// A worker `name`: its reaction `work` sets its output to `work(acc, x)` for each value `x` on
/// its input, where `acc` is the worker's state (starting at 0).
pub fn worker(
    b: &mut ProgramBuilder,
    name: &str,
    work: impl FnMut(&mut u64, u64) -> u64 + Send + 'static,
) -> (Input<u64>, Output<u64>) {
    let w = b.reactor(name, 0u64);
    let inp = b.input::<u64, _>(w, "in");
    let out = b.output::<u64, _>(w, "out");
    let mut work = work;
    b.reaction(w, "work")
        .trigger(inp)
        .effect(out)
        .body(move |acc, ctx| {
            let x = *ctx.get(inp).unwrap();
            ctx.set(out, work(acc, x));
        });
    (inp, out)
}

/// A bank of `width` workers `w[i]` (see [`worker`]), `work(i)` giving worker `i`'s function:
/// their inputs and their outputs.
pub fn workers<F>(
    b: &mut ProgramBuilder,
    width: usize,
    work: impl Fn(usize) -> F,
) -> (Ports<u64>, Ports<u64>)
where
    F: FnMut(&mut u64, u64) -> u64 + Send + 'static,
{
    let ws = b.bank(width, |b, i| worker(b, &format!("w[{i}]"), work(i)));
    (
        ws.iter().map(|w| w.0).collect(),
        ws.iter().map(|w| w.1).collect(),
    )
}

/// A sink `sink` gathering `width` channels: its reaction `join` folds the present values, with
/// their channels, into a checksum (its state), logs it at the microsteps where `log_at` says
/// so, and sets it on its output `out`.
pub fn checksum_sink(
    b: &mut ProgramBuilder,
    log: &Log,
    width: usize,
    log_at: fn(u32) -> bool,
) -> (InputMultiport<u64>, Output<u64>) {
    let sink = b.reactor("sink", 0u64);
    let si = b.input_multiport::<u64, _>(sink, "in", width);
    let so = b.output::<u64, _>(sink, "out");
    let l = log.clone();
    b.reaction(sink, "join")
        .trigger(si)
        .effect(so)
        .body(move |sum, ctx| {
            for (c, v) in ctx.present_sorted(si) {
                *sum = sum.wrapping_mul(31).wrapping_add(*v ^ c as u64);
            }
            if log_at(ctx.tag().microstep()) {
                l.record(ctx, *sum);
            }
            ctx.set(so, *sum);
        });
    (si, so)
}

/// `x` scrambled `rounds` times by a linear congruential step: work whose cost the rounds set.
pub fn scramble(mut x: u64, rounds: u32) -> u64 {
    for _ in 0..rounds {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    x
}

/// A whole looping fan: a [`looping_source`] of `width` channels and `rounds` rounds, `width`
/// [`workers`], and a [`checksum_sink`] whose output ends each round.
pub fn looping_fan<F>(
    log: &Log,
    (width, rounds): (usize, u64),
    emit: fn(u64, usize) -> Option<u64>,
    work: impl Fn(usize) -> F,
    log_at: fn(u32) -> bool,
) -> Program
where
    F: FnMut(&mut u64, u64) -> u64 + Send + 'static,
{
    let mut b = ProgramBuilder::new();
    let (o, back) = looping_source(&mut b, width, rounds, emit);
    let (ins, outs) = workers(&mut b, width, work);
    let (si, so) = checksum_sink(&mut b, log, width, log_at);
    b.connect(o, ins);
    b.connect(outs, si);
    b.connect(so, back);
    b.build().unwrap()
}
