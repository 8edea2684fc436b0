//! motet's own programs for the scenarios of LF's semantics (notes/reactors-lf.md section 3d), each
//! with the exact event log it must produce. The conformance tests check each log; the determinism
//! test runs every one of them many times on 1, 2 and 8 workers.

use std::fmt::Debug;
use std::time::Duration;

use motet_reactor::{
    ActionSpec, Input, Ports, Program, ProgramBuilder, Reset, Shutdown, SpacingPolicy, Startup,
    Transition,
};

use super::Log;

const ZERO: Duration = Duration::ZERO;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A deterministic program and the log it must produce.
pub struct Scenario {
    pub name: &'static str,
    pub timeout: Option<Duration>,
    pub build: fn(&Log) -> Program,
    pub expected: Vec<String>,
}

fn sc(
    name: &'static str,
    timeout: Option<Duration>,
    build: fn(&Log) -> Program,
    expected: &[&str],
) -> Scenario {
    Scenario {
        name,
        timeout,
        build,
        expected: expected.iter().map(|s| s.to_string()).collect(),
    }
}

/// A reactor `name` whose reaction `log` records every value on its input.
fn sink<T: Debug + Send + Sync + 'static>(
    b: &mut ProgramBuilder,
    log: &Log,
    name: &str,
) -> Input<T> {
    let r = b.reactor(name, ());
    let i = b.input::<T, _>(r, "in");
    let l = log.clone();
    b.reaction(r, "log")
        .trigger(i)
        .body(move |_, ctx| l.record(ctx, format!("{:?}", ctx.get(i).unwrap())));
    i
}

/// Every scenario.
pub fn all() -> Vec<Scenario> {
    let mut v = vec![
        sc("microsteps", None, microsteps, &["(0, 0) d.both: x=Some(1) y=None", "(0, 1) d.both: x=None y=Some(2)"]),
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
        sc("timeout", Some(ms(10)), timeout, &["(0, 0) r.tick: 0", "(5 ms, 0) r.tick: 1", "(10 ms, 0) r.tick: 2", "(10 ms, 0) r.down: timer=true"]),
        sc("timeout_zero", Some(ZERO), timeout_zero, &["(0, 0) r.both: startup=true shutdown=true"]),
        sc("request_stop", None, request_stop, &["(1 ms, 0) r.stop: requested", "(1 ms, 1) r.on_a: a", "(1 ms, 1) r.down: shutdown"]),
        sc("starve", None, starve, &["(1 s, 0) r.tick: tick", "(1 s, 1) r.down: shutdown"]),
        sc("starve_zero", None, starve_zero, &["(0, 1) r.down: shutdown"]),
        sc("stop_idempotent", None, stop_idempotent, &["(0, 1) r.down: shutdown"]),
        sc("stop_clears_ports", None, stop_clears_ports, &["(0, 0) sink.watch: Some(1)", "(0, 1) sink.watch: None"]),
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
        sc("bank_to_multiport", None, bank_to_multiport, &[
            "(0, 0) account.apply: user[0] -> 0", "(0, 0) account.apply: user[1] -> 10",
            "(0, 0) account.apply: user[2] -> 20", "(0, 0) account.apply: user[3] -> 30",
        ]),
        sc("broadcast", None, broadcast, &["(0, 0) w[0].log: 7 at 0", "(0, 0) w[1].log: 7 at 1", "(0, 0) w[2].log: 7 at 2"]),
        sc("fork_join", None, fork_join, &["(0, 0) sink.join: 3 values, sum 12"]),
        sc("fully_connected", None, fully_connected, &[
            "(0, 0) node[0].recv: [(0, 0), (1, 10), (2, 20)]",
            "(0, 0) node[1].recv: [(0, 1), (1, 11), (2, 21)]",
            "(0, 0) node[2].recv: [(0, 2), (1, 12), (2, 22)]",
        ]),
        sc("bank_self_broadcast", None, bank_self_broadcast, &["(0, 0) a[0].recv: [0, 1, 2]", "(0, 0) a[1].recv: [0, 1, 2]", "(0, 0) a[2].recv: [0, 1, 2]"]),
        sc("cascade", None, cascade, &["(0, 0) sink.log: 2"]),
        sc("multiport_to_ports", None, multiport_to_ports, &["(0, 0) b1.log: 1", "(0, 0) b2.log: 2"]),
        sc("width_mismatch", None, width_mismatch, &["(0, 0) sink.log: [0, 1, 2]"]),
        sc("sparse_multiport", Some(ms(10)), sparse_multiport, &[
            "(0, 0) sink.scan: unsorted=[8, 6, 4, 2, 0] sorted=[0, 2, 4, 6, 8] full=[0, 2, 4, 6, 8] count=5",
            "(10 ms, 0) sink.scan: unsorted=[9, 7, 5, 3, 1] sorted=[1, 3, 5, 7, 9] full=[1, 3, 5, 7, 9] count=5",
        ]),
        sc("multiport_after", None, multiport_after, &["(5 ms, 0) sink.log: [(0, 1), (1, 2)]"]),
        sc("multiport_hierarchy", None, multiport_hierarchy, &["(0, 0) outer.inner.sum: 3"]),
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
    ];
    v.push(sc("microstep_counter", None, microstep_counter, &[]));
    let counter = v.last_mut().unwrap();
    counter.expected = (1..=10).map(|k| format!("(0, {k}) m.step: {k}")).collect();
    v
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
    let up = b.reactor("up", ());
    let o = b.output::<u32, _>(up, "out");
    b.reaction(up, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 7));
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

