//! Backpressure on bounded cowns: external producers block, behaviours are deferred, and neither
//! can deadlock, even when the bounded cown's backlog needs the producer's own cowns or waits for
//! a value that the blocked thread provides.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
            drop(when(&sink, |v| *v += 1));
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
            drop(when(&producer, move |n| {
                for _ in 0..4 {
                    *n += 1;
                    let v = *n;
                    drop(when(&s, move |log| log.push(v)));
                }
                if left > 1 {
                    produce(p, s, left - 1);
                }
            }));
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
            drop(when(&producer, move |_| {
                // Fill the sink with behaviours over (sink, producer): they need this producer.
                for _ in 0..3 {
                    let done = done.clone();
                    drop(when((&s, &p), move |(v, _)| {
                        *v += 1;
                        done.fetch_add(1, SeqCst);
                    }));
                }
            }));
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
        drop(when((&sink, &gate), |(v, _)| *v += 1));
        // The sink is full and its backlog waits for `gate`: this `when` must not block forever.
        drop(when(&sink, |v| *v += 10));
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
        drop(when(&sink, move |v| {
            *v += 1;
            for _ in 0..10 {
                drop(when(&s, |v| *v += 1));
            }
        }));
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
        drop(when(&producer, move |most| {
            *most = (*most).max(s.pending().unwrap());
            for _ in 0..4 {
                drop(when(&s, |v| *v += 1));
            }
            if left > 1 {
                produce(p, s, left - 1);
            }
        }));
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

/// How the consumers of [`chained_producers`] name the sink.
#[derive(Clone, Copy)]
enum Access {
    Write,
    Read,
}

/// The producers of issue 26: `chains` chains of behaviours, each on a producer cown of its own,
/// each step spawning `per_step` behaviours on the bounded cown `sink` (whose bodies busy-wait
/// `body`) and then the chain's next step, `steps` steps per chain. Returns the largest number of
/// behaviours queued on the sink, read by each step right after its spawns and by each consumer as
/// it runs.
fn chained_producers(
    rt: &Runtime,
    bound_at: usize,
    (chains, steps, per_step): (usize, u64, u64),
    access: Access,
    body: Duration,
) -> usize {
    let sink = Cown::bounded(rt.handle(), (), bound(bound_at));
    let consumed = Arc::new(AtomicU64::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let consume = {
        let (sink, consumed, peak) = (sink.clone(), consumed.clone(), peak.clone());
        move || {
            peak.fetch_max(sink.pending().unwrap(), SeqCst);
            busy_wait(body);
            consumed.fetch_add(1, SeqCst);
        }
    };
    #[derive(Clone)]
    struct Chain<C> {
        producer: Cown<u64>,
        sink: Cown<()>,
        consume: C,
        peak: Arc<AtomicUsize>,
        per_step: u64,
        access: Access,
    }
    fn step<C: Fn() + Clone + Send + 'static>(chain: Chain<C>, left: u64) {
        let producer = chain.producer.clone();
        drop(when(&producer, move |n| {
            for _ in 0..chain.per_step {
                *n += 1;
                let consume = chain.consume.clone();
                match chain.access {
                    Access::Write => drop(when(&chain.sink, move |_| consume())),
                    Access::Read => drop(when(chain.sink.read(), move |_| consume())),
                }
            }
            chain.peak.fetch_max(chain.sink.pending().unwrap(), SeqCst);
            if left > 1 {
                step(chain, left - 1);
            }
        }));
    }
    let producers: Vec<_> = (0..chains).map(|_| Cown::new(rt.handle(), 0u64)).collect();
    for producer in &producers {
        let chain = Chain {
            producer: producer.clone(),
            sink: sink.clone(),
            consume: consume.clone(),
            peak: peak.clone(),
            per_step,
            access,
        };
        step(chain, steps);
    }
    rt.wait_quiescent();
    let total = chains as u64 * steps * per_step;
    assert_eq!(consumed.load(SeqCst), total, "every behaviour ran");
    for producer in &producers {
        assert_eq!(when(producer, |n| *n).wait(), Ok(steps * per_step));
    }
    assert_eq!(sink.pending(), Some(0));
    peak.load(SeqCst)
}

