//! Modes as LF's `test/C/src/modal_models/` exercise them, scaled from seconds to milliseconds:
//! startup, reset and shutdown reactions per mode (ModalStartupShutdown), and `after` delays
//! inside modes, held while the mode is inactive and resumed by a history entry (ModalAfter). The
//! logs are LF's traces of those tests, in motet's log format.

use std::time::Duration;

use motet_reactor::{ModeId, Program, ProgramBuilder, ReactorId, Reset, Shutdown, Startup};
use motet_reactor::{Timer, Transition};

use super::{ms, sc, Scenario, ZERO};
use crate::common::reactors::log_on;
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        // ModalStartupShutdown: Startup 1 at the start; Two's startup at its first entry; Four's
        // startup and reset at its first entry, its reset alone at the next ones; at the end the
        // shutdown reactions of Two, Three and Four (entered once, active or not), not Five's.
        sc("modal_startup_shutdown", Some(ms(60)), modal_startup_shutdown, &[
            "(0, 0) m.startup1: startup", "(10 ms, 0) m.next1: to Two",
            "(10 ms, 1) m.startup2: startup", "(20 ms, 0) m.next2: to Three",
            "(30 ms, 0) m.next3: to Four", "(30 ms, 1) m.startup4: startup",
            "(30 ms, 1) m.reset4: reset", "(40 ms, 0) m.next4: to Four",
            "(40 ms, 1) m.reset4: reset", "(50 ms, 0) m.next4: to Four",
            "(50 ms, 1) m.reset4: reset", "(60 ms, 0) m.shutdown2: shutdown",
            "(60 ms, 0) m.shutdown3: shutdown", "(60 ms, 0) m.next4: to Four",
            "(60 ms, 0) m.shutdown4: shutdown",
        ]),
        // ModalAfter: each mode holds a producer (timer 0, 75 ms) and a consumer fed `after`
        // 50 ms. One's value in flight when it is left (produced at 75, due at 125) is held and
        // delivered 100 ms late (the time One was inactive) after the history entry at 200; its
        // timer resumes the same way (150 -> 250). Two, entered by reset, restarts its timer at
        // the entry microstep.
        sc("modal_after", Some(ms(400)), modal_after, &[
            "(0, 0) m.p1.produce: 1", "(50 ms, 0) m.c1.consume: 1", "(75 ms, 0) m.p1.produce: 1",
            "(100 ms, 0) m.step1: to Two", "(100 ms, 1) m.p2.produce: 2",
            "(150 ms, 0) m.c2.consume: 2", "(175 ms, 0) m.p2.produce: 2",
            "(200 ms, 0) m.step2: to One", "(225 ms, 0) m.c1.consume: 1",
            "(250 ms, 0) m.p1.produce: 1", "(300 ms, 0) m.step1: to Two",
            "(300 ms, 0) m.c1.consume: 1", "(300 ms, 1) m.p2.produce: 2",
            "(350 ms, 0) m.c2.consume: 2", "(375 ms, 0) m.p2.produce: 2",
            "(400 ms, 0) m.step2: to One",
        ]),
        // ModalActions: the same trace with logical actions (delay 50 ms) in the modes instead of
        // `after` connections: One's action pending when it is left is held and resumes with the
        // history entry; Two's, entered by reset, starts afresh.
        sc("modal_actions", Some(ms(400)), modal_actions, &[
            "(0, 0) m.sched1: 1", "(50 ms, 0) m.exec1: 1", "(75 ms, 0) m.sched1: 1",
            "(100 ms, 0) m.step1: to Two", "(100 ms, 1) m.sched2: 2",
            "(150 ms, 0) m.exec2: 2", "(175 ms, 0) m.sched2: 2",
            "(200 ms, 0) m.step2: to One", "(225 ms, 0) m.exec1: 1",
            "(250 ms, 0) m.sched1: 1", "(300 ms, 0) m.exec1: 1",
            "(300 ms, 0) m.step1: to Two", "(300 ms, 1) m.sched2: 2",
            "(350 ms, 0) m.exec2: 2", "(375 ms, 0) m.sched2: 2",
            "(400 ms, 0) m.step2: to One",
        ]),
    ]
}

/// A reaction `name` in `mode`, triggered by `step`, that logs `text` and switches to `to` with a
/// reset transition.
fn next(
    b: &mut ProgramBuilder,
    log: &Log,
    mode: ModeId<()>,
    step: Timer,
    name: &str,
    to: ModeId<()>,
    text: &'static str,
) {
    let l = log.clone();
    b.reaction(mode, name)
        .trigger(step)
        .effect(to)
        .body(move |_, ctx| {
            l.record(ctx, text);
            ctx.set_mode(to, Transition::Reset);
        });
}

