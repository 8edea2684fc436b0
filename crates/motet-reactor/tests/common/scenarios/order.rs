//! The order of events within a run: microsteps, the order of reactions at a tag (uses, diamonds,
//! reactions triggered twice), what a port holds when it is not set, and ports across levels of
//! the hierarchy.

use motet_reactor::{Program, ProgramBuilder, Startup};

use super::{ms, sc, two_timers, Scenario, ZERO};
use crate::common::reactors::{relay, sink, startup_source};
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        sc("microsteps", None, microsteps, &["(0, 0) d.both: x=Some(1) y=None", "(0, 1) d.both: x=None y=Some(2)"]),
        Scenario {
            name: "microstep_counter", timeout: None, build: microstep_counter,
            expected: (1..=10).map(|k| format!("(0, {k}) m.step: {k}")).collect(),
        },
        sc("reaction_order_uses", None, reaction_order_uses, &["(0, 0) down.start: Some(7)"]),
        sc("diamond", None, diamond, &["(0, 0) d.sum: 2"]),
        sc("double_invocation", None, double_invocation, &["(0, 0) down.both: a=Some(1) b=Some(2)"]),
        sc("double_trigger", None, double_trigger, &["(0, 0) r.both: t1=true t2=true"]),
        sc("previous_output", Some(ms(20)), previous_output, &["(0, 0) sink.log: 0", "(10 ms, 0) sink.log: 99", "(20 ms, 0) sink.log: 2"]),
        sc("only_if_present", None, only_if_present, &["(0, 1) sink.on_a: b=None"]),
        sc("hierarchy", None, hierarchy, &["(0, 0) sink2.log: 5", "(0, 0) sink.log: 10"]),
        sc("sending_inside", None, sending_inside, &["(0, 0) box.read: 42"]),
        sc("moving_average", Some(ms(50)), moving_average, &[
            "(0, 0) avg.log: 0", "(10 ms, 0) avg.log: 0.25", "(20 ms, 0) avg.log: 0.75",
            "(30 ms, 0) avg.log: 1.5", "(40 ms, 0) avg.log: 2.5", "(50 ms, 0) avg.log: 3.5",
        ]),
    ]
}

fn microsteps(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let x = b.output::<u32, _>(src, "x");
    let y = b.output::<u32, _>(src, "y");
    let t = b.timer(src, "t", ZERO, ZERO);
    let a = b.logical_action::<(), _>(src, "a", ZERO);
    b.reaction(src, "first")
        .trigger(t)
        .effect(x)
        .effect(a)
        .body(move |_, ctx| {
            ctx.set(x, 1);
            ctx.schedule(a, (), ZERO);
        });
    b.reaction(src, "later")
        .trigger(a)
        .effect(y)
        .body(move |_, ctx| ctx.set(y, 2));
    let d = b.reactor("d", ());
    let dx = b.input::<u32, _>(d, "x");
    let dy = b.input::<u32, _>(d, "y");
    let l = log.clone();
    b.reaction(d, "both")
        .trigger(dx)
        .trigger(dy)
        .body(move |_, ctx| {
            l.record(ctx, format!("x={:?} y={:?}", ctx.get(dx), ctx.get(dy)));
        });
    b.connect(x, dx);
    b.connect(y, dy);
    b.build().unwrap()
}

fn microstep_counter(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("m", 0u32);
    let a = b.logical_action::<(), _>(r, "a", ZERO);
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(a)
        .body(move |_, ctx| ctx.schedule(a, (), ZERO));
    let l = log.clone();
    b.reaction(r, "step")
        .trigger(a)
        .effect(a)
        .body(move |n, ctx| {
            *n += 1;
            l.record(ctx, ctx.microstep());
            if *n < 10 {
                ctx.schedule(a, (), ZERO);
            }
        });
    b.build().unwrap()
}

fn reaction_order_uses(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_source(&mut b, "up", 7);
    let down = b.reactor("down", ());
    let i = b.input::<u32, _>(down, "in");
    let l = log.clone();
    b.reaction(down, "start")
        .trigger(Startup)
        .source(i)
        .body(move |_, ctx| l.record(ctx, format!("{:?}", ctx.get(i))));
    b.connect(o, i);
    b.build().unwrap()
}

fn diamond(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_source(&mut b, "s", 1);
    let p1 = b.reactor("p1", ());
    let (p1i, p1o) = relay(&mut b, p1, "fwd", |v| v);
    let p2 = b.reactor("p2", ());
    let (p2i, p2o) = relay(&mut b, p2, "fwd", |v| v);
    let d = b.reactor("d", ());
    let x = b.input::<u32, _>(d, "x");
    let y = b.input::<u32, _>(d, "y");
    let l = log.clone();
    b.reaction(d, "sum")
        .trigger(x)
        .trigger(y)
        .body(move |_, ctx| {
            l.record(ctx, ctx.get(x).unwrap_or(&0) + ctx.get(y).unwrap_or(&0));
        });
    b.connect(o, y);
    b.connect(o, p1i);
    b.connect(p1o, p2i);
    b.connect(p2o, x);
    b.build().unwrap()
}