/// Spins for about `d` (a consumer slower than the producer; nothing is asserted about time).
fn busy_wait(d: Duration) {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Issue 26, as reported: one producer chain against a cown bounded at 1,000 whose consumers are
/// slower than it, on 1, 2 and 8 workers. The sink never holds more than its bound plus the one
/// behaviour spawned by the step that found it full: a step is let go only once the sink is
/// below its bound, however soon its worker is free again.
#[test]
fn a_chained_producer_is_held_at_the_bound_on_any_worker_count() {
    for workers in [1, 2, 8] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        let body = Duration::from_micros(5);
        let peak = chained_producers(&rt, 1000, (1, 100_000, 1), Access::Write, body);
        assert!(
            peak <= 1000 + 1,
            "{peak} behaviours queued on a cown bounded at 1000, on {workers} workers"
        );
    }
}

/// The same producer under the deterministic scheduler, over many seeds.
#[test]
fn a_chained_producer_is_held_at_the_bound_under_every_seed() {
    testing::check_deterministic(|rt| {
        let peak = chained_producers(rt, 4, (1, 300, 1), Access::Write, Duration::ZERO);
        assert!(
            peak <= 4 + 1,
            "{peak} behaviours queued on a cown bounded at 4"
        );
    });
}

/// Read-only consumers (`when(sink.read(), ..)`) name the sink alone too: the producer is held.
#[test]
fn read_only_consumers_hold_the_producer_too() {
    testing::check(|rt| {
        let peak = chained_producers(rt, 4, (1, 300, 1), Access::Read, Duration::ZERO);
        assert!(
            peak <= 4 + 1,
            "{peak} readers queued on a cown bounded at 4"
        );
    });
}

/// Several producer chains: each adds at most the behaviours of the step that found the sink full.
#[test]
fn several_producer_chains_each_add_at_most_one_step() {
    let scenario = |rt: &Runtime| {
        let body = Duration::from_micros(1);
        let peak = chained_producers(rt, 8, (3, 2_000, 1), Access::Write, body);
        assert!(
            peak <= 8 + 3,
            "{peak} behaviours queued on a cown bounded at 8"
        );
    };
    testing::check_deterministic(|rt| {
        let peak = chained_producers(rt, 8, (3, 100, 1), Access::Write, Duration::ZERO);
        assert!(
            peak <= 8 + 3,
            "{peak} behaviours queued on a cown bounded at 8"
        );
    });
    for workers in [1, 2, 8] {
        scenario(&Runtime::builder().workers(workers).build().unwrap());
    }
}

/// A behaviour that spawns many behaviours onto the sink in one closure has them all enqueued
/// (a spawn is never refused or delayed): the sink may go past its bound by what that closure
/// spawned, and the producer's next step waits until it is below the bound again.
#[test]
fn a_closure_that_spawns_many_adds_them_all_then_waits() {
    let scenario = |rt: &Runtime, steps| {
        let peak = chained_producers(rt, 4, (1, steps, 10), Access::Write, Duration::ZERO);
        assert!(
            peak <= 4 + 10,
            "{peak} behaviours queued on a cown bounded at 4"
        );
    };
    testing::check_deterministic(|rt| scenario(rt, 30));
    for workers in [1, 2, 8] {
        scenario(&Runtime::builder().workers(workers).build().unwrap(), 1_000);
    }
}

/// Threads outside the runtime block in `when` while the sink is full, and take the count past
/// the bound never (a thread counts its spawn only if that keeps the count within the bound), on
/// any number of workers.
#[test]
fn producer_threads_are_held_at_the_bound() {
    for workers in [1, 2, 8] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        let sink = Cown::bounded(rt.handle(), 0u64, bound(16));
        let peak = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for _ in 0..4 {
                let (sink, peak) = (sink.clone(), peak.clone());
                scope.spawn(move || {
                    for _ in 0..2_000 {
                        let (s, p) = (sink.clone(), peak.clone());
                        drop(when(&sink, move |v| {
                            p.fetch_max(s.pending().unwrap(), SeqCst);
                            busy_wait(Duration::from_micros(1));
                            *v += 1;
                        }));
                        peak.fetch_max(sink.pending().unwrap(), SeqCst);
                    }
                });
            }
        });
        assert_eq!(when(&sink, |v| *v).wait(), Ok(8_000));
        let peak = peak.load(SeqCst);
        assert!(
            peak <= 16,
            "{peak} behaviours queued on a cown bounded at 16, on {workers} workers"
        );
    }
}

