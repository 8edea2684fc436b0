//! Logical time: timers, logical actions (their delays, several values at one tag, minimum
//! spacing and its policies) and connections delayed with `after`.

use std::time::Duration;

use motet_reactor::{ActionSpec, Output, Program, ProgramBuilder, SpacingPolicy, Startup};

use super::{ms, sc, two_timers, Scenario, ZERO};
use crate::common::reactors::{log_on, log_values, sink, startup_source};
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        sc("timer_is_present", Some(ms(100)), timer_is_present, &[
            "(0, 0) r.check: t1=true t2=false", "(33 ms, 0) r.check: t1=false t2=true",
            "(50 ms, 0) r.check: t1=true t2=false", "(66 ms, 0) r.check: t1=false t2=true",
            "(99 ms, 0) r.check: t1=false t2=true", "(100 ms, 0) r.check: t1=true t2=false",
        ]),
        sc("timer_once", None, timer_once, &["(20 ms, 0) r.tick: once"]),
        sc("action_delay_values", None, action_delay_values, &["(100 ms, 0) r.recv: 100", "(150 ms, 0) r.recv: -100"]),
        sc("action_same_tag", None, action_same_tag, &["(0, 1) r.recv: 2"]),
        sc("spacing_defer", None, spacing_defer, &["(1 ms, 0) r.recv: 1", "(11 ms, 0) r.recv: 2", "(21 ms, 0) r.recv: 3"]),
        sc("spacing_drop", None, spacing_drop, &["(1 ms, 0) r.recv: 1"]),
        sc("spacing_replace", None, spacing_replace, &["(1 ms, 0) r.recv: 3"]),
        sc("after", Some(ms(250)), after, &["(10 ms, 0) sink.log: 0", "(110 ms, 0) sink.log: 1", "(210 ms, 0) sink.log: 2"]),
        sc("after_zero", None, after_zero, &["(0, 1) sink.log: 5"]),
        sc("after_overlapped", Some(ms(60)), after_overlapped, &["(25 ms, 0) sink.log: 0", "(35 ms, 0) sink.log: 1", "(45 ms, 0) sink.log: 2", "(55 ms, 0) sink.log: 3"]),
    ]
}

fn timer_is_present(log: &Log) -> Program {
    two_timers(log, "check", (ZERO, ms(50)), (ms(33), ms(33)))
}

fn timer_once(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", ms(20), ZERO);
    log_on(&mut b, log, r, "tick", t, "once");
    b.build().unwrap()
}

/// A reactor `r` with an action `a` (`spec`) whose reaction `start` schedules `a` at startup
/// with each (value, delay) of `events`, and whose reaction `recv` logs each value of `a`.
fn scheduled(log: &Log, spec: ActionSpec, events: &'static [(i32, u64)]) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a = b.logical_action_with::<i32, _>(r, "a", spec);
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(a)
        .body(move |_, ctx| {
            for &(v, delay) in events {
                ctx.schedule(a, v, ms(delay));
            }
        });
    log_values(&mut b, log, r, "recv", a);
    b.build().unwrap()
}

fn action_delay_values(log: &Log) -> Program {
    scheduled(log, ActionSpec::delay(ms(100)), &[(100, 0), (-100, 50)])
}

fn action_same_tag(log: &Log) -> Program {
    scheduled(log, ActionSpec::delay(ZERO), &[(1, 0), (2, 0)])
}

/// Three values 1 ms apart on an action whose events must be 10 ms apart.
fn spaced(log: &Log, policy: SpacingPolicy) -> Program {
    let spec = ActionSpec::delay(ZERO).spacing(ms(10), policy);
    scheduled(log, spec, &[(1, 1), (2, 2), (3, 3)])
}

fn spacing_defer(log: &Log) -> Program {
    spaced(log, SpacingPolicy::Defer)
}

fn spacing_drop(log: &Log) -> Program {
    spaced(log, SpacingPolicy::Drop)
}

fn spacing_replace(log: &Log) -> Program {
    spaced(log, SpacingPolicy::Replace)
}

/// A reactor `src` whose timer fires every `period` and whose reaction `emit` sets its output
/// `out` to 0, 1, 2, ...
fn counter_source(b: &mut ProgramBuilder, period: Duration) -> Output<u32> {
    let src = b.reactor("src", 0u32);
    let t = b.timer(src, "t", ZERO, period);
    let o = b.output::<u32, _>(src, "out");
    b.reaction(src, "emit")
        .trigger(t)
        .effect(o)
        .body(move |k, ctx| {
            ctx.set(o, *k);
            *k += 1;
        });
    o
}

fn after(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = counter_source(&mut b, ms(100));
    let i = sink::<u32>(&mut b, log, "sink");
    b.connect_after(o, i, ms(10));
    b.build().unwrap()
}

fn after_zero(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_source(&mut b, "src", 5);
    let i = sink::<u32>(&mut b, log, "sink");
    b.connect_after(o, i, ZERO);
    b.build().unwrap()
}

fn after_overlapped(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = counter_source(&mut b, ms(10));
    let i = sink::<u32>(&mut b, log, "sink");
    b.connect_after(o, i, ms(25));
    b.build().unwrap()
}
