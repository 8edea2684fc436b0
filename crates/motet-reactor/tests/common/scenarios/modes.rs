//! Modes: a cycle of modes, reset and history transitions with the state they reset, and the
//! timers of a mode across reset and history entries.

use motet_reactor::{Program, ProgramBuilder, Reset, Transition};

use super::{ms, sc, Scenario, ZERO};
use crate::common::reactors::log_on;
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        sc("modes_cycle", Some(ms(50)), modes_cycle, &[
            "(0, 0) m.one: One", "(10 ms, 0) m.two: Two", "(20 ms, 0) m.three: Three",
            "(30 ms, 0) m.one: One", "(40 ms, 0) m.two: Two", "(50 ms, 0) m.three: Three",
        ]),
        sc("mode_reset_history", Some(ms(70)), mode_reset_history, &[
            "(0, 0) m.a: count=1", "(10 ms, 0) m.a: count=2", "(20 ms, 0) m.b: back by History",
            "(30 ms, 0) m.a: count=3", "(40 ms, 0) m.a: count=4", "(50 ms, 0) m.b: back by Reset",
            "(60 ms, 0) m.a: count=1", "(70 ms, 0) m.a: count=2",
        ]),
        sc("mode_timers", Some(ms(100)), mode_timers, &[
            "(0, 0) m.ctl: Run", "(0, 1) m.entered: reset", "(0, 1) m.tick: tick", "(10 ms, 0) m.tick: tick",
            "(20 ms, 0) m.tick: tick", "(25 ms, 0) m.ctl: Idle", "(50 ms, 0) m.ctl: Run", "(55 ms, 0) m.tick: tick",
            "(65 ms, 0) m.tick: tick", "(75 ms, 0) m.ctl: Idle", "(75 ms, 0) m.tick: tick", "(100 ms, 0) m.ctl: Run",
        ]),
    ]
}

fn modes_cycle(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let m = b.reactor("m", ());
    let t = b.timer(m, "t", ZERO, ms(10));
    let modes = [b.mode(m, "One"), b.mode(m, "Two"), b.mode(m, "Three")];
    for (k, name) in ["one", "two", "three"].into_iter().enumerate() {
        let next = modes[(k + 1) % 3];
        let l = log.clone();
        let label = ["One", "Two", "Three"][k];
        b.reaction(modes[k], name)
            .trigger(t)
            .effect(next)
            .body(move |_, ctx| {
                l.record(ctx, label);
                ctx.set_mode(next, Transition::Reset);
            });
    }
    b.build().unwrap()
}

struct Counts {
    count: u32,
    returns: u32,
}

fn mode_reset_history(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let m = b.reactor(
        "m",
        Counts {
            count: 0,
            returns: 0,
        },
    );
    let t = b.timer(m, "t", ZERO, ms(10));
    let a = b.mode(m, "A");
    let bm = b.mode(m, "B");
    b.on_reset(a, |s: &mut Counts| s.count = 0);
    let l = log.clone();
    b.reaction(a, "a")
        .trigger(t)
        .effect(bm)
        .body(move |s, ctx| {
            s.count += 1;
            l.record(ctx, format!("count={}", s.count));
            if s.count % 2 == 0 {
                ctx.set_mode(bm, Transition::History);
            }
        });
    let l = log.clone();
    b.reaction(bm, "b")
        .trigger(t)
        .effect(a)
        .body(move |s, ctx| {
            s.returns += 1;
            let how = if s.returns % 2 == 1 {
                Transition::History
            } else {
                Transition::Reset
            };
            l.record(ctx, format!("back by {how:?}"));
            ctx.set_mode(a, how);
        });
    b.build().unwrap()
}

fn mode_timers(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let m = b.reactor("m", 0u32);
    let ctl = b.timer(m, "ctl", ZERO, ms(25));
    let idle = b.mode(m, "Idle");
    let run = b.mode(m, "Run");
    let tick = b.timer(run, "tick", ZERO, ms(10));
    let l = log.clone();
    b.reaction(m, "ctl")
        .trigger(ctl)
        .effect(idle)
        .effect(run)
        .body(move |k, ctx| {
            if *k % 2 == 0 {
                l.record(ctx, "Run");
                let how = if *k % 4 == 0 {
                    Transition::Reset
                } else {
                    Transition::History
                };
                ctx.set_mode(run, how);
            } else {
                l.record(ctx, "Idle");
                ctx.set_mode(idle, Transition::History);
            }
            *k += 1;
        });
    log_on(&mut b, log, run, "entered", Reset, "reset");
    log_on(&mut b, log, run, "tick", tick, "tick");
    b.build().unwrap()
}