/// A reactor whose reaction forwards its input unchanged.
fn pass(b: &mut ProgramBuilder, name: &str) -> (Input<u32>, motet_reactor::Output<u32>) {
    let r = b.reactor(name, ());
    let i = b.input::<u32, _>(r, "in");
    let o = b.output::<u32, _>(r, "out");
    b.reaction(r, "fwd")
        .trigger(i)
        .effect(o)
        .body(move |_, ctx| {
            let v = *ctx.get(i).unwrap();
            ctx.set(o, v);
        });
    (i, o)
}

fn diamond(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let s = b.reactor("s", ());
    let o = b.output::<u32, _>(s, "out");
    b.reaction(s, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 1));
    let (p1i, p1o) = pass(&mut b, "p1");
    let (p2i, p2o) = pass(&mut b, "p2");
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
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t1 = b.timer(r, "t1", ZERO, ZERO);
    let t2 = b.timer(r, "t2", ZERO, ZERO);
    let l = log.clone();
    b.reaction(r, "both")
        .trigger(t1)
        .trigger(t2)
        .body(move |_, ctx| {
            l.record(
                ctx,
                format!("t1={} t2={}", ctx.is_present(t1), ctx.is_present(t2)),
            );
        });
    b.build().unwrap()
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
    let src = b.reactor("src", ());
    let o = b.output::<u32, _>(src, "out");
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 5));
    let outer = b.reactor("outer", ());
    let oin = b.input::<u32, _>(outer, "in");
    let oout = b.output::<u32, _>(outer, "out");
    let inner = b.child(outer, "inner", ());
    let iin = b.input::<u32, _>(inner, "in");
    let iout = b.output::<u32, _>(inner, "out");
    b.reaction(inner, "double")
        .trigger(iin)
        .effect(iout)
        .body(move |_, ctx| {
            let v = *ctx.get(iin).unwrap();
            ctx.set(iout, v * 2);
        });
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
    let cin = b.input::<u32, _>(c, "in");
    let cout = b.output::<u32, _>(c, "out");
    b.reaction(c, "double")
        .trigger(cin)
        .effect(cout)
        .body(move |_, ctx| {
            let v = *ctx.get(cin).unwrap();
            ctx.set(cout, v * 2);
        });
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
    let l = log.clone();
    b.reaction(r, "never")
        .trigger(a)
        .body(move |_, ctx| l.record(ctx, "must not run"));
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
    let l = log.clone();
    b.reaction(r, "timer")
        .trigger(t)
        .body(move |_, ctx| l.record(ctx, "must not run"));
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
    let l = log.clone();
    b.reaction(r, "on_a")
        .trigger(a)
        .body(move |_, ctx| l.record(ctx, "a"));
    let l = log.clone();
    b.reaction(r, "t2")
        .trigger(t2)
        .body(move |_, ctx| l.record(ctx, "must not run"));
    let l = log.clone();
    b.reaction(r, "down")
        .trigger(Shutdown)
        .body(move |_, ctx| l.record(ctx, "shutdown"));
    b.build().unwrap()
}