/// A pipeline: a producer chain feeds a bounded cown whose consumers each feed a second bounded
/// cown with slower consumers. A consumer of the first cown that finds the second full is
/// deferred in turn, holding the first: the producer stays held (the first cown drains through
/// the second), and neither cown goes past its bound by more than one.
#[test]
fn a_pipeline_of_bounded_cowns_holds_each_bound() {
    let scenario = |rt: &Runtime, steps: u64, body: Duration| {
        let first = Cown::bounded(rt.handle(), 0u64, bound(4));
        let second = Cown::bounded(rt.handle(), 0u64, bound(4));
        let producer = Cown::new(rt.handle(), ());
        let peaks = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        for _ in 0..steps {
            let (f, s, peaks) = (first.clone(), second.clone(), peaks.clone());
            drop(when(&producer, move |_| {
                let (f2, peaks2) = (f.clone(), peaks.clone());
                drop(when(&f, move |n| {
                    *n += 1;
                    let (s2, peaks3) = (s.clone(), peaks2.clone());
                    drop(when(&s, move |n| {
                        peaks3[1].fetch_max(s2.pending().unwrap(), SeqCst);
                        busy_wait(body);
                        *n += 1;
                    }));
                    peaks2[1].fetch_max(s.pending().unwrap(), SeqCst);
                }));
                peaks[0].fetch_max(f2.pending().unwrap(), SeqCst);
            }));
        }
        rt.wait_quiescent();
        assert_eq!(when(&first, |n| *n).wait(), Ok(steps));
        assert_eq!(when(&second, |n| *n).wait(), Ok(steps));
        let (p0, p1) = (peaks[0].load(SeqCst), peaks[1].load(SeqCst));
        assert!(
            p0 <= 4 + 1 && p1 <= 4 + 1,
            "peaks {p0} and {p1} on cowns bounded at 4"
        );
    };
    testing::check_deterministic(|rt| scenario(rt, 200, Duration::ZERO));
    for workers in [1, 2, 8] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        scenario(&rt, 5_000, Duration::from_micros(2));
    }
}

/// Two bounded cowns whose behaviours spawn onto each other: a behaviour holding one, deferred on
/// the other, and one holding the other, deferred on the first, would wait for each other. The
/// deferral that closes the cycle sees it and lets go.
#[test]
fn bounded_cowns_that_feed_each_other_cannot_deadlock() {
    fn bounce(here: Cown<u64>, there: Cown<u64>, hops: u32, done: Arc<AtomicUsize>) {
        let h = here.clone();
        drop(when(&here, move |n| {
            *n += 1;
            if hops == 0 {
                done.fetch_add(1, SeqCst);
            } else {
                bounce(there, h, hops - 1, done);
            }
        }));
    }
    let scenario = |rt: &Runtime| {
        let a = Cown::bounded(rt.handle(), 0u64, bound(2));
        let b = Cown::bounded(rt.handle(), 0u64, bound(2));
        let done = Arc::new(AtomicUsize::new(0));
        for i in 0..40 {
            let (x, y) = if i % 2 == 0 { (&a, &b) } else { (&b, &a) };
            bounce(x.clone(), y.clone(), 30, done.clone());
        }
        rt.wait_quiescent();
        assert_eq!(done.load(SeqCst), 40);
        let a_runs = when(&a, |n| *n).wait().unwrap();
        let b_runs = when(&b, |n| *n).wait().unwrap();
        assert_eq!(a_runs + b_runs, 40 * 31);
    };
    testing::check(scenario);
    scenario(&Runtime::builder().workers(8).build().unwrap());
}

