//! Loom models of the protocol: two-phase enqueue and release over two and three cowns, a spawn
//! racing the release of its cown, read phases, and atomic batches. Run with
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom \
//!     cargo test -p motet-boc --lib --release loom
//! ```
//!
//! Each behaviour runs on the thread that made it runnable; running checks exclusion on each cown
//! (no writer beside anything, readers only beside readers) and records the behaviour's position
//! in each cown's order. The models then check the orders, that every behaviour ran once, and that
//! every cown ends idle with only the test's reference left, and is freed when that is dropped.
//! The last models drop the last handle while behaviours still run or wait: the cown is then freed
//! exactly once, by whoever finishes last.

use loom::sync::Arc;
use loom::thread;

use super::testkit::{run_all, spawn, spawn_deferred, Ready, TestBehaviour, TestCown};

fn cown() -> Arc<Box<TestCown>> {
    Arc::new(TestCown::new())
}

fn behaviour(cowns: &[(&TestCown, bool)], alone: bool) -> Arc<Box<TestBehaviour>> {
    Arc::new(TestBehaviour::new(cowns, alone))
}

/// Two spawners name the same two cowns in opposite orders: both run once, exclusively, and in the
/// same relative order on both cowns (atomic acquisition); no deadlock.
#[test]
fn loom_two_cowns_opposite_orders() {
    loom::model(|| {
        let (a, b) = (cown(), cown());
        let x = behaviour(&[(&a, false), (&b, false)], true);
        let y = behaviour(&[(&b, false), (&a, false)], true);
        let t = {
            let x = x.clone();
            thread::spawn(move || spawn(&x))
        };
        spawn(&y);
        t.join().unwrap();
        assert_eq!((x.runs(), y.runs()), (1, 1));
        // x's slots are (a, b), y's are (b, a).
        assert_eq!(x.position(0) < y.position(1), x.position(1) < y.position(0));
        a.drop_handle();
        b.drop_handle();
    });
}

/// Three behaviours over the three pairs of three cowns, from two threads: whatever the
/// interleaving, the per-cown orders agree on one total order (no cycle), so nothing deadlocks.
#[test]
fn loom_three_cowns_pairwise() {
    loom::model(|| {
        let (a, b, c) = (cown(), cown(), cown());
        let x = behaviour(&[(&a, false), (&b, false)], true);
        let y = behaviour(&[(&b, false), (&c, false)], true);
        let z = behaviour(&[(&c, false), (&a, false)], true);
        let tx = {
            let x = x.clone();
            thread::spawn(move || spawn(&x))
        };
        spawn(&y);
        spawn(&z);
        tx.join().unwrap();
        assert_eq!((x.runs(), y.runs(), z.runs()), (1, 1, 1));
        assert!(y.position(1) < z.position(0), "y was spawned before z on c");
        let x_before_y = x.position(1) < y.position(0); // on b
        let z_before_x = z.position(1) < x.position(0); // on a
        assert!(
            !(x_before_y && z_before_x),
            "the per-cown orders form a cycle"
        );
        a.drop_handle();
        b.drop_handle();
        c.drop_handle();
    });
}

/// One behaviour over three cowns against a behaviour over two of them named in the opposite
/// order: the same relative order on both shared cowns.
#[test]
fn loom_three_cowns_against_two() {
    loom::model(|| {
        let (a, b, c) = (cown(), cown(), cown());
        let x = behaviour(&[(&a, false), (&b, false), (&c, false)], true);
        let y = behaviour(&[(&c, false), (&a, false)], true);
        let tx = {
            let x = x.clone();
            thread::spawn(move || spawn(&x))
        };
        spawn(&y);
        tx.join().unwrap();
        assert_eq!((x.runs(), y.runs()), (1, 1));
        assert_eq!(x.position(0) < y.position(1), x.position(2) < y.position(0));
        a.drop_handle();
        b.drop_handle();
        c.drop_handle();
    });
}

/// A spawn on a cown races the release of the behaviour holding it (the MCS release race: the
/// tail CAS fails and the releaser waits for the link). The new behaviour runs after the old one.
#[test]
fn loom_spawn_races_release() {
    loom::model(|| {
        let a = cown();
        let first = behaviour(&[(&a, false)], true);
        let ready = Ready(spawn_deferred(&[&first]));
        assert_eq!(ready.0.len(), 1);
        let runner = ready.run_on_a_thread();
        let second = behaviour(&[(&a, false)], true);
        spawn(&second);
        runner.join().unwrap();
        assert_eq!((first.position(0), second.position(0)), (0, 1));
        a.drop_handle();
    });
}

/// The same race on a two-cown spawn over a cown being released: two-phase enqueue against
/// release.
#[test]
fn loom_two_cown_spawn_races_release() {
    loom::model(|| {
        let (a, b) = (cown(), cown());
        let first = behaviour(&[(&a, false)], true);
        let ready = Ready(spawn_deferred(&[&first]));
        let runner = ready.run_on_a_thread();
        let second = behaviour(&[(&b, false), (&a, false)], true);
        spawn(&second);
        runner.join().unwrap();
        assert_eq!((first.position(0), second.position(1)), (0, 1));
        a.drop_handle();
        b.drop_handle();
    });
}

