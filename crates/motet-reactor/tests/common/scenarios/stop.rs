//! The end of a run: the timeout, a stop request, starvation (nothing left to happen), and what
//! the stop tag still does (its events and the shutdown reactions) and what it does not.

use std::time::Duration;

use motet_reactor::{Program, ProgramBuilder, Shutdown, Startup};

use super::{ms, sc, Scenario, ZERO};
use crate::common::reactors::log_on;
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        sc("timeout", Some(ms(10)), timeout, &["(0, 0) r.tick: 0", "(5 ms, 0) r.tick: 1", "(10 ms, 0) r.tick: 2", "(10 ms, 0) r.down: timer=true"]),
        sc("timeout_zero", Some(ZERO), timeout_zero, &["(0, 0) r.both: startup=true shutdown=true"]),
        sc("request_stop", None, request_stop, &["(1 ms, 0) r.stop: requested", "(1 ms, 1) r.on_a: a", "(1 ms, 1) r.down: shutdown"]),
        sc("starve", None, starve, &["(1 s, 0) r.tick: tick", "(1 s, 1) r.down: shutdown"]),
        sc("starve_zero", None, starve_zero, &["(0, 1) r.down: shutdown"]),
        sc("stop_idempotent", None, stop_idempotent, &["(0, 1) r.down: shutdown"]),
        sc("stop_clears_ports", None, stop_clears_ports, &["(0, 0) sink.watch: Some(1)", "(0, 1) sink.watch: None"]),
    ]
}

fn timeout(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let t = b.timer(r, "t", ZERO, ms(5));
    let a = b.logical_action::<(), _>(r, "late", ZERO);
    let l = log.clone();
    b.reaction(r, "tick").trigger(t).body(move |k, ctx| {
        l.record(ctx, *k);
        *k += 1;
    });
    let l = log.clone();
    b.reaction(r, "down")
        .trigger(Shutdown)
        .source(t)
        .effect(a)
        .body(move |_, ctx| {
            l.record(ctx, format!("timer={}", ctx.is_present(t)));
            ctx.schedule(a, (), ZERO);
        });
    log_on(&mut b, log, r, "never", a, "must not run");
    b.build().unwrap()
}

fn timeout_zero(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", Duration::from_secs(1), ZERO);
    let l = log.clone();
    b.reaction(r, "both")
        .trigger(Startup)
        .trigger(Shutdown)
        .body(move |_, ctx| {
            l.record(
                ctx,
                format!(
                    "startup={} shutdown={}",
                    ctx.is_present(Startup),
                    ctx.is_present(Shutdown)
                ),
            );
        });
    log_on(&mut b, log, r, "timer", t, "must not run");
    b.build().unwrap()
}

fn request_stop(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t1 = b.timer(r, "t1", ms(1), ZERO);
    let t2 = b.timer(r, "t2", ms(2), ZERO);
    let a = b.logical_action::<(), _>(r, "a", ZERO);
    let l = log.clone();
    b.reaction(r, "stop")
        .trigger(t1)
        .effect(a)
        .body(move |_, ctx| {
            l.record(ctx, "requested");
            ctx.request_stop();
            ctx.schedule(a, (), ZERO);
        });
    log_on(&mut b, log, r, "on_a", a, "a");
    log_on(&mut b, log, r, "t2", t2, "must not run");
    log_on(&mut b, log, r, "down", Shutdown, "shutdown");
    b.build().unwrap()
}

fn starve(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", Duration::from_secs(1), ZERO);
    log_on(&mut b, log, r, "tick", t, "tick");
    log_on(&mut b, log, r, "down", Shutdown, "shutdown");
    b.build().unwrap()
}

fn starve_zero(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    log_on(&mut b, log, r, "down", Shutdown, "shutdown");
    b.build().unwrap()
}

fn stop_idempotent(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", ZERO, ZERO);
    b.reaction(r, "stop").trigger(Startup).body(move |_, ctx| {
        ctx.request_stop();
        ctx.request_stop();
    });
    b.reaction(r, "again")
        .trigger(t)
        .body(move |_, ctx| ctx.request_stop());
    let l = log.clone();
    b.reaction(r, "down").trigger(Shutdown).body(move |_, ctx| {
        ctx.request_stop();
        l.record(ctx, "shutdown");
    });
    b.build().unwrap()
}

fn stop_clears_ports(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output::<u32, _>(src, "out");
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            ctx.set(o, 1);
            ctx.request_stop();
        });
    let s = b.reactor("sink", ());
    let i = b.input::<u32, _>(s, "in");
    let l = log.clone();
    b.reaction(s, "watch")
        .trigger(i)
        .trigger(Shutdown)
        .body(move |_, ctx| l.record(ctx, format!("{:?}", ctx.get(i))));
    b.connect(o, i);
    b.build().unwrap()
}
