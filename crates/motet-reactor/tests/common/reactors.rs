//! Small reactors that the test programs are built from: a source that emits at startup, a
//! reaction that logs what it sees, a sink, and a relay that maps its input to its output.

use std::fmt::Debug;

use motet_reactor::{
    Declare, Input, Output, OutputMultiport, ProgramBuilder, ReactorId, Readable, Scope, Startup,
};

use super::Log;

/// A reactor `name` whose reaction `start` sets its output `out` to `value` at startup.
pub fn startup_source(b: &mut ProgramBuilder, name: &str, value: u32) -> Output<u32> {
    let r = b.reactor(name, ());
    let o = b.output::<u32, _>(r, "out");
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, value));
    o
}

/// A reactor `name` whose reaction `start` sets channel `c` of its multiport `out` (of `width`
/// channels) to `value(c)` at startup.
pub fn startup_multiport(
    b: &mut ProgramBuilder,
    name: &str,
    width: usize,
    value: fn(usize) -> u32,
) -> OutputMultiport<u32> {
    let r = b.reactor(name, ());
    let o = b.output_multiport::<u32, _>(r, "out", width);
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            for c in 0..width {
                ctx.set(o.channel(c), value(c));
            }
        });
    o
}

/// A reaction `name` of `scope`, triggered by `trigger`, that logs `text`.
pub fn log_on<S: 'static>(
    b: &mut ProgramBuilder,
    log: &Log,
    scope: impl Into<Scope<S>>,
    name: &str,
    trigger: impl Declare,
    text: &'static str,
) {
    let l = log.clone();
    b.reaction(scope, name)
        .trigger(trigger)
        .body(move |_, ctx| l.record(ctx, text));
}

/// A reaction `name` of `scope`, triggered by `x`, that logs each value of `x` (`{:?}`).
pub fn log_values<
    S: 'static,
    T: Debug + Send + 'static,
    X: Declare + Readable<T> + Send + 'static,
>(
    b: &mut ProgramBuilder,
    log: &Log,
    scope: impl Into<Scope<S>>,
    name: &str,
    x: X,
) {
    let l = log.clone();
    b.reaction(scope, name)
        .trigger(x)
        .body(move |_, ctx| l.record(ctx, format!("{:?}", ctx.get(x).unwrap())));
}

/// A reactor `name` whose reaction `log` logs every value on its input `in`.
pub fn sink<T: Debug + Send + Sync + 'static>(
    b: &mut ProgramBuilder,
    log: &Log,
    name: &str,
) -> Input<T> {
    let r = b.reactor(name, ());
    let i = b.input::<T, _>(r, "in");
    log_values(b, log, r, "log", i);
    i
}

/// Gives `reactor` an input `in` and an output `out`, and a reaction `name` that sets `out` to
/// `f` of each value on `in`.
pub fn relay(
    b: &mut ProgramBuilder,
    reactor: ReactorId<()>,
    name: &str,
    f: fn(u32) -> u32,
) -> (Input<u32>, Output<u32>) {
    let i = b.input::<u32, _>(reactor, "in");
    let o = b.output::<u32, _>(reactor, "out");
    b.reaction(reactor, name)
        .trigger(i)
        .effect(o)
        .body(move |_, ctx| {
            let v = *ctx.get(i).unwrap();
            ctx.set(o, f(v));
        });
    (i, o)
}
