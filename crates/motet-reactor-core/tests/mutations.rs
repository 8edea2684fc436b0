//! Mutations on the sequential scheduler: reactors created at a tag boundary start at the next
//! microstep, connect to the program's ports both ways, are deleted with their pending events,
//! and mutations that would make a causality cycle, connect lists of different widths or delete
//! what the requester did not create are rejected while the program goes on. Every tag's
//! reactions are logged and compared with the expected sequence.

use core::time::Duration;
use std::sync::{Arc, Mutex};

use motet_reactor_core::{
    run_sequential, BuildError, Input, Metrics, Output, Program, ProgramBuilder, ReactorId,
    RunError, RunOptions, Startup,
};

mod common;
use common::Virtual;

type Log = Arc<Mutex<Vec<String>>>;

fn run(program: &mut Program) -> Result<Metrics, RunError> {
    let options = RunOptions {
        fast: true,
        timeout: None,
    };
    run_sequential(program, &mut Virtual(0), &options, &mut ())
}

fn entry(log: &Log, ctx: &motet_reactor_core::Ctx<'_>, what: String) {
    log.lock().unwrap().push(format!(
        "{}/{} {what}",
        ctx.time().as_millis(),
        ctx.microstep()
    ));
}

/// The spawner's state: the workers it made, so that it can delete them.
#[derive(Default)]
struct Spawner {
    workers: Vec<ReactorId<u32>>,
    rounds: u32,
}

/// A worker: on startup it sends `value * 10` on `out`; a timer 1 ms after its startup logs.
fn worker(
    m: &mut ProgramBuilder,
    log: &Log,
    name: &str,
    value: u32,
) -> (ReactorId<u32>, Input<u32>, Output<u32>) {
    let w = m.reactor(name, value);
    let inp = m.input::<u32, _>(w, "in");
    let out = m.output::<u32, _>(w, "out");
    let t = m.timer(w, "t", Duration::from_millis(1), Duration::ZERO);
    let l = log.clone();
    m.reaction(w, "start")
        .trigger(Startup)
        .effect(out)
        .body(move |v: &mut u32, ctx| {
            entry(&l, ctx, format!("{} start", ctx.reactor_name()));
            ctx.set(out, *v * 10);
        });
    let l = log.clone();
    m.reaction(w, "input").trigger(inp).body(move |_, ctx| {
        entry(
            &l,
            ctx,
            format!("{} got {}", ctx.reactor_name(), ctx.get(inp).unwrap()),
        );
    });
    let l = log.clone();
    m.reaction(w, "timer")
        .trigger(t)
        .body(move |_, ctx| entry(&l, ctx, format!("{} timer", ctx.reactor_name())));
    (w, inp, out)
}

/// `main.spawner` creates a worker at startup (spawner.out -> worker.in, worker.out ->
/// spawner.back), and on each value coming back sends one and, for `rounds` rounds, deletes the
/// worker and creates the next one.
fn spawner_program(log: &Log, rounds: u32) -> Program {
    let mut b = ProgramBuilder::new();
    let main = b.reactor("main", ());
    let s = b.child(main, "spawner", Spawner::default());
    let out = b.output::<u32, _>(s, "out");
    let back = b.input::<u32, _>(s, "back");
    let spawn = {
        let log = log.clone();
        move |ctx: &motet_reactor_core::Ctx<'_>, n: u32| {
            let log = log.clone();
            ctx.mutate(move |m| {
                let (w, inp, wout) = worker(m, &log, &format!("w{n}"), n);
                m.connect(out, inp);
                m.connect(wout, back);
                let old = m.state_mut(s).and_then(|state| {
                    let old = state.workers.pop();
                    state.workers.push(w);
                    old
                });
                if let Some(old) = old {
                    m.delete(old);
                }
            });
        }
    };
    let sp = spawn.clone();
    b.reaction(s, "start")
        .trigger(Startup)
        .mutates()
        .body(move |_, ctx| sp(ctx, 1));
    let l = log.clone();
    b.reaction(s, "back")
        .trigger(back)
        .effect(out)
        .mutates()
        .body(move |st: &mut Spawner, ctx| {
            let v = *ctx.get(back).unwrap();
            entry(&l, ctx, format!("spawner got {v}"));
            ctx.set(out, v + 1);
            st.rounds += 1;
            if st.rounds < rounds {
                spawn(ctx, st.rounds + 1);
            }
        });
    b.build().unwrap()
}

