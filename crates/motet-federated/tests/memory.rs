//! Federated runs in one process: each federate on a thread, over the in-memory transport. The
//! event log must be the whole program's; a federate that vanishes is reported to the others,
//! which run to their end; a stop requested in one federate ends every federate at the same tag.

// Shared with the example and the process tests; the line parsing is theirs.
#[allow(dead_code)]
#[path = "../examples/chain/program.rs"]
mod program;

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use motet_federated::transport::memory::network;
use motet_federated::{
    run_coordinator, CoordinatorOptions, FederateOptions, FederatedBuilder, FederatedError,
    FederatedProgram, Role,
};
use motet_reactor_core::{RunOptions, Shutdown, Startup};

fn coordinator_options() -> CoordinatorOptions {
    CoordinatorOptions {
        start_delay: Duration::ZERO,
        join_timeout: Duration::from_secs(30),
    }
}

/// Each federate's result with its log, and the coordinator's result.
type Results<L> = (
    Vec<(Result<(), FederatedError>, L)>,
    Result<(), FederatedError>,
);

/// A log of (what, logical time in ns).
type TimeLog = Arc<Mutex<Vec<(String, u64)>>>;

/// Runs `build(role)` for every federate on its own thread; returns each federate's result and
/// the coordinator's.
fn run_threads<L: Send + 'static>(
    names: &[&str],
    run: RunOptions,
    build: impl Fn(Role) -> (FederatedProgram, L),
) -> Results<L> {
    let topo = build(Role::Whole).0.topology().clone();
    let (rti, ends) = network(names.len());
    let coordinator =
        thread::spawn(move || run_coordinator(topo, &rti, &coordinator_options()).map(|_| ()));
    let mut threads = Vec::new();
    for (name, end) in names.iter().zip(ends) {
        let (mut prog, log) = build(Role::Federate(name.to_string()));
        let opts = FederateOptions {
            run,
            join_timeout: Duration::from_secs(30),
        };
        threads.push(thread::spawn(move || {
            let r = prog.run_federate(&end, &opts).map(|_| ());
            (r, log)
        }));
    }
    let results = threads.into_iter().map(|t| t.join().unwrap()).collect();
    (results, coordinator.join().unwrap())
}

fn whole_chain() -> Vec<program::Entry> {
    let (mut prog, log) = program::build(Role::Whole, false);
    prog.run_whole(&program::options()).unwrap();
    let l = log.lock().unwrap().clone();
    program::sorted(l)
}

#[test]
fn chain_over_memory_gives_the_whole_log() {
    let whole = whole_chain();
    assert!(
        whole.len() > 50,
        "the reference run logs the chain's events"
    );
    // The actuator's acknowledgments close a zero-delay cycle with the sensors' federate.
    assert!(
        whole.iter().filter(|e| e.2 == "monitor").count() >= 5,
        "{whole:?}"
    );
    // Many runs: the threads interleave differently each time (a coordination race once showed
    // in about one run in thirty).
    for _ in 0..40 {
        let (results, coordinator) = run_threads(&program::FEDERATES, program::options(), |role| {
            program::build(role, false)
        });
        coordinator.unwrap();
        let mut fed = Vec::new();
        for (r, log) in results {
            r.unwrap();
            fed.extend(log.lock().unwrap().iter().cloned());
        }
        assert_eq!(program::sorted(fed), whole);
    }
}