/// The sink's backlog waits for the producer's cown through a third cown: a behaviour queued on
/// the sink names `x`, and one before it on `x` names the producer's cown. The sink is entangled
/// (a behaviour queued on it names another cown), so the producer is not held.
#[test]
fn a_backlog_that_needs_the_producer_through_another_cown_cannot_deadlock() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(1));
        let producer = Cown::new(rt.handle(), 0u64);
        let x = Cown::new(rt.handle(), 0u64);
        for _ in 0..20 {
            let (s, p, x) = (sink.clone(), producer.clone(), x.clone());
            drop(when(&producer, move |_| {
                // Queued behind this behaviour on the producer's cown, and on `x`.
                drop(when((&x, &p), |(x, p)| *x += *p));
                // Queued on the sink and behind the one above on `x`.
                drop(when((&s, &x), |(s, _)| *s += 1));
                // A consumer of the sink alone, so that the sink is full.
                drop(when(&s, |s| *s += 1));
            }));
        }
        rt.wait_quiescent();
        assert_eq!(when(&sink, |v| *v).wait(), Ok(40));
    });
}

/// A consumer of the sink that waits for a behaviour on the producer's cown (`Promise::wait`
/// inside a behaviour): while it waits, the sink may wait for anything, so the producer it holds
/// back is let go.
#[test]
fn a_consumer_waiting_on_the_producer_cannot_deadlock() {
    let scenario = |rt: &Runtime| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(2));
        let producer = Cown::new(rt.handle(), 0u64);
        for _ in 0..20 {
            let (s, p) = (sink.clone(), producer.clone());
            drop(when(&producer, move |n| {
                *n += 1;
                for _ in 0..3 {
                    let p = p.clone();
                    drop(when(&s, move |v| {
                        *v += when(&p, |n| *n).wait().unwrap();
                    }));
                }
            }));
        }
        rt.wait_quiescent();
        assert_eq!(when(&producer, |n| *n).wait(), Ok(20));
    };
    // Not on one worker: a behaviour blocked in `wait` would hold the only worker, with or without
    // backpressure.
    testing::check_deterministic(scenario);
    for workers in [2, 8] {
        scenario(&Runtime::builder().workers(workers).build().unwrap());
    }
}

/// An actor flooding a bounded cown from its handler is neither blocked nor deferred on a thread
/// pool (it holds no cown to defer, and blocking its worker could stall the cown's consumers):
/// every behaviour runs, and nothing deadlocks. The bound is not applied to it.
#[test]
fn an_actor_producer_is_not_held_and_cannot_deadlock() {
    struct Producer(Cown<u64>);
    impl motet_actor::Actor for Producer {
        type Msg = u64;
        fn handle(&mut self, _: &mut motet_actor::Context<'_, Self>, n: u64) {
            for _ in 0..n {
                drop(when(&self.0, |v| *v += 1));
            }
        }
    }
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(2));
        let producer = motet_actor::spawn(rt.handle(), Producer(sink.clone()));
        for _ in 0..50 {
            producer.tell(10).unwrap();
        }
        rt.wait_quiescent();
        assert_eq!(when(&sink, |v| *v).wait(), Ok(500));
    });
}

/// A process (motet-process) flooding a bounded cown, which it may await the behaviours of: not
/// held, and nothing deadlocks. (motet-process offers no `ProcessSystem` under `--cfg loom`.)
#[cfg(not(loom))]
#[test]
fn a_process_producer_is_not_held_and_cannot_deadlock() {
    testing::check(|rt| {
        let sink = Cown::bounded(rt.handle(), 0u64, bound(2));
        let system = motet_process::ProcessSystem::new(rt.handle());
        for _ in 0..10 {
            let sink = sink.clone();
            system.spawn(async move {
                for i in 0..50 {
                    let p = when(&sink, |v| *v += 1);
                    if i % 10 == 0 {
                        p.await.unwrap();
                    }
                }
            });
        }
        rt.wait_quiescent();
        assert_eq!(when(&sink, |v| *v).wait(), Ok(500));
    });
}
