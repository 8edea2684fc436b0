//! Zero-delay cycles between federates, run over the in-memory transport: the federates process
//! tags provisionally, wait at the levels of reactions that read unknown inputs, and tell each
//! other of absent outputs. Every run's tag-ordered event log must be the whole program's, over
//! many runs (the threads interleave differently each time).

use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use motet_federated::transport::memory::network;
use motet_federated::{
    run_coordinator, CoordinatorOptions, FederateOptions, FederatedBuilder, FederatedError,
    FederatedProgram, Role,
};
use motet_reactor_core::{Ctx, RunOptions};

/// One logged event: time (ns), microstep, what, value.
type Entry = (u64, u32, String, i64);
type Log = Arc<Mutex<Vec<Entry>>>;

fn log(l: &Log, ctx: &Ctx<'_>, what: &str, v: i64) {
    let t = ctx.tag();
    l.lock()
        .unwrap()
        .push((t.nanos(), t.microstep(), what.to_string(), v));
}

fn options() -> RunOptions {
    RunOptions {
        fast: true,
        timeout: Some(Duration::from_millis(30)),
    }
}

/// Runs the whole program in one process; its log, sorted.
fn whole(build: impl Fn(Role) -> (FederatedProgram, Log)) -> Vec<Entry> {
    let (mut prog, log) = build(Role::Whole);
    prog.run_whole(&options()).unwrap();
    let mut l = log.lock().unwrap().clone();
    l.sort();
    l
}

/// Runs every federate of `build` on a thread of its own, with the coordinator on another;
/// returns the federates' logs together, sorted. A federation that does not finish within a
/// generous bound (a deadlock) fails the test instead of hanging it.
fn federated(names: &[&str], build: impl Fn(Role) -> (FederatedProgram, Log)) -> Vec<Entry> {
    let topo = build(Role::Whole).0.topology().clone();
    let (rti, ends) = network(names.len());
    let (done_tx, done) = mpsc::channel();
    {
        let done_tx = done_tx.clone();
        thread::spawn(move || {
            let opts = CoordinatorOptions {
                start_delay: Duration::ZERO,
                join_timeout: Duration::from_secs(30),
            };
            let r = run_coordinator(topo, &rti, &opts).map(|_| None);
            let _ = done_tx.send(("coordinator".to_string(), r));
        });
    }
    for (name, end) in names.iter().zip(ends) {
        let (mut prog, log) = build(Role::Federate(name.to_string()));
        let opts = FederateOptions {
            run: options(),
            join_timeout: Duration::from_secs(30),
        };
        let done_tx = done_tx.clone();
        let name = name.to_string();
        thread::spawn(move || {
            let r = prog.run_federate(&end, &opts).map(|_| Some(log));
            let _ = done_tx.send((name, r));
        });
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut all = Vec::new();
    for _ in 0..=names.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let (name, r) = done
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("the federation did not finish within 60 s"));
        match r {
            Ok(Some(log)) => all.extend(log.lock().unwrap().iter().cloned()),
            Ok(None) => {}
            Err(e) => panic!("{name}: {e}"),
        }
    }
    all.sort();
    all
}

/// `a` ticks every millisecond and sends its count to `b`, which answers at the same tag with
/// ten times the value; `a` logs the answer. With `gaps`, `a` sends nothing at every fourth tick
/// and `b` answers nothing to multiples of three (absent outputs at those tags), and `b` also
/// sends on a timer of its own (every 1.5 ms from 0.5 ms) at tags where `a` has nothing to do.
fn ping_pong(role: Role, gaps: bool) -> (FederatedProgram, Log) {
    ping_pong_until(role, gaps, None)
}

