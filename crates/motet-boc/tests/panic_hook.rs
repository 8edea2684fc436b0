//! Panics in behaviours at the runtime level: what the program's hook sees of each (message,
//! payload, the cowns the behaviour held), the count, and the policy: a panicked behaviour
//! releases its cowns, its promise reports the panic, and later behaviours on its cowns run. The
//! hook and the count are process-wide: the tests of this file take `SERIAL`, and no other file's
//! tests share this process.

use std::sync::{Arc, Mutex, MutexGuard};

use motet_boc::{
    behaviour_panics, set_behaviour_panic_hook, take_behaviour_panic_hook, when, when_detached,
    Batch, Cown, CownId, Deferred, WhenError,
};
use motet_runtime::{testing, Runtime};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the hook saw of one panic.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    message: String,
    code: Option<u32>,
    cowns: Vec<CownId>,
}

/// Sets a hook that records every panic; the record.
fn record() -> Arc<Mutex<Vec<Seen>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    set_behaviour_panic_hook(move |p| {
        into.lock().unwrap().push(Seen {
            message: p.message().to_string(),
            code: p.payload().downcast_ref::<u32>().copied(),
            cowns: p.cowns().to_vec(),
        })
    });
    seen
}

#[test]
fn the_hook_sees_the_payload_and_the_cowns_and_later_behaviours_still_run() {
    let _serial = serial();
    let seen = record();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let a = Cown::new(rt.handle(), 0u32);
    let b = Cown::new(rt.handle(), 0u32);
    let (d, resolver) = Deferred::<u32>::new(rt.handle());
    let before = behaviour_panics();

    // One cown, with a promise; the promise reports the panic.
    let p = when(&a, |x| -> u32 {
        *x += 1;
        panic!("first on a")
    });
    assert_eq!(p.wait(), Err(WhenError::Panicked("first on a".into())));
    // Several cowns, one named twice read-only and a deferred value, detached, with a payload
    // that is not a message.
    when_detached((&b, a.read(), &d, a.read()), |(y, _, _, _)| {
        *y += 1;
        std::panic::panic_any(7u32)
    })
    .unwrap();
    resolver.resolve(5);
    // A batch member.
    let mut batch = Batch::new();
    drop(batch.add((&b, &a), |(y, x)| {
        *y += 1;
        *x += 1;
        panic!("in a batch")
    }));
    batch.spawn();

    // Later behaviours on the same cowns run, and see what the panicked closures did before
    // panicking.
    assert_eq!(when((&a, &b), |(x, y)| (*x, *y)).wait(), Ok((2, 2)));
    rt.wait_quiescent();
    assert_eq!(behaviour_panics() - before, 3);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            Seen {
                message: "first on a".into(),
                code: None,
                cowns: vec![a.id()],
            },
            Seen {
                message: "a panic with a non-string payload".into(),
                code: Some(7),
                cowns: vec![b.id(), a.id(), d.id()],
            },
            Seen {
                message: "in a batch".into(),
                code: None,
                cowns: vec![b.id(), a.id()],
            },
        ]
    );
    assert!(take_behaviour_panic_hook());
}

#[test]
fn panics_are_counted_without_a_hook_and_on_the_deterministic_runtime() {
    let _serial = serial();
    take_behaviour_panic_hook();
    testing::check(|rt| {
        let before = behaviour_panics();
        let c = Cown::new(rt.handle(), 0u32);
        for i in 0..10u32 {
            when_detached(&c, move |v| {
                *v += 1;
                if i % 3 == 0 {
                    panic!("every third");
                }
            })
            .unwrap();
        }
        assert_eq!(when(&c, |v| *v).wait(), Ok(10));
        assert_eq!(behaviour_panics() - before, 4);
    });
}

#[test]
fn a_hook_that_spawns_onto_the_panicked_cown_runs_after_it_is_released() {
    let _serial = serial();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let log = Cown::new(rt.handle(), Vec::<String>::new());
    let target = log.clone();
    // The hook may spawn: the behaviour it spawns queues behind the one that panicked.
    set_behaviour_panic_hook(move |p| {
        let note = format!("panicked: {}", p.message());
        drop(when(&target, move |l| l.push(note)));
    });
    drop(when(&log, |l| -> () {
        l.push("before".into());
        panic!("boom")
    }));
    drop(when(&log, |l| l.push("after".into())));
    rt.wait_quiescent();
    let entries = when(&log, |l| l.clone()).wait().unwrap();
    assert!(take_behaviour_panic_hook());
    assert_eq!(entries.first().map(String::as_str), Some("before"));
    assert!(
        entries.contains(&"panicked: boom".to_string()),
        "{entries:?}"
    );
    assert!(entries.contains(&"after".to_string()), "{entries:?}");
}

#[test]
fn a_behaviour_over_one_cown_that_counts_its_grants_names_that_cown_alone() {
    let _serial = serial();
    let seen = record();
    // One worker: the behaviours below run on one thread, one after the other.
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (x, y, z) = (
        Cown::new(rt.handle(), 0u32),
        Cown::new(rt.handle(), 0u32),
        Cown::new(rt.handle(), 0u32),
    );
    let a = Cown::new(rt.handle(), 0u32);
    for _ in 0..3 {
        // A behaviour with later requests runs first and is freed ...
        assert_eq!(when((&x, &y, &z), |(x, _, _)| *x).wait(), Ok(0));
        // ... then ones that count their grants over one cown: a batch member, a dynamic set.
        let mut batch = Batch::new();
        drop(batch.add(&a, |_| -> () { panic!("batch of one") }));
        batch.spawn();
        let one = vec![a.clone()];
        drop(when(&one, |_| -> () { panic!("set of one") }));
        rt.wait_quiescent();
    }
    assert!(take_behaviour_panic_hook());
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 6);
    for s in &seen {
        assert_eq!(s.cowns, [a.id()], "{s:?}");
    }
}
