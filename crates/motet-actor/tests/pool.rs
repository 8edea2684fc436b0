//! Pools: each routing delivers every message (round robin evenly), workers that panic are removed
//! or restarted in place while the pool keeps serving, resizing under load loses nothing, split-join
//! gathers every part and completes with an error part when a worker dies mid-request, and a pool
//! whose last worker is gone stops with a reason, after which `tell` fails.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use motet_actor::{Actor, AskError, Context, ExitReason, Pool, PoolError, Reply};
use motet_runtime::{testing, Runtime};

/// A deadlock guard for asks (virtual time on a deterministic runtime).
const GUARD: Duration = Duration::from_secs(60);

enum Job {
    Add(u64),
    Panic,
    /// Answers with the worker's index; worker 0 panics instead when the flag is set.
    Who(Reply<usize>, bool),
    /// Keeps the reply and never answers.
    Hold(Reply<usize>),
}

/// What the workers of one pool did: per worker index, the sum of the `Add`s it handled.
#[derive(Clone, Default)]
struct Tally {
    sums: Arc<Mutex<HashMap<usize, u64>>>,
    made: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

impl Tally {
    fn factory(&self) -> impl Fn() -> Worker + Send + Sync + 'static {
        let tally = self.clone();
        move || Worker {
            index: tally.made.fetch_add(1, SeqCst),
            tally: tally.clone(),
            held: Vec::new(),
        }
    }

    fn total(&self) -> u64 {
        self.sums.lock().unwrap().values().sum()
    }

    fn per_worker(&self) -> Vec<u64> {
        let sums = self.sums.lock().unwrap();
        let mut v: Vec<(usize, u64)> = sums.iter().map(|(k, v)| (*k, *v)).collect();
        v.sort();
        v.into_iter().map(|(_, s)| s).collect()
    }
}

struct Worker {
    index: usize,
    tally: Tally,
    held: Vec<Reply<usize>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.tally.dropped.fetch_add(1, SeqCst);
    }
}

impl Actor for Worker {
    type Msg = Job;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, job: Job) {
        match job {
            Job::Add(n) => {
                *self
                    .tally
                    .sums
                    .lock()
                    .unwrap()
                    .entry(self.index)
                    .or_default() += n
            }
            Job::Panic => panic!("worker asked to fail"),
            Job::Who(reply, fail) => {
                if fail && self.index == 0 {
                    panic!("worker 0 fails mid-request");
                }
                let _ = reply.send(self.index);
            }
            Job::Hold(reply) => self.held.push(reply),
        }
    }
}

/// Waits (bounded, for liveness only) until `cond` holds; drives a deterministic runtime.
fn eventually(rt: &Runtime, mut cond: impl FnMut() -> bool) {
    if rt.handle().seed().is_some() {
        rt.handle().drive_until(&mut cond);
        assert!(cond(), "condition not reached on the deterministic runtime");
        return;
    }
    let deadline = Instant::now() + GUARD;
    while !cond() {
        assert!(Instant::now() < deadline, "condition not reached in time");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn round_robin_spreads_messages_evenly() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(4)
            .spawn(rt.handle())
            .unwrap();
        for _ in 0..400 {
            pool.tell(Job::Add(1)).unwrap();
        }
        rt.wait_quiescent();
        assert_eq!(tally.per_worker(), vec![100; 4]);
    });
}

#[test]
fn random_routing_delivers_every_message() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(4)
            .random()
            .spawn(rt.handle())
            .unwrap();
        for _ in 0..400 {
            pool.tell(Job::Add(1)).unwrap();
        }
        rt.wait_quiescent();
        assert_eq!(tally.total(), 400);
        assert!(
            tally.per_worker().len() > 1,
            "random routing used one worker"
        );
    });
}

struct Summer(Arc<AtomicUsize>);
impl Actor for Summer {
    type Msg = usize;
    fn handle(&mut self, _: &mut Context<'_, Self>, n: usize) {
        self.0.fetch_add(n, SeqCst);
    }
}

#[test]
fn broadcast_reaches_every_worker() {
    testing::check(|rt| {
        let sum = Arc::new(AtomicUsize::new(0));
        let s = sum.clone();
        let pool = Pool::builder(move || Summer(s.clone()))
            .size(3)
            .broadcast()
            .spawn(rt.handle())
            .unwrap();
        for _ in 0..10 {
            pool.tell(1).unwrap();
        }
        rt.wait_quiescent();
        assert_eq!(sum.load(SeqCst), 30);
    });
}

#[test]
fn a_panicking_worker_is_removed_and_the_pool_keeps_serving() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(3)
            .spawn(rt.handle())
            .unwrap();
        pool.tell(Job::Panic).unwrap();
        eventually(rt, || pool.size() == 2);
        for _ in 0..100 {
            pool.tell(Job::Add(1)).unwrap();
        }
        rt.wait_quiescent();
        assert_eq!(tally.total(), 100);
        assert_eq!(pool.size(), 2);
        assert_eq!(tally.per_worker().len(), 2);
    });
}

#[test]
fn a_restarted_worker_keeps_its_queued_messages() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(2)
            .restart(100, Duration::from_secs(60))
            .spawn(rt.handle())
            .unwrap();
        // Panics interleaved with work: only the panicking messages are lost.
        for i in 0..200 {
            if i % 20 == 0 {
                pool.tell(Job::Panic).unwrap();
            }
            pool.tell(Job::Add(1)).unwrap();
        }
        rt.wait_quiescent();
        assert_eq!(tally.total(), 200);
        assert_eq!(pool.size(), 2);
        assert_eq!(tally.made.load(SeqCst), 2 + 10, "one rebuild per panic");
    });
}

