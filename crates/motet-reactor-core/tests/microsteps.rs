//! The tag loop of the sequential scheduler across microsteps: zero-delay actions make the next
//! microstep's events (one or several per tag, from one reaction or several), and the next
//! microstep is skipped to nothing else: a delayed event due in between, a stop request, the
//! timeout. Every tag and every reaction is logged and compared with the sequence LF's semantics
//! gives.

use core::time::Duration;
use std::sync::{Arc, Mutex};

use motet_reactor_core::{run_sequential, Metrics, Program, ProgramBuilder, RunOptions, Startup};

mod common;
use common::Virtual;

type Log = Arc<Mutex<Vec<String>>>;

fn run(program: &mut Program, fast: bool, timeout: Option<Duration>) -> Metrics {
    let options = RunOptions { fast, timeout };
    run_sequential(program, &mut Virtual(0), &options, &mut ()).unwrap()
}

/// A loop of `ticks` zero-delay ticks; the tick reaction also schedules `other` (zero delay) at
/// every even tick, and at tick 2 `later` (1 ms), whose reaction schedules a tick of its own.
/// A second reactor's `echo` action is scheduled by the same tick reaction at tick 3, so that two
/// actions share the next microstep. Stops itself at tick `stop_at`, if given.
fn program(log: &Log, ticks: u32, stop_at: Option<u32>) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let tick = b.logical_action::<u32, _>(r, "tick", Duration::ZERO);
    let other = b.logical_action::<(), _>(r, "other", Duration::ZERO);
    let later = b.logical_action::<(), _>(r, "later", Duration::from_millis(1));
    let e = b.reactor("e", ());
    let echo_in = b.input::<u32, _>(e, "in");
    let echo_out = b.output::<u32, _>(r, "echo");
    b.connect(echo_out, echo_in);
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(tick)
        .body(move |_, ctx| ctx.schedule(tick, 1, Duration::ZERO));
    let l = log.clone();
    b.reaction(r, "tick")
        .trigger(tick)
        .effect(tick)
        .effect(other)
        .effect(later)
        .effect(echo_out)
        .body(move |n: &mut u32, ctx| {
            let k = *ctx.get(tick).unwrap();
            *n = k;
            l.lock().unwrap().push(format!("{} tick {k}", ctx.tag()));
            if k < ticks {
                ctx.schedule(tick, k + 1, Duration::ZERO);
            }
            if k % 2 == 0 {
                ctx.schedule(other, (), Duration::ZERO);
            }
            if k == 2 {
                ctx.schedule(later, (), Duration::ZERO);
            }
            if k == 3 {
                ctx.set(echo_out, k);
            }
            if Some(k) == stop_at {
                ctx.request_stop();
            }
        });
    let l = log.clone();
    b.reaction(r, "other")
        .trigger(other)
        .body(move |_, ctx| l.lock().unwrap().push(format!("{} other", ctx.tag())));
    let l = log.clone();
    b.reaction(r, "later")
        .trigger(later)
        .effect(tick)
        .body(move |_, ctx| {
            l.lock().unwrap().push(format!("{} later", ctx.tag()));
            ctx.schedule(tick, 100, Duration::ZERO);
        });
    let l = log.clone();
    b.reaction(e, "echo").trigger(echo_in).body(move |_, ctx| {
        let v = *ctx.get(echo_in).unwrap();
        l.lock().unwrap().push(format!("{} echo {v}", ctx.tag()));
    });
    b.build().unwrap()
}

/// The log as (tag, events of that tag), in the order the tags came; the events of one tag
/// sorted (reactions of one level may run in any order).
fn lines(log: &Log) -> Vec<(String, Vec<String>)> {
    by_tag(log.lock().unwrap().iter().map(String::as_str))
}

fn by_tag<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<(String, Vec<String>)> {
    let mut tags: Vec<(String, Vec<String>)> = Vec::new();
    for line in lines {
        let (tag, event) = line.split_at(line.find(')').unwrap() + 1);
        match tags.last_mut() {
            Some((t, events)) if t == tag => events.push(event.to_string()),
            _ => tags.push((tag.to_string(), vec![event.to_string()])),
        }
    }
    for (_, events) in &mut tags {
        events.sort();
    }
    tags
}

/// What `program(log, 4, None)` logs; with a stop request at tick 3, the first six lines: the
/// stop tag is (0, 4), where tick 4 still happens.
const FOUR_TICKS: [&str; 10] = [
    "(0, 1) tick 1",
    "(0, 2) tick 2",
    "(0, 3) tick 3",
    "(0, 3) other",
    "(0, 3) echo 3",
    "(0, 4) tick 4",
    "(0, 5) other",
    "(1 ms, 0) later",
    "(1 ms, 1) tick 100",
    "(1 ms, 2) other",
];

#[test]
fn zero_delay_loops_run_microstep_after_microstep() {
    for fast in [true, false] {
        let log = Log::default();
        let mut p = program(&log, 4, None);
        let m = run(&mut p, fast, None);
        assert_eq!(lines(&log), by_tag(FOUR_TICKS), "fast: {fast}");
        // Startup, 5 microsteps at 0, 3 at 1 ms, and the shutdown tag after the queue runs dry.
        assert_eq!(m.tags, 10, "fast: {fast}");
        assert_eq!(m.reactions_executed, 11, "fast: {fast}");
        assert_eq!(m.actions_scheduled, 9, "fast: {fast}");
    }
}

#[test]
fn a_stop_request_ends_the_microstep_loop() {
    let log = Log::default();
    let mut p = program(&log, 1_000, Some(3));
    let m = run(&mut p, true, None);
    // The stop tag is (0, 4): its events (tick 4) still happen; nothing after it does.
    assert_eq!(lines(&log), by_tag(FOUR_TICKS[..6].iter().copied()));
    assert_eq!(m.tags, 5);
}

#[test]
fn the_timeout_ends_the_microstep_loop() {
    let log = Log::default();
    let mut p = program(&log, 1_000_000, None);
    // The timeout is (0, 0): the startup tag is the stop tag.
    let m = run(&mut p, true, Some(Duration::ZERO));
    assert!(lines(&log).is_empty());
    assert_eq!(m.tags, 1);
}
