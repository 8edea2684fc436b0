//! Single-threaded checks of the protocol's cases; the concurrent ones are the loom models.

use std::ptr::NonNull;

use super::testkit::{is, run_all, run_one, spawn, spawn_deferred, TestBehaviour, TestCown};

#[test]
fn writers_on_one_cown_run_in_spawn_order() {
    let c = TestCown::new();
    let bs: Vec<_> = (0..4)
        .map(|_| TestBehaviour::new(&[(&c, false)], true))
        .collect();
    let ready: Vec<_> = bs.iter().flat_map(|b| spawn_deferred(&[b])).collect();
    assert_eq!(ready.len(), 1, "only the head is runnable");
    run_all(ready);
    for (i, b) in bs.iter().enumerate() {
        assert_eq!(b.runs(), 1);
        assert_eq!(b.position(0), i);
    }
    c.drop_handle();
}

#[test]
fn two_cown_behaviours_wait_for_both() {
    let (a, b) = (TestCown::new(), TestCown::new());
    let first = TestBehaviour::new(&[(&a, false)], true);
    let both = TestBehaviour::new(&[(&a, false), (&b, false)], true);
    let ready_first = spawn_deferred(&[&first]);
    assert_eq!(ready_first.len(), 1);
    assert!(
        spawn_deferred(&[&both]).is_empty(),
        "waits for `first` on a"
    );
    run_all(ready_first);
    assert_eq!(both.runs(), 1);
    assert_eq!((both.position(0), both.position(1)), (1, 0));
    a.drop_handle();
    b.drop_handle();
}

#[test]
fn readers_run_together_and_writers_wait_for_them() {
    let c = TestCown::new();
    let r1 = TestBehaviour::new(&[(&c, true)], true);
    let r2 = TestBehaviour::new(&[(&c, true)], true);
    let w = TestBehaviour::new(&[(&c, false)], true);
    let r3 = TestBehaviour::new(&[(&c, true)], true);
    let ready1 = spawn_deferred(&[&r1]);
    let ready2 = spawn_deferred(&[&r2]);
    assert_eq!((ready1.len(), ready2.len()), (1, 1), "both readers granted");
    assert!(spawn_deferred(&[&w]).is_empty());
    assert!(
        spawn_deferred(&[&r3]).is_empty(),
        "a reader after a writer waits"
    );
    run_all(ready2);
    assert_eq!(w.runs(), 0, "the writer waits for r1");
    run_all(ready1);
    assert_eq!((w.runs(), r3.runs()), (1, 1));
    assert_eq!(w.position(0), 2);
    assert_eq!(r3.position(0), 3);
    c.drop_handle();
}

#[test]
fn a_writer_grants_the_readers_behind_it_at_once() {
    let c = TestCown::new();
    let w = TestBehaviour::new(&[(&c, false)], true);
    let readers: Vec<_> = (0..3)
        .map(|_| TestBehaviour::new(&[(&c, true)], true))
        .collect();
    let w2 = TestBehaviour::new(&[(&c, false)], true);
    let ready = spawn_deferred(&[&w]);
    for r in &readers {
        assert!(spawn_deferred(&[r]).is_empty());
    }
    assert!(spawn_deferred(&[&w2]).is_empty());
    assert_eq!(ready.len(), 1);
    let granted = run_one(ready[0]);
    assert_eq!(
        granted.len(),
        3,
        "the writer's release grants the three readers"
    );
    assert!(granted.iter().all(|&g| readers.iter().any(|r| is(g, r))));
    let mut after = Vec::new();
    for g in granted {
        assert_eq!(w2.runs(), 0);
        after.extend(run_one(g));
    }
    assert_eq!(after.len(), 1, "the last reader grants the second writer");
    assert!(is(after[0], &w2));
    run_all(after);
    assert_eq!(w2.position(0), 4);
    c.drop_handle();
}