#[test]
fn beyond_the_restart_intensity_the_pool_stops() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(2)
            .restart(2, Duration::from_secs(3600))
            .spawn(rt.handle())
            .unwrap();
        let stopped = pool.watch();
        for _ in 0..3 {
            pool.tell(Job::Panic).unwrap();
        }
        match stopped.wait() {
            ExitReason::Error(m) => assert_eq!(&*m, "pool: no worker left"),
            other => panic!("unexpected reason {other:?}"),
        }
        assert!(pool.tell(Job::Add(1)).is_err());
        rt.wait_quiescent();
        assert_eq!(tally.dropped.load(SeqCst), tally.made.load(SeqCst));
    });
}

#[test]
fn resizing_while_busy_loses_nothing() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(2)
            .spawn(rt.handle())
            .unwrap();
        let mut sent = 0;
        for round in 0..10 {
            for _ in 0..100 {
                pool.tell(Job::Add(1)).unwrap();
                sent += 1;
            }
            match round % 3 {
                0 => pool.grow(3).unwrap(),
                1 => pool.shrink(2).unwrap(),
                _ => pool.resize(1 + round).unwrap(),
            }
        }
        pool.resize(3).unwrap();
        eventually(rt, || pool.size() == 3);
        rt.wait_quiescent();
        assert_eq!(tally.total(), sent);
        assert!(tally.made.load(SeqCst) > 3, "the pool grew");
        // Retired workers stopped (and were dropped) after their queued messages.
        assert_eq!(tally.dropped.load(SeqCst), tally.made.load(SeqCst) - 3);
    });
}

#[test]
fn resizing_to_zero_is_an_error() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let tally = Tally::default();
    assert_eq!(
        Pool::builder(tally.factory())
            .size(0)
            .spawn(rt.handle())
            .err(),
        Some(PoolError::ZeroSize)
    );
    let pool = Pool::builder(tally.factory()).spawn(rt.handle()).unwrap();
    assert_eq!(pool.resize(0), Err(PoolError::ZeroSize));
    pool.shrink(10).unwrap();
    pool.tell(Job::Add(1)).unwrap();
    rt.wait_quiescent();
    assert_eq!(pool.size(), 1, "shrinking keeps one worker");
    assert_eq!(tally.total(), 1);
}

#[test]
fn split_join_gathers_every_worker() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(4)
            .spawn(rt.handle())
            .unwrap();
        let mut who = pool
            .split_join(
                |r| Job::Who(r, false),
                GUARD,
                |parts| parts.into_iter().collect::<Result<Vec<usize>, AskError>>(),
            )
            .wait()
            .unwrap()
            .unwrap();
        who.sort();
        assert_eq!(who, vec![0, 1, 2, 3]);
    });
}

#[test]
fn split_join_completes_with_an_error_when_a_worker_dies_mid_request() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(3)
            .spawn(rt.handle())
            .unwrap();
        let parts = pool
            .split_join(|r| Job::Who(r, true), GUARD, |parts| parts)
            .wait()
            .unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.iter().filter(|p| p.is_ok()).count(), 2);
        assert!(parts.contains(&Err(AskError::Dropped)));
        eventually(rt, || pool.size() == 2);
    });
}

#[test]
fn split_join_times_out_a_worker_that_never_answers() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(2)
            .spawn(rt.handle())
            .unwrap();
        let timeout = if rt.handle().seed().is_some() {
            Duration::from_secs(10)
        } else {
            Duration::from_millis(20)
        };
        let parts = pool
            .split_join(Job::Hold, timeout, |parts| parts)
            .wait()
            .unwrap();
        assert_eq!(parts, vec![Err(AskError::Timeout), Err(AskError::Timeout)]);
        drop(pool);
        rt.wait_quiescent();
    });
}

#[test]
fn a_pool_without_workers_stops_with_a_reason_and_refuses_messages() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(1)
            .spawn(rt.handle())
            .unwrap();
        let stopped = pool.watch();
        pool.tell(Job::Panic).unwrap();
        match stopped.wait() {
            ExitReason::Error(m) => assert_eq!(&*m, "pool: no worker left"),
            other => panic!("unexpected reason {other:?}"),
        }
        assert!(pool.tell(Job::Add(1)).is_err());
        assert_eq!(pool.size(), 0);
        assert_eq!(pool.grow(1), Err(PoolError::Stopped));
        let failed = pool
            .split_join(|r| Job::Who(r, false), GUARD, |parts| parts.len())
            .wait();
        assert_eq!(failed, Err(AskError::Stopped));
    });
}

#[test]
fn dropping_the_pool_stops_its_workers_after_their_messages() {
    testing::check(|rt| {
        let tally = Tally::default();
        let pool = Pool::builder(tally.factory())
            .size(3)
            .spawn(rt.handle())
            .unwrap();
        for _ in 0..30 {
            pool.tell(Job::Add(1)).unwrap();
        }
        drop(pool);
        rt.wait_quiescent();
        assert_eq!(tally.total(), 30);
        assert_eq!(tally.dropped.load(SeqCst), 3);
    });
}
