//! Watchdogs in virtual time (fast runs): expiry at the starting tag plus the timeout, restarts
//! from the handler, a heartbeat that keeps moving the expiry, a stop that leaves no event behind,
//! and the extra delay of a start.

use motet_reactor::{Program, ProgramBuilder, Shutdown, Startup};

use super::{ms, sc, Scenario};
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        // LF's WatchdogRestartTerminated: each expiry comes exactly one timeout after its start.
        sc("watchdog_restart", None, watchdog_restart, &[
            "(0, 0) r.arm: started", "(1 ms, 0) r.expired: 1", "(2 ms, 0) r.expired: 2",
            "(3 ms, 0) r.expired: 3", "(3 ms, 1) r.end: present=false",
        ]),
        sc("watchdog_heartbeat", None, watchdog_heartbeat, &[
            "(0, 0) r.beat: 0", "(10 ms, 0) r.beat: 1", "(20 ms, 0) r.beat: 2",
            "(45 ms, 0) r.expired: after 3 beats", "(45 ms, 1) r.end: present=false",
        ]),
        sc("watchdog_stop", None, watchdog_stop, &[
            "(0, 0) r.arm: started", "(5 ms, 0) r.disarm: stopped", "(5 ms, 1) r.end: present=false",
        ]),
        sc("watchdog_extra", None, watchdog_extra, &[
            "(0, 0) r.arm: started", "(5 ms, 0) r.expired: present=true", "(5 ms, 1) r.end: present=false",
        ]),
    ]
}

/// A shutdown reaction `end` of `r` that logs whether `dog` is present at the last tag.
fn log_end(
    b: &mut ProgramBuilder,
    log: &Log,
    r: motet_reactor::ReactorId<u32>,
    dog: motet_reactor::Watchdog,
) {
    let l = log.clone();
    b.reaction(r, "end")
        .trigger(Shutdown)
        .source(dog)
        .body(move |_, ctx| l.record(ctx, format!("present={}", ctx.is_present(dog))));
}

fn watchdog_restart(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let dog = b.watchdog(r, "dog", ms(1));
    let l = log.clone();
    b.reaction(r, "arm")
        .trigger(Startup)
        .effect(dog)
        .body(move |_, ctx| {
            ctx.start_watchdog(dog, ms(0));
            l.record(ctx, "started");
        });
    let l = log.clone();
    b.reaction(r, "expired")
        .trigger(dog)
        .effect(dog)
        .body(move |n, ctx| {
            *n += 1;
            l.record(ctx, *n);
            if *n < 3 {
                ctx.start_watchdog(dog, ms(0));
            }
        });
    log_end(&mut b, log, r, dog);
    b.build().unwrap()
}

fn watchdog_heartbeat(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let dog = b.watchdog(r, "dog", ms(25));
    let beat = b.logical_action::<(), _>(r, "next", ms(10));
    let l = log.clone();
    b.reaction(r, "beat")
        .trigger(Startup)
        .trigger(beat)
        .effect(dog)
        .effect(beat)
        .body(move |n, ctx| {
            l.record(ctx, *n);
            ctx.start_watchdog(dog, ms(0));
            *n += 1;
            if *n < 3 {
                ctx.schedule(beat, (), ms(0));
            }
        });
    let l = log.clone();
    b.reaction(r, "expired")
        .trigger(dog)
        .body(move |n, ctx| l.record(ctx, format!("after {n} beats")));
    log_end(&mut b, log, r, dog);
    b.build().unwrap()
}

fn watchdog_stop(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let dog = b.watchdog(r, "dog", ms(10));
    let later = b.logical_action::<(), _>(r, "later", ms(5));
    let l = log.clone();
    b.reaction(r, "arm")
        .trigger(Startup)
        .effect(dog)
        .effect(later)
        .body(move |_, ctx| {
            ctx.start_watchdog(dog, ms(0));
            ctx.schedule(later, (), ms(0));
            l.record(ctx, "started");
        });
    let l = log.clone();
    b.reaction(r, "disarm")
        .trigger(later)
        .effect(dog)
        .body(move |_, ctx| {
            ctx.stop_watchdog(dog);
            l.record(ctx, "stopped");
        });
    let l = log.clone();
    b.reaction(r, "expired")
        .trigger(dog)
        .body(move |_, ctx| l.record(ctx, "expired"));
    log_end(&mut b, log, r, dog);
    b.build().unwrap()
}

fn watchdog_extra(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let dog = b.watchdog(r, "dog", ms(2));
    let l = log.clone();
    b.reaction(r, "arm")
        .trigger(Startup)
        .effect(dog)
        .body(move |_, ctx| {
            ctx.start_watchdog(dog, ms(3));
            l.record(ctx, "started");
        });
    let l = log.clone();
    b.reaction(r, "expired")
        .trigger(dog)
        .body(move |_, ctx| l.record(ctx, format!("present={}", ctx.is_present(dog))));
    log_end(&mut b, log, r, dog);
    b.build().unwrap()
}
