//! Backpressure on bounded cowns: external producers block, behaviours are deferred, and neither
//! can deadlock, even when the bounded cown's backlog needs the producer's own cowns or waits for
//! a value that the blocked thread provides.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use motet_boc::{when, Cown, Deferred};
use motet_runtime::{testing, Runtime};

fn bound(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// A thread outside the runtime is held back: right after each of its `when`s returns, at most
/// `bound` behaviours are queued on the cown (only this thread adds to it).
#[test]
fn an_external_producer_is_blocked_at_the_bound() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(4));
        let mut most = 0;
        for _ in 0..500 {
            when(&sink, |v| *v += 1);
            most = most.max(sink.pending().unwrap());
        }
        assert!(most <= 4, "{most} behaviours queued on a cown bounded at 4");
        assert_eq!(when(&sink, |v| *v).wait(), Ok(500));
        assert_eq!(sink.pending(), Some(0));
    });
}

/// Unbounded cowns do not count.
#[test]
fn unbounded_cowns_report_no_pending_count() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    assert_eq!(Cown::new(rt.handle(), ()).pending(), None);
}

/// A producer behaviour that re-spawns itself and floods a bounded cown: every message arrives,
/// in order, whatever the throttling did.
#[test]
fn a_producer_behaviour_is_deferred_not_lost() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), Vec::new(), bound(3));
        let producer = Cown::new(rt.handle(), 0u64);
        fn produce(producer: Cown<u64>, sink: Cown<Vec<u64>>, left: u64) {
            let (p, s) = (producer.clone(), sink.clone());
            when(&producer, move |n| {
                for _ in 0..4 {
                    *n += 1;
                    let v = *n;
                    when(&s, move |log| log.push(v));
                }
                if left > 1 {
                    produce(p, s, left - 1);
                }
            });
        }
        produce(producer.clone(), sink.clone(), 100);
        rt.wait_quiescent();
        let log = when(&sink, |l| l.clone()).wait().unwrap();
        assert_eq!(log, (1..=400).collect::<Vec<_>>());
    });
}

/// The case a naive "hold the producer until the queue drains" deadlocks on: the bounded cown's
/// backlog is full of behaviours that also need the producer's cown. The deferred producer sees no
/// progress and lets go.
#[test]
fn a_backlog_that_needs_the_producer_cannot_deadlock() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(2));
        let producer = Cown::new(rt.handle(), 0u64);
        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..20 {
            let (s, p, done) = (sink.clone(), producer.clone(), done.clone());
            when(&producer, move |_| {
                // Fill the sink with behaviours over (sink, producer): they need this producer.
                for _ in 0..3 {
                    let done = done.clone();
                    when((&s, &p), move |(v, _)| {
                        *v += 1;
                        done.fetch_add(1, SeqCst);
                    });
                }
            });
        }
        rt.wait_quiescent();
        assert_eq!(done.load(SeqCst), 60);
        assert_eq!(when(&sink, |v| *v).wait(), Ok(60));
    });
}

/// An external thread blocks on a bounded cown whose backlog waits for a deferred value that this
/// same thread resolves afterwards: the runtime goes quiescent, the thread stops waiting, enqueues,
/// and then resolves the value.
#[test]
fn a_blocked_thread_is_released_when_nothing_can_drain() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(1));
        let (gate, resolver) = Deferred::<()>::new(rt.handle());
        when((&sink, &gate), |(v, _)| *v += 1);
        // The sink is full and its backlog waits for `gate`: this `when` must not block forever.
        when(&sink, |v| *v += 10);
        resolver.resolve(());
        assert_eq!(when(&sink, |v| *v).wait(), Ok(11));
    });
}

/// Behaviours spawning onto a bounded cown they hold themselves are never deferred.
#[test]
fn spawning_onto_a_held_bounded_cown_is_not_deferred() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(1));
        let s = sink.clone();
        when(&sink, move |v| {
            *v += 1;
            for _ in 0..10 {
                when(&s, |v| *v += 1);
            }
        });
        rt.wait_quiescent();
        assert_eq!(when(&sink, |v| *v).wait(), Ok(11));
    });
}

/// On one worker the deferral is visible: each round of the producer starts only once the sink's
/// backlog went below the bound (without backpressure the backlog would grow by four per round, to
/// hundreds).
#[test]
fn a_deferred_producer_waits_for_the_backlog_on_one_worker() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let sink = Cown::bounded(rt.handle(), 0u64, bound(3));
    let producer = Cown::new(rt.handle(), 0usize);
    fn produce(producer: Cown<usize>, sink: Cown<u64>, left: u64) {
        let (p, s) = (producer.clone(), sink.clone());
        when(&producer, move |most| {
            *most = (*most).max(s.pending().unwrap());
            for _ in 0..4 {
                when(&s, |v| *v += 1);
            }
            if left > 1 {
                produce(p, s, left - 1);
            }
        });
    }
    produce(producer.clone(), sink.clone(), 100);
    rt.wait_quiescent();
    assert_eq!(when(&sink, |v| *v).wait(), Ok(400));
    let most = when(&producer, |m| *m).wait().unwrap();
    assert!(
        most < 3 + 4,
        "the producer ran with {most} behaviours queued on the sink"
    );
}