fn double_invocation(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let up = b.reactor("up", ());
    let o1 = b.output::<u32, _>(up, "o1");
    let o2 = b.output::<u32, _>(up, "o2");
    b.reaction(up, "start")
        .trigger(Startup)
        .effect(o1)
        .effect(o2)
        .body(move |_, ctx| {
            ctx.set(o1, 1);
            ctx.set(o2, 2);
        });
    let down = b.reactor("down", ());
    let i1 = b.input::<u32, _>(down, "a");
    let i2 = b.input::<u32, _>(down, "b");
    let l = log.clone();
    b.reaction(down, "both")
        .trigger(i1)
        .trigger(i2)
        .body(move |_, ctx| {
            l.record(ctx, format!("a={:?} b={:?}", ctx.get(i1), ctx.get(i2)));
        });
    b.connect(o1, i1);
    b.connect(o2, i2);
    b.build().unwrap()
}

fn double_trigger(log: &Log) -> Program {
    two_timers(log, "both", (ZERO, ZERO), (ZERO, ZERO))
}

fn previous_output(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("src", 0u32);
    let t = b.timer(r, "t", ZERO, ms(10));
    let o = b.output::<u32, _>(r, "out");
    b.reaction(r, "even")
        .trigger(t)
        .effect(o)
        .body(move |k, ctx| {
            if *k % 2 == 0 {
                ctx.set(o, *k);
            }
            *k += 1;
        });
    b.reaction(r, "fill")
        .trigger(t)
        .effect(o)
        .body(move |_, ctx| {
            if !ctx.is_present(o) {
                ctx.set(o, 99);
            }
        });
    let i = sink::<u32>(&mut b, log, "sink");
    b.connect(o, i);
    b.build().unwrap()
}

fn only_if_present(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let oa = b.output::<u32, _>(src, "a");
    let ob = b.output::<u32, _>(src, "b");
    let act = b.logical_action::<(), _>(src, "next", ZERO);
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(ob)
        .effect(act)
        .body(move |_, ctx| {
            ctx.set(ob, 1);
            ctx.schedule(act, (), ZERO);
        });
    b.reaction(src, "next")
        .trigger(act)
        .effect(oa)
        .body(move |_, ctx| ctx.set(oa, 2));
    let s = b.reactor("sink", ());
    let ia = b.input::<u32, _>(s, "a");
    let ib = b.input::<u32, _>(s, "b");
    let l = log.clone();
    b.reaction(s, "on_a")
        .trigger(ia)
        .source(ib)
        .body(move |_, ctx| l.record(ctx, format!("b={:?}", ctx.get(ib))));
    b.connect(oa, ia);
    b.connect(ob, ib);
    b.build().unwrap()
}

fn hierarchy(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_source(&mut b, "src", 5);
    let outer = b.reactor("outer", ());
    let oin = b.input::<u32, _>(outer, "in");
    let oout = b.output::<u32, _>(outer, "out");
    let inner = b.child(outer, "inner", ());
    let (iin, iout) = relay(&mut b, inner, "double", |v| v * 2);
    b.connect(oin, iin);
    b.connect(iout, oout);
    let passr = b.reactor("pass", ());
    let pin = b.input::<u32, _>(passr, "in");
    let pout = b.output::<u32, _>(passr, "out");
    b.connect(pin, pout);
    let s1 = sink::<u32>(&mut b, log, "sink");
    let s2 = sink::<u32>(&mut b, log, "sink2");
    b.connect(o, oin);
    b.connect(oout, s1);
    b.connect(o, pin);
    b.connect(pout, s2);
    b.build().unwrap()
}

fn sending_inside(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let bx = b.reactor("box", ());
    let c = b.child(bx, "c", ());
    let (cin, cout) = relay(&mut b, c, "double", |v| v * 2);
    b.reaction(bx, "write")
        .trigger(Startup)
        .effect(cin)
        .body(move |_, ctx| ctx.set(cin, 21));
    let l = log.clone();
    b.reaction(bx, "read")
        .trigger(cout)
        .body(move |_, ctx| l.record(ctx, ctx.get(cout).unwrap()));
    b.build().unwrap()
}

fn moving_average(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", 0u32);
    let t = b.timer(src, "t", ZERO, ms(10));
    let o = b.output::<f64, _>(src, "out");
    b.reaction(src, "emit")
        .trigger(t)
        .effect(o)
        .body(move |k, ctx| {
            ctx.set(o, f64::from(*k));
            *k += 1;
        });
    let avg = b.reactor("avg", [0.0f64; 4]);
    let i = b.input::<f64, _>(avg, "in");
    let l = log.clone();
    b.reaction(avg, "log")
        .trigger(i)
        .body(move |w: &mut [f64; 4], ctx| {
            w.rotate_right(1);
            w[0] = *ctx.get(i).unwrap();
            l.record(ctx, w.iter().sum::<f64>() / 4.0);
        });
    b.connect(o, i);
    b.build().unwrap()
}