fn lines(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// A created reactor starts one microstep after the requesting tag; values flow both ways on
/// its connections at once; deleting it drops its pending timer event and frees the spawner's
/// input for the next worker.
/// Without the `mutations` feature (a board's build) every request is rejected and recorded, and
/// the program runs on as if none had been made.
#[test]
#[cfg(not(feature = "mutations"))]
fn requests_are_rejected_without_the_feature() {
    let log = Log::default();
    let mut p = spawner_program(&log, 3);
    let m = run(&mut p).unwrap();
    assert_eq!(m.reactors_created, 0);
    assert_eq!(m.reactors_deleted, 0);
    assert_eq!(
        m.mutations_rejected, 1,
        "the first request; no worker answers, so no second"
    );
    assert_eq!(p.mutation_errors().len(), 1);
    assert!(
        matches!(&p.mutation_errors()[0], BuildError::Mutation { reason, .. }
            if reason.contains("feature `mutations` is off")),
        "{:?}",
        p.mutation_errors()
    );
    assert_eq!(p.graph().reactors.len(), 2, "nothing was created");
    assert!(
        lines(&log).iter().all(|l| !l.contains("main.w")),
        "no created worker ran: {:?}",
        lines(&log)
    );
}

#[test]
#[cfg(feature = "mutations")]
fn create_connect_delete() {
    let log = Log::default();
    let mut p = spawner_program(&log, 3);
    let m = run(&mut p).unwrap();
    assert_eq!(
        lines(&log),
        [
            "0/1 main.w1 start",
            "0/1 spawner got 10",
            "0/1 main.w1 got 11",
            "0/2 main.w2 start",
            "0/2 spawner got 20",
            "0/2 main.w2 got 21",
            "0/3 main.w3 start",
            "0/3 spawner got 30",
            "0/3 main.w3 got 31",
            "1/0 main.w3 timer",
        ]
    );
    assert_eq!(m.reactors_created, 3);
    assert_eq!(m.reactors_deleted, 2);
    assert_eq!(m.events_dropped, 2, "the timers of w1 and w2");
    assert_eq!(m.mutations_rejected, 0);
    assert!(p.mutation_errors().is_empty());
    let g = p.graph();
    assert_eq!(g.reactors.len(), 2 + 3);
    // The levels put each worker's start before the spawner's reaction it feeds.
    let back = g
        .reactions
        .iter()
        .position(|r| r.name == "main.spawner.back")
        .unwrap();
    let start = g
        .reactions
        .iter()
        .position(|r| r.name == "main.w3.start")
        .unwrap();
    assert!(g.reactions[back].level > g.reactions[start].level);
}

/// A mutation that closes a causality loop (spawner.out -> w.in, w's reaction on `in` sets
/// `out`, w.out -> spawner.back, whose reaction sets spawner.out) is rejected naming the loop;
/// the program goes on without it.
#[test]
#[cfg(feature = "mutations")]
fn cycle_is_rejected_and_the_run_goes_on() {
    let log = Log::default();
    let mut b = ProgramBuilder::new();
    let s = b.reactor("s", ());
    let out = b.output::<u32, _>(s, "out");
    let back = b.input::<u32, _>(s, "back");
    let t = b.timer(s, "t", Duration::from_millis(2), Duration::ZERO);
    b.reaction(s, "start")
        .trigger(Startup)
        .mutates()
        .body(move |_, ctx| {
            ctx.mutate(move |m| {
                let w = m.reactor("w", ());
                let inp = m.input::<u32, _>(w, "in");
                let wout = m.output::<u32, _>(w, "out");
                m.reaction(w, "echo")
                    .trigger(inp)
                    .effect(wout)
                    .body(move |_, ctx| ctx.set(wout, *ctx.get(inp).unwrap()));
                m.connect(out, inp);
                m.connect(wout, back);
            });
        });
    b.reaction(s, "loop")
        .trigger(back)
        .effect(out)
        .body(move |_, ctx| ctx.set(out, 1));
    let l = log.clone();
    b.reaction(s, "later")
        .trigger(t)
        .body(move |_, ctx| entry(&l, ctx, "later".into()));
    let mut p = b.build().unwrap();
    let m = run(&mut p).unwrap();
    assert_eq!(lines(&log), ["2/0 later"]);
    assert_eq!(m.reactors_created, 0);
    assert_eq!(m.mutations_rejected, 1);
    match p.mutation_errors() {
        [BuildError::Cycle(path)] => {
            assert_eq!(path.first(), path.last());
            assert!(path.iter().any(|r| r == "w.echo"), "{path:?}");
            assert!(path.iter().any(|r| r == "s.loop"), "{path:?}");
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
    // Nothing of the rejected mutation is left.
    assert_eq!(p.graph().reactors.len(), 1);
    assert!(p.graph().ports.iter().all(|port| port.upstream.is_none()));
}

/// Connecting a created multiport to a program's port list of another width is an error naming
/// the connection; deleting a reactor the requester did not create is one too.
#[test]
#[cfg(feature = "mutations")]
fn width_mismatch_and_foreign_delete_are_rejected() {
    let mut b = ProgramBuilder::new();
    let s = b.reactor("s", ());
    let outs = b.output_multiport::<u32, _>(s, "outs", 3);
    let other = b.reactor("other", ());
    b.reaction(other, "idle").trigger(Startup).body(|_, _| {});
    b.reaction(s, "start")
        .trigger(Startup)
        .mutates()
        .body(move |_, ctx| {
            ctx.mutate(move |m| {
                let w = m.reactor("w", ());
                let ins = m.input_multiport::<u32, _>(w, "ins", 2);
                m.connect(outs, ins);
            });
            ctx.mutate(move |m| m.delete(other));
        });
    let mut p = b.build().unwrap();
    let m = run(&mut p).unwrap();
    assert_eq!(m.mutations_rejected, 2);
    match p.mutation_errors() {
        [BuildError::WidthMismatch {
            connection,
            from: 3,
            to: 2,
        }, BuildError::Mutation { element, .. }] => {
            assert_eq!(connection, "s.outs[0] -> w.ins[0]");
            assert_eq!(element, "other");
        }
        other => panic!("unexpected errors {other:?}"),
    }
}

/// A reaction not declared with `mutates` that requests a mutation faults like any undeclared
/// access.
#[test]
fn undeclared_mutation_is_a_fault() {
    let mut b = ProgramBuilder::new();
    let s = b.reactor("s", ());
    b.reaction(s, "start").trigger(Startup).body(move |_, ctx| {
        ctx.mutate(|m| {
            m.reactor("w", ());
        })
    });
    let mut p = b.build().unwrap();
    match run(&mut p) {
        Err(RunError::Undeclared { reaction, access }) => {
            assert_eq!(reaction, "s.start");
            assert!(access.contains("mutation"), "{access}");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    assert_eq!(p.graph().reactors.len(), 1);
}

/// A chain of creations: each created reactor creates the next at its startup, beside itself,
/// connected from its own output; a value sent before the next reactor exists reaches nobody.
#[test]
#[cfg(feature = "mutations")]
fn created_reactors_create() {
    fn link(m: &mut ProgramBuilder, log: &Log, left: u32) -> Input<u32> {
        let r = m.reactor(&format!("link{left}"), ());
        let inp = m.input::<u32, _>(r, "in");
        let out = m.output::<u32, _>(r, "out");
        let l = log.clone();
        m.reaction(r, "start")
            .trigger(Startup)
            .effect(out)
            .mutates()
            .body(move |_, ctx| {
                entry(&l, ctx, format!("{} start", ctx.reactor_name()));
                ctx.set(out, left);
                if left > 0 {
                    let l = l.clone();
                    ctx.mutate(move |m| {
                        let next = link(m, &l, left - 1);
                        m.connect(out, next);
                    });
                }
            });
        let l = log.clone();
        m.reaction(r, "in").trigger(inp).body(move |_, ctx| {
            entry(
                &l,
                ctx,
                format!("{} got {}", ctx.reactor_name(), ctx.get(inp).unwrap()),
            );
        });
        inp
    }
    let log = Log::default();
    let mut b = ProgramBuilder::new();
    link(&mut b, &log, 2);
    let mut p = b.build().unwrap();
    let m = run(&mut p).unwrap();
    assert_eq!(
        lines(&log),
        ["0/0 link2 start", "0/1 link1 start", "0/2 link0 start"]
    );
    assert_eq!(m.reactors_created, 2);
    let g = p.graph();
    let names: Vec<&str> = g.reactors.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["link2", "link1", "link0"]);
    assert_eq!(g.ports[2].upstream, Some(1), "link1.in <- link2.out");
}