/// [`ping_pong`], where `a` requests a stop at its tick `stop` if given.
fn ping_pong_until(role: Role, gaps: bool, stop: Option<i64>) -> (FederatedProgram, Log) {
    let l: Log = Arc::default();
    let mut b = FederatedBuilder::new(role);
    let (fa, fb) = (b.federate("a"), b.federate("b"));

    let a = b.reactor("a", 0i64);
    let tick = b.timer(a, "tick", Duration::ZERO, Duration::from_millis(1));
    let a_out = b.output::<i64, _>(a, "out");
    let a_in = b.input::<i64, _>(a, "in");
    let a_side = b.input::<i64, _>(a, "side");
    {
        let l = l.clone();
        b.reaction(a, "tick")
            .trigger(tick)
            .effect(a_out)
            .body(move |n: &mut i64, ctx| {
                *n += 1;
                log(&l, ctx, "a tick", *n);
                if !gaps || *n % 4 != 0 {
                    ctx.set(a_out, *n);
                }
                if stop == Some(*n) {
                    ctx.request_stop();
                }
            });
    }
    {
        let l = l.clone();
        b.reaction(a, "answer")
            .trigger(a_in)
            .body(move |_, ctx| log(&l, ctx, "a answer", *ctx.get(a_in).unwrap()));
    }
    {
        let l = l.clone();
        b.reaction(a, "side")
            .trigger(a_side)
            .body(move |_, ctx| log(&l, ctx, "a side", *ctx.get(a_side).unwrap()));
    }

    let r = b.reactor("b", 0i64);
    let b_in = b.input::<i64, _>(r, "in");
    let b_out = b.output::<i64, _>(r, "out");
    {
        let l = l.clone();
        b.reaction(r, "relay")
            .trigger(b_in)
            .effect(b_out)
            .body(move |_, ctx| {
                let v = *ctx.get(b_in).unwrap();
                log(&l, ctx, "b got", v);
                if !gaps || v % 3 != 0 {
                    ctx.set(b_out, v * 10);
                }
            });
    }
    b.assign(a, fa);
    b.assign(r, fb);
    b.connect_federated(a_out, b_in);
    b.connect_federated(b_out, a_in);
    if gaps {
        let own = b.timer(
            r,
            "own",
            Duration::from_micros(500),
            Duration::from_micros(1500),
        );
        let side = b.output::<i64, _>(r, "side");
        let l = l.clone();
        b.reaction(r, "own")
            .trigger(own)
            .effect(side)
            .body(move |n: &mut i64, ctx| {
                *n += 1;
                log(&l, ctx, "b own", *n);
                ctx.set(side, -*n);
            });
        b.connect_federated(side, a_side);
    }
    (b.build().unwrap(), l)
}

#[test]
fn a_two_federate_zero_delay_cycle_gives_the_whole_log() {
    let build = |role| ping_pong(role, false);
    let expected = whole(build);
    // 31 ticks (0 to 30 ms), each answered.
    assert_eq!(expected.iter().filter(|e| e.2 == "a answer").count(), 31);
    for _ in 0..30 {
        assert_eq!(federated(&["a", "b"], build), expected);
    }
}

#[test]
fn a_zero_delay_cycle_with_absent_outputs_gives_the_whole_log() {
    let build = |role| ping_pong(role, true);
    let expected = whole(build);
    let count = |what: &str| expected.iter().filter(|e| e.2 == what).count();
    // Some ticks send nothing, some answers are absent, and `b` sends on its own timer.
    assert!(count("b got") < count("a tick"), "{expected:?}");
    assert!(count("a answer") < count("b got"), "{expected:?}");
    assert!(count("a side") > 10, "{expected:?}");
    for _ in 0..30 {
        assert_eq!(federated(&["a", "b"], build), expected);
    }
}

/// A stop requested in one federate of a zero-delay cycle ends both where the whole program
/// ends.
#[test]
fn a_stop_in_a_zero_delay_cycle_ends_both_at_the_same_tag() {
    let build = |role| ping_pong_until(role, true, Some(7));
    let expected = whole(build);
    assert_eq!(
        expected.iter().filter(|e| e.2 == "a tick").count(),
        7,
        "{expected:?}"
    );
    for _ in 0..30 {
        assert_eq!(federated(&["a", "b"], build), expected);
    }
}