fn starve(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", Duration::from_secs(1), ZERO);
    let l = log.clone();
    b.reaction(r, "tick")
        .trigger(t)
        .body(move |_, ctx| l.record(ctx, "tick"));
    let l = log.clone();
    b.reaction(r, "down")
        .trigger(Shutdown)
        .body(move |_, ctx| l.record(ctx, "shutdown"));
    b.build().unwrap()
}

fn starve_zero(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let l = log.clone();
    b.reaction(r, "down")
        .trigger(Shutdown)
        .body(move |_, ctx| l.record(ctx, "shutdown"));
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

fn timer_is_present(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t1 = b.timer(r, "t1", ZERO, ms(50));
    let t2 = b.timer(r, "t2", ms(33), ms(33));
    let l = log.clone();
    b.reaction(r, "check")
        .trigger(t1)
        .trigger(t2)
        .body(move |_, ctx| {
            l.record(
                ctx,
                format!("t1={} t2={}", ctx.is_present(t1), ctx.is_present(t2)),
            );
        });
    b.build().unwrap()
}

fn timer_once(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", ms(20), ZERO);
    let l = log.clone();
    b.reaction(r, "tick")
        .trigger(t)
        .body(move |_, ctx| l.record(ctx, "once"));
    b.build().unwrap()
}

fn action_delay_values(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a = b.logical_action::<i32, _>(r, "a", ms(100));
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(a)
        .body(move |_, ctx| {
            ctx.schedule(a, 100, ZERO);
            ctx.schedule(a, -100, ms(50));
        });
    let l = log.clone();
    b.reaction(r, "recv")
        .trigger(a)
        .body(move |_, ctx| l.record(ctx, ctx.get(a).unwrap()));
    b.build().unwrap()
}

fn action_same_tag(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a = b.logical_action::<i32, _>(r, "a", ZERO);
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(a)
        .body(move |_, ctx| {
            ctx.schedule(a, 1, ZERO);
            ctx.schedule(a, 2, ZERO);
        });
    let l = log.clone();
    b.reaction(r, "recv")
        .trigger(a)
        .body(move |_, ctx| l.record(ctx, ctx.get(a).unwrap()));
    b.build().unwrap()
}

fn spaced(log: &Log, policy: SpacingPolicy) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a =
        b.logical_action_with::<i32, _>(r, "a", ActionSpec::delay(ZERO).spacing(ms(10), policy));
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(a)
        .body(move |_, ctx| {
            ctx.schedule(a, 1, ms(1));
            ctx.schedule(a, 2, ms(2));
            ctx.schedule(a, 3, ms(3));
        });
    let l = log.clone();
    b.reaction(r, "recv")
        .trigger(a)
        .body(move |_, ctx| l.record(ctx, ctx.get(a).unwrap()));
    b.build().unwrap()
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

fn counter_source(b: &mut ProgramBuilder, period: Duration) -> motet_reactor::Output<u32> {
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
    let src = b.reactor("src", ());
    let o = b.output::<u32, _>(src, "out");
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 5));
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

fn bank_to_multiport(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let outs = b.bank(4, |b, i| {
        let u = b.reactor(&format!("user[{i}]"), i as u32);
        let o = b.output::<u32, _>(u, "req");
        b.reaction(u, "send")
            .trigger(Startup)
            .effect(o)
            .body(move |idx, ctx| ctx.set(o, *idx * 10));
        o
    });
    let acc = b.reactor("account", ());
    let req = b.input_multiport::<u32, _>(acc, "req", 4);
    let l = log.clone();
    b.reaction(acc, "apply").trigger(req).body(move |_, ctx| {
        for (i, v) in ctx.present_sorted(req) {
            l.record(ctx, format!("user[{i}] -> {v}"));
        }
    });
    b.connect(outs, req);
    b.build().unwrap()
}

fn broadcast(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output::<u32, _>(src, "out");
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 7));
    let ins = b.bank(3, |b, i| {
        let w = b.reactor(&format!("w[{i}]"), i);
        let inp = b.input::<u32, _>(w, "in");
        let l = log.clone();
        b.reaction(w, "log")
            .trigger(inp)
            .body(move |idx, ctx| l.record(ctx, format!("{} at {idx}", ctx.get(inp).unwrap())));
        inp
    });
    b.connect_broadcast(o, ins);
    b.build().unwrap()
}