/// A two-cown spawn behind a writer on each of its cowns, both released by two other threads
/// while it enqueues: the two grants and the end of the enqueue race on the gate, and whichever
/// comes last (the one that finds the count at its own share skips the decrement) makes the
/// behaviour runnable. It runs exactly once, after both.
#[test]
fn loom_two_cown_spawn_races_two_releases() {
    loom::model(|| {
        let (a, b) = (cown(), cown());
        let first_a = behaviour(&[(&a, false)], true);
        let first_b = behaviour(&[(&b, false)], true);
        let ready_a = Ready(spawn_deferred(&[&first_a]));
        let ready_b = Ready(spawn_deferred(&[&first_b]));
        let runner_a = ready_a.run_on_a_thread();
        let runner_b = ready_b.run_on_a_thread();
        let second = behaviour(&[(&b, false), (&a, false)], true);
        spawn(&second);
        runner_a.join().unwrap();
        runner_b.join().unwrap();
        assert_eq!(second.runs(), 1);
        assert_eq!((first_a.position(0), second.position(1)), (0, 1));
        assert_eq!((first_b.position(0), second.position(0)), (0, 1));
        a.drop_handle();
        b.drop_handle();
    });
}

/// A reader finishes (perhaps leaving the tail) while another thread spawns a reader and then a
/// writer: the writer runs after both readers, never beside them.
#[test]
fn loom_readers_then_writer() {
    loom::model(|| {
        let a = cown();
        let r1 = behaviour(&[(&a, true)], true);
        let ready = Ready(spawn_deferred(&[&r1]));
        let runner = ready.run_on_a_thread();
        let r2 = behaviour(&[(&a, true)], true);
        let w = behaviour(&[(&a, false)], true);
        spawn(&r2);
        spawn(&w);
        runner.join().unwrap();
        assert_eq!((r1.runs(), r2.runs(), w.runs()), (1, 1, 1));
        assert_eq!(w.position(0), 2);
        a.drop_handle();
    });
}

/// A writer's release cascades to a waiting reader while another reader arrives and joins or
/// links: both readers run after the writer.
#[test]
fn loom_cascade_races_joining_reader() {
    loom::model(|| {
        let a = cown();
        let w = behaviour(&[(&a, false)], true);
        let ready = Ready(spawn_deferred(&[&w]));
        let r1 = behaviour(&[(&a, true)], true);
        assert!(spawn_deferred(&[&r1]).is_empty());
        let runner = ready.run_on_a_thread();
        let r2 = behaviour(&[(&a, true)], true);
        spawn(&r2);
        runner.join().unwrap();
        assert_eq!(w.position(0), 0);
        assert_eq!((r1.runs(), r2.runs()), (1, 1));
        a.drop_handle();
    });
}

/// An atomic batch of two behaviours on a shared cown against a concurrent spawn on that cown:
/// nothing comes between the two.
#[test]
fn loom_batch_is_not_interleaved() {
    loom::model(|| {
        let (a, b) = (cown(), cown());
        let x = behaviour(&[(&a, false)], false);
        let y = behaviour(&[(&a, false), (&b, false)], false);
        let t = {
            let (x, y) = (x.clone(), y.clone());
            thread::spawn(move || run_all(spawn_deferred(&[&x, &y])))
        };
        let z = behaviour(&[(&a, false)], true);
        spawn(&z);
        t.join().unwrap();
        assert_eq!(y.position(0), x.position(0) + 1);
        a.drop_handle();
        b.drop_handle();
    });
}

/// The last handle goes while a writer runs on another thread: the cown is freed once, after it.
#[test]
fn loom_last_handle_races_writer() {
    loom::model(|| {
        let a = cown();
        let w = behaviour(&[(&a, false)], true);
        let ready = Ready(spawn_deferred(&[&w]));
        let runner = ready.run_on_a_thread();
        a.drop_handle_in_use();
        runner.join().unwrap();
        assert_eq!(w.runs(), 1);
        assert!(a.is_freed());
    });
}

/// The last handle goes while two readers run on two threads: the last of them frees the cown.
#[test]
fn loom_last_handle_races_readers() {
    loom::model(|| {
        let a = cown();
        let r1 = behaviour(&[(&a, true)], true);
        let r2 = behaviour(&[(&a, true)], true);
        let first = Ready(spawn_deferred(&[&r1]));
        let second = Ready(spawn_deferred(&[&r2]));
        let t1 = first.run_on_a_thread();
        let t2 = second.run_on_a_thread();
        a.drop_handle_in_use();
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!((r1.runs(), r2.runs()), (1, 1));
        assert!(a.is_freed());
    });
}

/// The last handle goes while a writer runs with a reader queued behind it: the writer's release
/// cascades to the reader, and the cown is freed once, after both.
#[test]
fn loom_last_handle_races_writer_then_reader() {
    loom::model(|| {
        let a = cown();
        let w = behaviour(&[(&a, false)], true);
        let r = behaviour(&[(&a, true)], true);
        let ready = Ready(spawn_deferred(&[&w]));
        assert!(spawn_deferred(&[&r]).is_empty());
        let runner = ready.run_on_a_thread();
        a.drop_handle_in_use();
        runner.join().unwrap();
        assert_eq!((w.runs(), r.runs()), (1, 1));
        assert!(a.is_freed());
    });
}