#[test]
fn a_reader_joins_a_running_read_phase_after_the_tail_left() {
    let c = TestCown::new();
    let r1 = TestBehaviour::new(&[(&c, true)], true);
    let r2 = TestBehaviour::new(&[(&c, true)], true);
    let ready1 = spawn_deferred(&[&r1]);
    let ready2 = spawn_deferred(&[&r2]);
    // r2 is the tail: it finishes first and leaves the queue while r1 still reads.
    run_all(ready2);
    let w = TestBehaviour::new(&[(&c, false)], true);
    assert!(
        spawn_deferred(&[&w]).is_empty(),
        "the head writer waits for r1"
    );
    run_all(ready1);
    assert_eq!(w.runs(), 1);
    c.drop_handle();
}

#[test]
fn batches_are_enqueued_without_interleaving() {
    let (a, b) = (TestCown::new(), TestCown::new());
    let x = TestBehaviour::new(&[(&a, false)], false);
    let y = TestBehaviour::new(&[(&a, true), (&b, false)], false);
    let z = TestBehaviour::new(&[(&a, true)], false);
    let w = TestBehaviour::new(&[(&a, false), (&b, false)], false);
    let ready = spawn_deferred(&[&x, &y, &z, &w]);
    assert_eq!(ready.len(), 1, "only x can run first");
    run_all(ready);
    assert_eq!(x.position(0), 0);
    assert!(y.position(0) >= 1 && z.position(0) >= 1 && y.position(0) <= 2);
    assert_eq!(w.position(0), 3);
    assert_eq!(w.position(1), 1);
    a.drop_handle();
    b.drop_handle();
}

#[test]
fn readers_in_a_batch_share_the_read_phase() {
    let c = TestCown::new();
    let r1 = TestBehaviour::new(&[(&c, true)], false);
    let r2 = TestBehaviour::new(&[(&c, true)], false);
    let w = TestBehaviour::new(&[(&c, false)], false);
    let ready = spawn_deferred(&[&r1, &r2, &w]);
    assert_eq!(ready.len(), 2, "both readers are granted at once");
    run_all(ready);
    assert_eq!(w.position(0), 2);
    c.drop_handle();
}

#[test]
fn alone_and_batched_spawns_mix() {
    let cowns: Vec<_> = (0..3).map(|_| TestCown::new()).collect();
    let mut all = Vec::new();
    for i in 0..30 {
        let x = &cowns[i % 3];
        let y = &cowns[(i + 1) % 3];
        let b = if i % 4 == 0 {
            TestBehaviour::new(&[(x, false)], true)
        } else {
            TestBehaviour::new(&[(x, i % 3 == 0), (y, i % 5 == 0)], true)
        };
        spawn(&b);
        all.push(b);
    }
    assert!(all.iter().all(|b| b.runs() == 1));
    for c in &cowns {
        assert!(c.runs() > 0);
        c.drop_handle();
    }
}

#[test]
fn a_writer_names_the_writer_queued_behind_it_and_a_reader_names_none() {
    let c = TestCown::new();
    let w1 = TestBehaviour::new(&[(&c, false)], true);
    let w2 = TestBehaviour::new(&[(&c, false)], true);
    let r = TestBehaviour::new(&[(&c, true)], true);
    let w3 = TestBehaviour::new(&[(&c, false)], true);
    let ready = spawn_deferred(&[&w1]);
    assert_eq!(w1.slot(0).successor(), None, "nothing queued behind it yet");
    assert!(spawn_deferred(&[&w2]).is_empty());
    assert!(spawn_deferred(&[&r]).is_empty());
    assert!(spawn_deferred(&[&w3]).is_empty());
    assert_eq!(w1.slot(0).successor(), Some(NonNull::from(w2.slot(0))));
    assert_eq!(w2.slot(0).successor(), Some(NonNull::from(r.slot(0))));
    assert_eq!(
        r.slot(0).successor(),
        None,
        "a reader's successor may run before it ends"
    );
    run_all(ready);
    assert_eq!((w2.position(0), r.position(0), w3.position(0)), (1, 2, 3));
    c.drop_handle();
}