#[test]
fn a_vanished_federate_is_reported_and_the_others_run_to_their_end() {
    // `filter` joins, then its process dies (its end vanishes), possibly before the others
    // have joined: they learn of it with the start or during the run.
    let topo = program::build(Role::Whole, false).0.topology().clone();
    let fp = topo.fingerprint();
    let (rti, mut ends) = network(3);
    let coordinator = {
        let topo = topo.clone();
        thread::spawn(move || run_coordinator(topo, &rti, &coordinator_options()))
    };
    let filter_end = ends.remove(1);
    let mut threads = Vec::new();
    for (name, end) in ["sensors", "actuator"].into_iter().zip(ends) {
        let (mut prog, log) = program::build(Role::Federate(name.into()), false);
        threads.push(thread::spawn(move || {
            let opts = FederateOptions {
                run: program::options(),
                join_timeout: Duration::from_secs(30),
            };
            (prog.run_federate(&end, &opts), log)
        }));
    }
    // The filter joins, then its process "dies".
    use motet_federated::transport::FederateTransport;
    filter_end
        .send(&motet_federated::wire::ToRti::Join {
            fed: 1,
            program: fp,
        })
        .unwrap();
    filter_end.vanish();
    let timeout = program::options().timeout.unwrap().as_nanos() as u64;
    for (name, t) in ["sensors", "actuator"].into_iter().zip(threads) {
        let (r, log) = t.join().unwrap();
        assert_eq!(
            r.unwrap_err(),
            FederatedError::FederateFailed(vec!["filter".into()]),
            "{name} reports the failure"
        );
        // It ran to the timeout: the sensors' last tick, and the actuator's raw input, are at
        // the stop tag.
        let last = log.lock().unwrap().iter().map(|e| e.0).max();
        assert_eq!(last, Some(timeout), "{name} ran to its end");
    }
    assert_eq!(
        coordinator.join().unwrap().unwrap_err(),
        FederatedError::FederateFailed(vec!["filter".into()])
    );
}

/// Two federates: `a` counts on a 1 ms timer and requests a stop at its fifth tick; `b` counts
/// on a 1 ms timer of its own (unconnected to `a`'s count) and logs at shutdown. Every federate
/// stops where the whole program stops.
fn stopping(role: Role) -> (FederatedProgram, TimeLog) {
    let log: TimeLog = Arc::default();
    let mut b = FederatedBuilder::new(role);
    let (fa, fb) = (b.federate("a"), b.federate("b"));
    let a = b.reactor("a", 0u32);
    let t = b.timer(a, "t", Duration::ZERO, Duration::from_millis(1));
    let out = b.output::<u32, _>(a, "out");
    b.reaction(a, "tick")
        .trigger(t)
        .effect(out)
        .body(move |n: &mut u32, ctx| {
            *n += 1;
            ctx.set(out, *n);
            if *n == 5 {
                ctx.request_stop();
            }
        });
    let r = b.reactor("b", 0u64);
    let inp = b.input::<u32, _>(r, "in");
    {
        let log = log.clone();
        b.reaction(r, "seen")
            .trigger(inp)
            .body(move |n: &mut u64, ctx| {
                *n += u64::from(*ctx.get(inp).unwrap());
                log.lock().unwrap().push(("seen".into(), ctx.tag().nanos()));
            });
    }
    {
        let log = log.clone();
        b.reaction(r, "end")
            .trigger(Startup)
            .trigger(Shutdown)
            .body(move |n: &mut u64, ctx| {
                log.lock()
                    .unwrap()
                    .push((format!("b {}", *n), ctx.tag().nanos()));
            });
    }
    b.assign(a, fa);
    b.assign(r, fb);
    b.connect_federated_after(out, inp, Duration::from_micros(500));
    (b.build().unwrap(), log)
}

#[test]
fn a_stop_requested_in_one_federate_ends_all_at_the_same_tag() {
    let run = RunOptions {
        fast: true,
        timeout: Some(Duration::from_millis(100)),
    };
    let (mut whole, log) = stopping(Role::Whole);
    whole.run_whole(&run).unwrap();
    let mut expected = log.lock().unwrap().clone();
    expected.sort();
    let (results, coordinator) = run_threads(&["a", "b"], run, stopping);
    coordinator.unwrap();
    let mut got = Vec::new();
    for (r, log) in results {
        r.unwrap();
        got.extend(log.lock().unwrap().iter().cloned());
    }
    got.sort();
    assert_eq!(got, expected);
    // The stop came early: b never reached the 100 ms timeout.
    assert!(got.iter().all(|(_, t)| *t < 10_000_000), "{got:?}");
}

