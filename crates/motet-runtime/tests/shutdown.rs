//! Shutdown: dropping the runtime hands every queued task to its `shutdown`; a task scheduled after
//! shutdown is shut down at once; every task is run or shut down exactly once.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::Tally;
use motet_runtime::{testing, Handle, Runtime};

#[test]
fn dropping_a_deterministic_runtime_shuts_down_queued_tasks() {
    for seed in testing::seeds(16) {
        let rt = Runtime::builder().deterministic(seed).build().unwrap();
        let tally = Tally::new();
        for _ in 0..50 {
            common::spawn_counted(rt.handle(), &tally);
        }
        rt.handle().drive_until(|| tally.ran() >= 10);
        assert_eq!(tally.ran(), 10);
        drop(rt);
        assert_eq!(tally.ran(), 10);
        assert_eq!(tally.shut_down(), 40, "queued tasks were not shut down");
    }
}

/// On a pool of one worker, blocked in a task, work queued behind it is shut down, not run, when the
/// runtime is dropped. The worker is released only once shutdown has begun, which a helper thread
/// detects by scheduling probe tasks: a task scheduled after shutdown is shut down at once, inside
/// `schedule`.
#[test]
fn dropping_a_pool_shuts_down_queued_tasks() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let handle = rt.handle().clone();
    let started = Arc::new(AtomicBool::new(false));
    let gate = Arc::new(AtomicBool::new(false));
    let blocker_ran = Arc::new(AtomicBool::new(false));
    let (s, g, b) = (started.clone(), gate.clone(), blocker_ran.clone());
    common::spawn(&handle, move || {
        s.store(true, SeqCst);
        let deadline = Instant::now() + Duration::from_secs(60); // deadlock guard only
        while !g.load(SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        b.store(true, SeqCst);
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.load(SeqCst) {
        assert!(Instant::now() < deadline);
        std::thread::yield_now();
    }
    let queued = Tally::new();
    for _ in 0..100 {
        common::spawn_counted(&handle, &queued);
    }
    let probes = Tally::new();
    let opener = {
        let (handle, probes, gate) = (handle.clone(), probes.clone(), gate.clone());
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let before = probes.shut_down();
                common::spawn_counted(&handle, &probes);
                if probes.shut_down() > before {
                    break; // shut down inside `schedule`: the runtime is shutting down
                }
                assert!(Instant::now() < deadline, "shutdown never began");
                std::thread::sleep(Duration::from_millis(1));
            }
            gate.store(true, SeqCst);
        })
    };
    drop(rt); // blocks until the worker leaves the blocking task
    opener.join().unwrap();
    assert!(blocker_ran.load(SeqCst));
    assert_eq!(queued.ran(), 0, "tasks ran after shutdown began");
    assert_eq!(queued.shut_down(), 100, "queued tasks were not shut down");
    assert_eq!(probes.ran(), 0);
    assert!(probes.shut_down() >= 1);
    // Every probe was shut down, either at once or by the final drain.
    let total = probes.shut_down();
    common::spawn_counted(&handle, &probes);
    assert_eq!(probes.shut_down(), total + 1);
}

/// Chains of tasks in flight when the runtime drops: every task created is either run or shut down,
/// exactly once.
fn every_task_accounted(rt: Runtime) {
    let created = Arc::new(AtomicUsize::new(1000));
    let tally = Tally::new();
    fn link(h: &Handle, created: &Arc<AtomicUsize>, tally: &Arc<Tally>, depth: u32) {
        let (h2, c, t) = (h.clone(), created.clone(), tally.clone());
        let t2 = tally.clone();
        common::schedule_fn(
            h,
            move || {
                t.ran.fetch_add(1, SeqCst);
                if depth > 0 {
                    c.fetch_add(1, SeqCst);
                    link(&h2, &c, &t, depth - 1);
                }
            },
            move || {
                t2.shut_down.fetch_add(1, SeqCst);
            },
        );
    }
    for _ in 0..1000 {
        link(rt.handle(), &created, &tally, 50);
    }
    rt.handle().drive_until(|| tally.ran() >= 5000);
    drop(rt);
    assert_eq!(
        tally.ran() + tally.shut_down(),
        created.load(SeqCst),
        "a task was lost or handled twice at shutdown"
    );
}

#[test]
fn every_task_is_run_or_shut_down_exactly_once() {
    for workers in [1, 2] {
        for _ in 0..5 {
            every_task_accounted(Runtime::builder().workers(workers).build().unwrap());
        }
    }
    for seed in testing::seeds(16) {
        every_task_accounted(Runtime::builder().deterministic(seed).build().unwrap());
    }
}

fn after_shutdown(rt: Runtime) {
    let handle = rt.handle().clone();
    rt.shutdown();
    let tally = Tally::new();
    common::spawn_counted(&handle, &tally);
    assert_eq!(
        tally.shut_down(),
        1,
        "a task scheduled after shutdown was not shut down at once"
    );
    assert_eq!(tally.ran(), 0);

    // A shutdown that schedules another task: that one is shut down too.
    let (h, t) = (handle.clone(), tally.clone());
    common::schedule_fn(
        &handle,
        || panic!("ran after shutdown"),
        move || {
            t.shut_down.fetch_add(1, SeqCst);
            common::spawn_counted(&h, &t);
        },
    );
    assert_eq!(tally.shut_down(), 3);
    assert_eq!(tally.ran(), 0);

    // A timer registered after shutdown never fires; its callback is released at once.
    let token = Arc::new(());
    let t = token.clone();
    handle.call_after(Duration::ZERO, move || {
        drop(t);
        panic!("a timer fired after shutdown");
    });
    assert_eq!(Arc::strong_count(&token), 1);

    // Nothing can run any more: waiting for quiescence returns at once.
    let (tx, rx) = std::sync::mpsc::channel();
    let h = handle.clone();
    std::thread::spawn(move || {
        h.wait_quiescent();
        let _ = tx.send(h.is_quiescent());
    });
    let quiescent = rx.recv_timeout(Duration::from_secs(30)); // deadlock guard only
    assert_eq!(
        quiescent,
        Ok(true),
        "wait_quiescent on a shut-down runtime did not return"
    );
}

#[test]
fn tasks_scheduled_after_shutdown_are_shut_down_at_once() {
    for workers in [1, 2] {
        after_shutdown(Runtime::builder().workers(workers).build().unwrap());
    }
    after_shutdown(Runtime::builder().deterministic(3).build().unwrap());
}

#[test]
fn shutdown_drops_pending_timers_unfired() {
    for rt in [
        Runtime::builder().workers(1).build().unwrap(),
        Runtime::builder().deterministic(1).build().unwrap(),
    ] {
        let token = Arc::new(());
        let t = token.clone();
        rt.handle().call_after(Duration::from_secs(3600), move || {
            drop(t);
            panic!("a timer fired at shutdown");
        });
        drop(rt);
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "a pending timer's callback was kept"
        );
    }
}
