//! Backpressure: an opt-in bound on how many behaviours may be queued on a cown.
//!
//! A cown made with [`Cown::bounded`](crate::Cown::bounded) counts the behaviours queued on it
//! (spawned and not yet completed, the running one included). When a `when` names such a cown while
//! that count is at or above the bound, the spawner is slowed down. What happens depends on who
//! spawns; in no case is a behaviour dropped, reordered, or spawned late: the ordering guarantees
//! are untouched. See the crate docs (section *Backpressure*) for the user-facing summary.
//!
//! - **A thread outside the runtime** (the main thread, a thread of its own; not a worker) *blocks*
//!   in `when`, before enqueueing, until the count is below the bound. It holds no cown (cowns are
//!   only held by running behaviours, and behaviours run on workers), so the workers drain the
//!   queue without it. If the queue cannot drain because what it waits for lies outside the
//!   runtime (a [`Deferred`](crate::Deferred) that this very thread would resolve later), the
//!   runtime becomes quiescent; the blocked thread then stops waiting and enqueues anyway. On a
//!   deterministic runtime the blocked thread drives the runtime meanwhile, and stops waiting when
//!   no work is left.
//! - **A behaviour** never blocks its worker. Its spawn is enqueued at once; what is *deferred* is
//!   the release of the producing behaviour's own cowns: when its closure returns, the behaviour
//!   stays queued as a task that re-checks the bounded cown each time it gets a turn, and releases
//!   its cowns (so that the producer's next behaviours can run) once the count is below the bound,
//!   or once the bounded cown made no progress since the previous check. The second condition is
//!   what rules out deadlock: if the bounded cown's queue waits for one of the producer's cowns
//!   (directly, or through other behaviours), it makes no progress and the producer lets go at its
//!   next turn. A behaviour that spawns onto a bounded cown it holds itself is never deferred.
//! - **Other code on a worker** (an actor's handler, a process) is neither blocked nor deferred: its
//!   spawn is enqueued at once (it can test [`Cown::pending`](crate::Cown::pending) itself).
//!
//! So no thread ever waits for a condition that only it could bring about, and every wait ends
//! when the bounded cown drains or stops draining: backpressure slows producers but cannot
//! deadlock a program that would not deadlock without it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use motet_runtime::Handle;

/// How long a blocked thread sleeps between checks for quiescence on a thread pool (it is woken
/// at once when the queue drains below the bound).
const QUIESCENCE_CHECK: Duration = Duration::from_millis(10);

/// The counters of a bounded cown.
pub(crate) struct Bound {
    bound: usize,
    /// Behaviours ever enqueued on the cown.
    enqueued: AtomicUsize,
    /// Behaviours ever completed (released the cown).
    completed: AtomicUsize,
    /// Threads blocked in `wait_below`.
    waiters: AtomicUsize,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Bound {
    pub(crate) fn new(bound: usize) -> Bound {
        Bound {
            bound,
            enqueued: AtomicUsize::new(0),
            completed: AtomicUsize::new(0),
            waiters: AtomicUsize::new(0),
            lock: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    /// Behaviours queued now (an instantaneous, approximate reading).
    pub(crate) fn pending(&self) -> usize {
        // Completed first: a reading never goes below zero.
        let completed = self.completed.load(Ordering::Acquire);
        self.enqueued
            .load(Ordering::Acquire)
            .saturating_sub(completed)
    }

    /// Whether a spawn now should be slowed down.
    pub(crate) fn is_full(&self) -> bool {
        self.pending() >= self.bound
    }

    /// How many behaviours completed so far (the progress measure of a deferred producer).
    pub(crate) fn completed(&self) -> usize {
        self.completed.load(Ordering::Acquire)
    }

    /// Counts a behaviour enqueued on the cown.
    pub(crate) fn on_enqueue(&self) {
        self.enqueued.fetch_add(1, Ordering::AcqRel);
    }

    /// Counts a behaviour that released the cown, and wakes blocked spawners once it is below the
    /// bound.
    pub(crate) fn on_release(&self) {
        self.completed.fetch_add(1, Ordering::AcqRel);
        if self.waiters.load(Ordering::Acquire) > 0 && !self.is_full() {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.cv.notify_all();
        }
    }

    /// Blocks the calling thread (outside the runtime) until the cown is below its bound, or the
    /// runtime cannot make progress any more.
    pub(crate) fn wait_below(&self, runtime: &Handle) {
        if runtime.seed().is_some() {
            // Deterministic: run the runtime here until the queue drains or nothing is left.
            runtime.drive_until(|| !self.is_full());
            return;
        }
        self.waiters.fetch_add(1, Ordering::AcqRel);
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.is_full() && !runtime.is_quiescent() {
            guard = self
                .cv
                .wait_timeout(guard, QUIESCENCE_CHECK)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        drop(guard);
        self.waiters.fetch_sub(1, Ordering::AcqRel);
    }
}