fn fork_join(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output_multiport::<u32, _>(src, "out", 3);
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            for c in 0..3 {
                ctx.set(o.channel(c), c as u32 + 1);
            }
        });
    let workers = b.bank(3, |b, i| {
        let (inp, out) = {
            let w = b.reactor(&format!("wrk[{i}]"), ());
            let inp = b.input::<u32, _>(w, "in");
            let out = b.output::<u32, _>(w, "out");
            b.reaction(w, "double")
                .trigger(inp)
                .effect(out)
                .body(move |_, ctx| {
                    let v = *ctx.get(inp).unwrap();
                    ctx.set(out, v * 2);
                });
            (inp, out)
        };
        (inp, out)
    });
    let s = b.reactor("sink", ());
    let i = b.input_multiport::<u32, _>(s, "in", 3);
    let l = log.clone();
    b.reaction(s, "join").trigger(i).body(move |_, ctx| {
        let n = ctx.present_count(i);
        let sum: u32 = ctx.present(i).map(|(_, v)| *v).sum();
        l.record(ctx, format!("{n} values, sum {sum}"));
    });
    b.connect(o, workers.iter().map(|w| w.0).collect::<Ports<u32>>());
    b.connect(workers.iter().map(|w| w.1).collect::<Ports<u32>>(), i);
    b.build().unwrap()
}

fn fully_connected(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let nodes = b.bank(3, |b, i| {
        let n = b.reactor(&format!("node[{i}]"), i as u32);
        let o = b.output_multiport::<u32, _>(n, "out", 3);
        let inp = b.input_multiport::<u32, _>(n, "in", 3);
        b.reaction(n, "send")
            .trigger(Startup)
            .effect(o)
            .body(move |me, ctx| {
                for j in 0..3 {
                    ctx.set(o.channel(j), *me * 10 + j as u32);
                }
            });
        let l = log.clone();
        b.reaction(n, "recv").trigger(inp).body(move |_, ctx| {
            let got: Vec<(usize, u32)> = ctx.present_sorted(inp).map(|(c, v)| (c, *v)).collect();
            l.record(ctx, format!("{got:?}"));
        });
        (o, inp)
    });
    let outs: Ports<u32> = nodes.iter().map(|n| n.0).collect();
    b.connect(outs, Ports::interleaved(nodes.iter().map(|n| n.1)));
    b.build().unwrap()
}

fn bank_self_broadcast(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let members = b.bank(3, |b, i| {
        let a = b.reactor(&format!("a[{i}]"), i as u32);
        let o = b.output::<u32, _>(a, "out");
        let inp = b.input_multiport::<u32, _>(a, "in", 3);
        b.reaction(a, "send")
            .trigger(Startup)
            .effect(o)
            .body(move |me, ctx| ctx.set(o, *me));
        let l = log.clone();
        b.reaction(a, "recv").trigger(inp).body(move |_, ctx| {
            let got: Vec<u32> = ctx.present_sorted(inp).map(|(_, v)| *v).collect();
            l.record(ctx, format!("{got:?}"));
        });
        (o, inp)
    });
    let outs: Ports<u32> = members.iter().map(|m| m.0).collect();
    let ins: Ports<u32> = members.iter().map(|m| m.1).collect();
    b.connect_broadcast(outs, ins);
    b.build().unwrap()
}

fn plus_one(b: &mut ProgramBuilder, name: &str) -> (Input<u32>, motet_reactor::Output<u32>) {
    let r = b.reactor(name, ());
    let i = b.input::<u32, _>(r, "in");
    let o = b.output::<u32, _>(r, "out");
    b.reaction(r, "inc")
        .trigger(i)
        .effect(o)
        .body(move |_, ctx| {
            let v = *ctx.get(i).unwrap();
            ctx.set(o, v + 1);
        });
    (i, o)
}

fn cascade(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output::<u32, _>(src, "out");
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 0));
    let (ai, ao) = plus_one(&mut b, "a");
    let (bi, bo) = plus_one(&mut b, "b");
    let s = sink::<u32>(&mut b, log, "sink");
    b.connect(
        Ports::from(o).and(ao).and(bo),
        Ports::from(ai).and(bi).and(s),
    );
    b.build().unwrap()
}