fn modal_startup_shutdown(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let m = b.reactor("m", ());
    let step = b.timer(m, "step", ms(10), ms(10));
    let one = b.mode(m, "One");
    let two = b.mode(m, "Two");
    let three = b.mode(m, "Three");
    let four = b.mode(m, "Four");
    let five = b.mode(m, "Five");
    log_on(&mut b, log, one, "startup1", Startup, "startup");
    next(&mut b, log, one, step, "next1", two, "to Two");
    log_on(&mut b, log, two, "startup2", Startup, "startup");
    next(&mut b, log, two, step, "next2", three, "to Three");
    log_on(&mut b, log, two, "shutdown2", Shutdown, "shutdown");
    next(&mut b, log, three, step, "next3", four, "to Four");
    log_on(&mut b, log, three, "shutdown3", Shutdown, "shutdown");
    log_on(&mut b, log, four, "startup4", Startup, "startup");
    log_on(&mut b, log, four, "reset4", Reset, "reset");
    next(&mut b, log, four, step, "next4", four, "to Four");
    log_on(&mut b, log, four, "shutdown4", Shutdown, "shutdown");
    // Unreachable: none of these runs.
    log_on(&mut b, log, five, "startup5", Startup, "startup");
    log_on(&mut b, log, five, "reset5", Reset, "reset");
    log_on(&mut b, log, five, "shutdown5", Shutdown, "shutdown");
    b.build().unwrap()
}

/// A producer (a timer at 0 then every 75 ms sets `product` to `id`) and a consumer of its
/// product `after` 50 ms, both placed in `mode` of `m`.
fn producer_consumer(b: &mut ProgramBuilder, log: &Log, m: ModeId<()>, id: u32) {
    let p = b.child(m, &format!("p{id}"), ());
    let t = b.timer(p, "t", ZERO, ms(75));
    let product = b.output::<u32, _>(p, "product");
    let l = log.clone();
    b.reaction(p, "produce")
        .trigger(t)
        .effect(product)
        .body(move |_, ctx| {
            l.record(ctx, id);
            ctx.set(product, id);
        });
    let c: ReactorId<()> = b.child(m, &format!("c{id}"), ());
    let input = b.input::<u32, _>(c, "product");
    let l = log.clone();
    b.reaction(c, "consume")
        .trigger(input)
        .body(move |_, ctx| l.record(ctx, ctx.get(input).unwrap()));
    b.connect_after(product, input, Duration::from_millis(50));
}

fn modal_after(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let m = b.reactor("m", ());
    let step = b.timer(m, "step", ms(100), ms(100));
    let one = b.mode(m, "One");
    let two = b.mode(m, "Two");
    producer_consumer(&mut b, log, one, 1);
    producer_consumer(&mut b, log, two, 2);
    next(&mut b, log, one, step, "step1", two, "to Two");
    let l = log.clone();
    b.reaction(two, "step2")
        .trigger(step)
        .effect(one)
        .body(move |_, ctx| {
            l.record(ctx, "to One");
            ctx.set_mode(one, Transition::History);
        });
    b.build().unwrap()
}

/// A timer (0, 75 ms) in `mode` that schedules a logical action of delay 50 ms, and the
/// reaction to that action, both logging `id`.
fn timed_action(b: &mut ProgramBuilder, log: &Log, mode: ModeId<()>, id: u32) {
    let t = b.timer(mode, &format!("t{id}"), ZERO, ms(75));
    let delay = b.logical_action::<u32, _>(mode, &format!("delay{id}"), ms(50));
    let l = log.clone();
    b.reaction(mode, &format!("sched{id}"))
        .trigger(t)
        .effect(delay)
        .body(move |_, ctx| {
            l.record(ctx, id);
            ctx.schedule(delay, id, ZERO);
        });
    let l = log.clone();
    b.reaction(mode, &format!("exec{id}"))
        .trigger(delay)
        .body(move |_, ctx| l.record(ctx, ctx.get(delay).unwrap()));
}

fn modal_actions(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let m = b.reactor("m", ());
    let step = b.timer(m, "step", ms(100), ms(100));
    let one = b.mode(m, "One");
    let two = b.mode(m, "Two");
    timed_action(&mut b, log, one, 1);
    timed_action(&mut b, log, two, 2);
    next(&mut b, log, one, step, "step1", two, "to Two");
    let l = log.clone();
    b.reaction(two, "step2")
        .trigger(step)
        .effect(one)
        .body(move |_, ctx| {
            l.record(ctx, "to One");
            ctx.set_mode(one, Transition::History);
        });
    b.build().unwrap()
}