#[test]
fn a_plain_connection_between_federates_is_refused() {
    let mut b = FederatedBuilder::new(Role::Federate("a".into()));
    let (fa, fb) = (b.federate("a"), b.federate("b"));
    let x = b.reactor("x", ());
    let out = b.output::<u32, _>(x, "out");
    let y = b.reactor("y", ());
    let inp = b.input::<u32, _>(y, "in");
    b.connect(out, inp);
    b.assign(x, fa);
    b.assign(y, fb);
    let err = b.build().unwrap_err();
    assert!(
        matches!(&err, FederatedError::Federation(m) if m.contains("crosses federates")),
        "{err}"
    );
}

/// `a` sends 1..=20 on a 1 ms timer over a physical connection to `b`, which logs what arrives.
fn physical(role: Role) -> (FederatedProgram, TimeLog) {
    let log: TimeLog = Arc::default();
    let mut b = FederatedBuilder::new(role);
    let (fa, fb) = (b.federate("a"), b.federate("b"));
    let a = b.reactor("a", 0u32);
    let t = b.timer(a, "t", Duration::ZERO, Duration::from_millis(1));
    let out = b.output::<u32, _>(a, "out");
    b.reaction(a, "tick")
        .trigger(t)
        .effect(out)
        .body(move |n: &mut u32, ctx| {
            if *n < 20 {
                *n += 1;
                ctx.set(out, *n);
            }
        });
    let r = b.reactor("b", ());
    let inp = b.input::<u32, _>(r, "in");
    {
        let log = log.clone();
        b.reaction(r, "seen").trigger(inp).body(move |_, ctx| {
            let v = *ctx.get(inp).unwrap();
            log.lock().unwrap().push((v.to_string(), ctx.tag().nanos()));
        });
    }
    b.assign(a, fa);
    b.assign(r, fb);
    b.connect_federated_physical(out, inp);
    (b.build().unwrap(), log)
}

#[test]
fn physical_connections_go_peer_to_peer_and_lose_nothing() {
    // Real time: physical values take their tags from the clock. The timeout leaves a wide
    // margin after the last value is sent (at 19 ms).
    let run = RunOptions {
        fast: false,
        timeout: Some(Duration::from_millis(500)),
    };
    let expected: Vec<String> = (1..=20).map(|v: u32| v.to_string()).collect();
    let (mut whole, log) = physical(Role::Whole);
    whole.run_whole(&run).unwrap();
    let seen: Vec<String> = log.lock().unwrap().iter().map(|e| e.0.clone()).collect();
    assert_eq!(seen, expected);
    let (results, coordinator) = run_threads(&["a", "b"], run, physical);
    coordinator.unwrap();
    let mut seen = Vec::new();
    for (r, log) in results {
        r.unwrap();
        seen.extend(log.lock().unwrap().iter().cloned());
    }
    // In arrival order, which is the sending order: one sender, one ordered channel.
    let values: Vec<String> = seen.iter().map(|e| e.0.clone()).collect();
    assert_eq!(values, expected);
    // Tags from the receiver's clock increase.
    assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1));
}

#[test]
fn a_vanished_coordinator_ends_the_federates_with_an_error() {
    use motet_federated::transport::{CoordinatorEvent, CoordinatorTransport};
    use motet_federated::wire::{FromRti, ToRti};
    let (rti, mut ends) = network(3);
    let end = ends.remove(0);
    let (mut prog, _log) = program::build(Role::Federate("sensors".into()), false);
    let sensors = thread::spawn(move || {
        let opts = FederateOptions {
            run: program::options(),
            join_timeout: Duration::from_secs(30),
        };
        prog.run_federate(&end, &opts)
    });
    // Play the coordinator by hand: take the join, start, then vanish before any grant.
    match rti.events().recv_timeout(Duration::from_secs(30)) {
        Ok(CoordinatorEvent::Message(ToRti::Join { fed: 0, .. })) => {}
        other => panic!("expected the sensors' join, got {other:?}"),
    }
    rti.send(0, &FromRti::Start { start_ns: 0 }).unwrap();
    match rti.events().recv_timeout(Duration::from_secs(30)) {
        Ok(CoordinatorEvent::Message(ToRti::NextEventTag { fed: 0, .. })) => {}
        other => panic!("expected the sensors' NET, got {other:?}"),
    }
    rti.vanish();
    assert_eq!(
        sensors.join().unwrap().unwrap_err(),
        FederatedError::CoordinatorLost
    );
}
