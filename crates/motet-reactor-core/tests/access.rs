//! The run-time records behind reaction bodies: the per-port and per-action access bits tell the
//! reactions of one reactor apart, reactions beyond a reactor's 64th are checked against their
//! declarations one by one, a value is present only at the tag it was set at, and values that need
//! dropping are dropped at the end of their tag.

use core::time::Duration;
use std::sync::{Arc, Mutex};

use motet_reactor_core::{run_sequential, ProgramBuilder, RunError, RunOptions, Startup};

mod common;
use common::Virtual;

fn run(program: &mut motet_reactor_core::Program) -> Result<motet_reactor_core::Metrics, RunError> {
    let options = RunOptions {
        fast: true,
        timeout: None,
    };
    run_sequential(program, &mut Virtual(0), &options, &mut ())
}

/// Builds the program and runs it: the reaction `r.sneaky` must be refused `access` (as
/// `RunError::Undeclared` says it: "set r.out", "read r.i", "schedule r.a").
fn assert_refused(b: ProgramBuilder, access: &str) {
    let mut p = b.build().unwrap();
    assert_eq!(
        run(&mut p),
        Err(RunError::Undeclared {
            reaction: "r.sneaky".into(),
            access: access.into()
        })
    );
}

/// Reaction 2 of a reactor declares the output; reaction 1 of the same reactor sets it without
/// declaring it. The bit of reaction 2 must not let reaction 1 through.
#[test]
fn a_sibling_declaration_does_not_cover_a_reaction() {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let out = b.output::<u32, _>(r, "out");
    b.reaction(r, "sneaky")
        .trigger(Startup)
        .body(move |_, ctx| ctx.set(out, 1));
    b.reaction(r, "honest")
        .trigger(Startup)
        .effect(out)
        .body(move |_, ctx| ctx.set(out, 2));
    assert_refused(b, "set r.out");
}

/// The same for reading an input and scheduling an action.
#[test]
fn sibling_reads_and_schedules_are_checked_per_reaction() {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a = b.logical_action::<u8, _>(r, "a", Duration::ZERO);
    b.reaction(r, "sneaky")
        .trigger(Startup)
        .body(move |_, ctx| ctx.schedule(a, 1, Duration::ZERO));
    b.reaction(r, "honest")
        .trigger(Startup)
        .effect(a)
        .body(|_, _| {});
    b.reaction(r, "on_a").trigger(a).body(|_, _| {});
    assert_refused(b, "schedule r.a");

    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output::<u8, _>(src, "o");
    b.reaction(src, "emit")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 7));
    let r = b.reactor("r", ());
    let i = b.input::<u8, _>(r, "i");
    b.connect(o, i);
    b.reaction(r, "honest").trigger(i).body(|_, _| {});
    b.reaction(r, "sneaky")
        .trigger(Startup)
        .body(move |_, ctx| {
            let _ = ctx.get(i);
        });
    assert_refused(b, "read r.i");
}

/// A reactor with 70 reactions: the ones past the 64th have no bit and are checked against their
/// declarations; both kinds read, write and are refused as they should be.
#[test]
fn reactions_past_the_64th_are_checked_one_by_one() {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", Vec::<u32>::new());
    let outs: Vec<_> = (0..70)
        .map(|k| b.output::<u32, _>(r, &format!("o{k}")))
        .collect();
    let sink = b.reactor("sink", ());
    let ins: Vec<_> = (0..70)
        .map(|k| b.input::<u32, _>(sink, &format!("i{k}")))
        .collect();
    for k in 0..70 {
        let o = outs[k];
        b.reaction(r, &format!("emit{k}"))
            .trigger(Startup)
            .effect(o)
            .body(move |_, ctx| ctx.set(o, k as u32));
        b.connect(o, ins[k]);
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let all = ins.clone();
    let mut rb = b.reaction(sink, "sum");
    for &i in &ins {
        rb = rb.trigger(i);
    }
    rb.body(move |_, ctx| {
        let mut v: Vec<u32> = all.iter().filter_map(|&i| ctx.get(i).copied()).collect();
        v.sort_unstable();
        *log.lock().unwrap() = v;
    });
    let mut p = b.build().unwrap();
    run(&mut p).unwrap();
    assert_eq!(*seen.lock().unwrap(), (0..70).collect::<Vec<u32>>());

    // The 70th reaction setting the 69th's output is refused.
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let outs: Vec<_> = (0..70)
        .map(|k| b.output::<u32, _>(r, &format!("o{k}")))
        .collect();
    for (k, &o) in outs.iter().enumerate().take(69) {
        b.reaction(r, &format!("emit{k}"))
            .trigger(Startup)
            .effect(o)
            .body(|_, _| {});
    }
    let victim = outs[68];
    b.reaction(r, "sneaky")
        .trigger(Startup)
        .body(move |_, ctx| ctx.set(victim, 1));
    assert_refused(b, "set r.o68");
}

/// A value is present only at its tag: at the next microstep the (undropped) old value is absent.
#[test]
fn a_value_is_absent_at_the_next_tag() {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output::<u64, _>(src, "o");
    b.reaction(src, "emit")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 42));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = b.reactor("sink", seen.clone());
    let i = b.input::<u64, _>(sink, "i");
    let again = b.logical_action::<(), _>(sink, "again", Duration::ZERO);
    b.connect(o, i);
    b.reaction(sink, "first")
        .trigger(i)
        .effect(again)
        .body(move |log, ctx| {
            log.lock()
                .unwrap()
                .push((ctx.microstep(), ctx.get(i).copied()));
            ctx.schedule(again, (), Duration::ZERO);
        });
    b.reaction(sink, "later")
        .trigger(again)
        .source(i)
        .body(move |log, ctx| {
            log.lock()
                .unwrap()
                .push((ctx.microstep(), ctx.get(i).copied()));
            assert!(!ctx.is_present(i));
        });
    let mut p = b.build().unwrap();
    run(&mut p).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![(0, Some(42)), (1, None)]);
}

/// Port and action values whose type needs dropping are dropped at the end of their tag, not
/// when the port is next set.
#[test]
fn values_that_need_dropping_go_at_the_end_of_their_tag() {
    let token = Arc::new(());
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", token.clone());
    let o = b.output::<Arc<()>, _>(src, "o");
    let a = b.logical_action::<Arc<()>, _>(src, "a", Duration::ZERO);
    let check = b.logical_action::<(), _>(src, "check", Duration::ZERO);
    b.reaction(src, "emit")
        .trigger(Startup)
        .effect(o)
        .effect(a)
        .body(move |t, ctx| {
            ctx.set(o, t.clone());
            ctx.schedule(a, t.clone(), Duration::ZERO);
        });
    let counts = Arc::new(Mutex::new(Vec::new()));
    let log = counts.clone();
    b.reaction(src, "on_a")
        .trigger(a)
        .effect(check)
        .body(move |t, ctx| {
            // At (0, 1): the port's value of (0, 0) is gone, the action's value is here.
            log.lock().unwrap().push(Arc::strong_count(t));
            ctx.schedule(check, (), Duration::ZERO);
        });
    let log = counts.clone();
    b.reaction(src, "on_check")
        .trigger(check)
        .body(move |t, _| {
            // At (0, 2): the action's value of (0, 1) is gone too.
            log.lock().unwrap().push(Arc::strong_count(t));
        });
    let mut p = b.build().unwrap();
    run(&mut p).unwrap();
    // The test's token, the reactor state, and at (0, 1) the action's value.
    assert_eq!(*counts.lock().unwrap(), vec![3, 2]);
    drop(p);
    assert_eq!(Arc::strong_count(&token), 1);
}