fn multiport_to_ports(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("a", ());
    let o = b.output_multiport::<u32, _>(a, "out", 2);
    b.reaction(a, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            ctx.set(o.channel(0), 1);
            ctx.set(o.channel(1), 2);
        });
    let b1 = sink::<u32>(&mut b, log, "b1");
    let b2 = sink::<u32>(&mut b, log, "b2");
    b.connect(o, [b1, b2]);
    b.build().unwrap()
}

fn width_mismatch(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("src", ());
    let o = b.output_multiport::<u32, _>(a, "out", 3);
    b.reaction(a, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            for c in 0..3 {
                ctx.set(o.channel(c), c as u32);
            }
        });
    let s = b.reactor("sink", ());
    let i = b.input_multiport::<u32, _>(s, "in", 4);
    let l = log.clone();
    b.reaction(s, "log").trigger(i).body(move |_, ctx| {
        let got: Vec<usize> = ctx.present_sorted(i).map(|(c, _)| c).collect();
        l.record(ctx, format!("{got:?}"));
    });
    b.connect(o, i);
    let p = b.build().unwrap();
    assert_eq!(p.warnings().len(), 1, "a width mismatch warns");
    p
}

fn sparse_multiport(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("src", 0usize);
    let t = b.timer(a, "t", ZERO, ms(10));
    let o = b.output_multiport::<u32, _>(a, "out", 10);
    b.reaction(a, "emit")
        .trigger(t)
        .effect(o)
        .body(move |k, ctx| {
            for c in (0..10).rev().filter(|c| c % 2 == *k % 2) {
                ctx.set(o.channel(c), c as u32);
            }
            *k += 1;
        });
    let s = b.reactor("sink", ());
    let i = b.input_multiport::<u32, _>(s, "in", 10);
    let l = log.clone();
    b.reaction(s, "scan").trigger(i).body(move |_, ctx| {
        let unsorted: Vec<usize> = ctx.present(i).map(|(c, _)| c).collect();
        let sorted: Vec<usize> = ctx.present_sorted(i).map(|(c, _)| c).collect();
        let full: Vec<usize> = (0..10)
            .filter(|&c| ctx.get(i.channel(c)).is_some())
            .collect();
        l.record(
            ctx,
            format!(
                "unsorted={unsorted:?} sorted={sorted:?} full={full:?} count={}",
                ctx.present_count(i)
            ),
        );
    });
    b.connect(o, i);
    b.build().unwrap()
}

fn multiport_after(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("src", ());
    let o = b.output_multiport::<u32, _>(a, "out", 2);
    b.reaction(a, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            ctx.set(o.channel(0), 1);
            ctx.set(o.channel(1), 2);
        });
    let s = b.reactor("sink", ());
    let i = b.input_multiport::<u32, _>(s, "in", 2);
    let l = log.clone();
    b.reaction(s, "log").trigger(i).body(move |_, ctx| {
        let got: Vec<(usize, u32)> = ctx.present_sorted(i).map(|(c, v)| (c, *v)).collect();
        l.record(ctx, format!("{got:?}"));
    });
    b.connect_after(o, i, ms(5));
    b.build().unwrap()
}

fn multiport_hierarchy(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("src", ());
    let o = b.output_multiport::<u32, _>(a, "out", 2);
    b.reaction(a, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| {
            ctx.set(o.channel(0), 1);
            ctx.set(o.channel(1), 2);
        });
    let outer = b.reactor("outer", ());
    let oin = b.input_multiport::<u32, _>(outer, "in", 2);
    let inner = b.child(outer, "inner", ());
    let iin = b.input_multiport::<u32, _>(inner, "in", 2);
    let l = log.clone();
    b.reaction(inner, "sum")
        .trigger(iin)
        .body(move |_, ctx| l.record(ctx, ctx.present(iin).map(|(_, v)| *v).sum::<u32>()));
    b.connect(oin, iin);
    b.connect(o, oin);
    b.build().unwrap()
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
    let l = log.clone();
    b.reaction(run, "entered")
        .trigger(Reset)
        .body(move |_, ctx| l.record(ctx, "reset"));
    let l = log.clone();
    b.reaction(run, "tick")
        .trigger(tick)
        .body(move |_, ctx| l.record(ctx, "tick"));
    b.build().unwrap()
}