/// Three federates: `a -> b` and `b -> a` without delay (a zero-delay cycle), `b -> c` without
/// delay, and `c -> a` after 2 ms (a cycle through all three with a delay). `a` ticks every
/// millisecond and sends to `b`; `b` answers `a` and passes the value on to `c`; `c` sends it
/// back to `a`, 2 ms later.
fn triangle(role: Role) -> (FederatedProgram, Log) {
    let l: Log = Arc::default();
    let mut b = FederatedBuilder::new(role);
    let [fa, fb, fc] = ["a", "b", "c"].map(|f| b.federate(f));

    let a = b.reactor("a", 0i64);
    let tick = b.timer(a, "tick", Duration::ZERO, Duration::from_millis(1));
    let a_out = b.output::<i64, _>(a, "out");
    let a_in = b.input::<i64, _>(a, "in");
    let a_back = b.input::<i64, _>(a, "back");
    {
        let l = l.clone();
        b.reaction(a, "tick")
            .trigger(tick)
            .effect(a_out)
            .body(move |n: &mut i64, ctx| {
                *n += 1;
                log(&l, ctx, "a tick", *n);
                ctx.set(a_out, *n);
            });
    }
    {
        let l = l.clone();
        b.reaction(a, "heard")
            .trigger(a_in)
            .trigger(a_back)
            .body(move |_, ctx| {
                let v = ctx.get(a_in).copied().unwrap_or(0);
                let w = ctx.get(a_back).copied().unwrap_or(0);
                log(&l, ctx, "a heard", v * 1000 + w);
            });
    }

    let r = b.reactor("b", ());
    let b_in = b.input::<i64, _>(r, "in");
    let b_out = b.output::<i64, _>(r, "out");
    let b_on = b.output::<i64, _>(r, "on");
    {
        let l = l.clone();
        b.reaction(r, "relay")
            .trigger(b_in)
            .effect(b_out)
            .effect(b_on)
            .body(move |_, ctx| {
                let v = *ctx.get(b_in).unwrap();
                log(&l, ctx, "b got", v);
                ctx.set(b_out, v + 1);
                if v % 2 == 0 {
                    ctx.set(b_on, v);
                }
            });
    }

    let c = b.reactor("c", ());
    let c_in = b.input::<i64, _>(c, "in");
    let c_out = b.output::<i64, _>(c, "out");
    {
        let l = l.clone();
        b.reaction(c, "back")
            .trigger(c_in)
            .effect(c_out)
            .body(move |_, ctx| {
                let v = *ctx.get(c_in).unwrap();
                log(&l, ctx, "c got", v);
                ctx.set(c_out, v * 7);
            });
    }
    b.assign(a, fa);
    b.assign(r, fb);
    b.assign(c, fc);
    b.connect_federated(a_out, b_in);
    b.connect_federated(b_out, a_in);
    b.connect_federated(b_on, c_in);
    b.connect_federated_after(c_out, a_back, Duration::from_millis(2));
    (b.build().unwrap(), l)
}

#[test]
fn a_three_federate_cycle_with_a_delay_and_a_zero_delay_cycle_gives_the_whole_log() {
    let expected = whole(triangle);
    assert!(expected.iter().any(|e| e.2 == "c got"), "{expected:?}");
    // `a` hears from `b` and from `c` at the same tag at times (both parts nonzero).
    assert!(
        expected
            .iter()
            .any(|e| e.2 == "a heard" && e.3 % 1000 != 0 && e.3 / 1000 != 0),
        "{expected:?}"
    );
    for _ in 0..30 {
        assert_eq!(federated(&["a", "b", "c"], triangle), expected);
    }
}

/// `a -> b -> a` without delay where each reaction reads the other's output and sets its own:
/// a causality loop of the whole program, refused in every role.
#[test]
fn a_zero_delay_cycle_that_is_a_causality_loop_is_refused() {
    for role in [Role::Whole, Role::Federate("a".into())] {
        let mut b = FederatedBuilder::new(role.clone());
        let (fa, fb) = (b.federate("a"), b.federate("b"));
        let x = b.reactor("x", ());
        let xo = b.output::<u32, _>(x, "out");
        let xi = b.input::<u32, _>(x, "in");
        b.reaction(x, "r")
            .trigger(xi)
            .effect(xo)
            .body(move |_, ctx| ctx.set(xo, *ctx.get(xi).unwrap()));
        let y = b.reactor("y", ());
        let yo = b.output::<u32, _>(y, "out");
        let yi = b.input::<u32, _>(y, "in");
        b.reaction(y, "r")
            .trigger(yi)
            .effect(yo)
            .body(move |_, ctx| ctx.set(yo, *ctx.get(yi).unwrap()));
        b.assign(x, fa);
        b.assign(y, fb);
        b.connect_federated(xo, yi);
        b.connect_federated(yo, xi);
        let err = b.build().unwrap_err();
        assert!(matches!(&err, FederatedError::Build(_)), "{role:?}: {err}");
    }
}

/// A zero-delay cycle between federates whose reactions do not form a loop builds in every role.
#[test]
fn a_zero_delay_cycle_without_a_causality_loop_builds() {
    for role in [
        Role::Whole,
        Role::Federate("a".into()),
        Role::Federate("b".into()),
    ] {
        let (p, _) = ping_pong(role, true);
        assert_eq!(p.topology().zero_delay_cycles(), [0, 1]);
    }
}
