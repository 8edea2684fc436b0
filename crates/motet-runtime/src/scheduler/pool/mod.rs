//! The work-stealing thread pool.
//!
//! A pool is its shared state ([`Pool`]: the injector, the workers' stealable queues and
//! next-task slots, the sleep/wake state, the shutdown flags) and one worker per thread, whose
//! private state ([`WorkerCtx`]) lives on the worker thread's stack. The
//! protocol is written down beside its code, a part per file:
//!
//! - [`schedule`]: where a task goes when it is made runnable (a worker's next-task slot, its wake
//!   queue or spawn stack, the injector);
//! - [`worker`]: what a worker runs next, turn after turn;
//! - [`search`]: what a worker whose own slot and queues are empty does: search, spin, park;
//! - [`steal`]: how a thief takes work from other workers' queues, and when it backs off;
//! - [`slot_rescue`]: how a task left in the slot of a worker stuck in a long turn is taken over;
//! - [`quiescence`] and [`shutdown`]: when the pool has nothing left to do, and how it stops.
//!
//! The sleep/wake protocol itself is [`idle`](super::idle)'s, the slot's [`slot`](super::slot)'s.

mod quiescence;
mod schedule;
mod search;
mod shutdown;
mod slot_rescue;
mod steal;
mod worker;

use std::cell::Cell;
use std::ptr;

use crossbeam_deque::{Injector, Stealer};

pub(crate) use worker::LocalQueues;

use super::idle::Idle;
use super::local_queue::{LocalQueue, Order};
use super::slot::Slot;
use crate::metrics::{Counter, WorkerCounters};
use crate::rng::Rng;
use crate::runtime::Stealing;
use crate::sync::atomic::AtomicBool;
use crate::sync::{Condvar, Mutex};
use crate::task::raw::{Header as TaskHeader, TaskRef};
use worker::WorkerCtx;

/// The shared part of the pool.
pub(crate) struct Pool {
    injector: Injector<TaskRef>,
    /// Thieves' ends of the workers' wake queues.
    stealers: Box<[Stealer<TaskRef>]>,
    /// Thieves' ends of the workers' spawn stacks.
    spawn_stealers: Box<[Stealer<TaskRef>]>,
    /// The workers' next-task slots (see [`Slot`] and [`slot_rescue`]).
    slots: Box<[Slot<TaskHeader>]>,
    pub(crate) idle: Idle,
    shutdown: AtomicBool,
    /// Set once shutdown has finished (workers joined, injector drained): nothing can run any more,
    /// so the pool is quiescent for good.
    stopped: AtomicBool,
    chain_bound: u32,
    /// [`Stealing::Selective`] (see [`steal`]).
    selective: bool,
    quiescent_lock: Mutex<()>,
    quiescent_cv: Condvar,
    pub(crate) counters: Box<[WorkerCounters]>,
}

thread_local! {
    /// The worker running on this thread, if any.
    static CURRENT: Cell<*const WorkerCtx> = const { Cell::new(ptr::null()) };
    /// Set while this thread drains tasks into `shutdown`, so nested schedules queue instead of
    /// recursing.
    static DRAINING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is a worker of any pool runtime.
pub(crate) fn on_any_worker() -> bool {
    !CURRENT.with(Cell::get).is_null()
}

impl Pool {
    /// A pool for `num_workers` workers; returns it with the workers' queues, to be moved onto their
    /// threads.
    pub(crate) fn new(
        num_workers: usize,
        chain_bound: u32,
        stealing: Stealing,
    ) -> (Pool, Vec<LocalQueues>) {
        let mut locals = Vec::with_capacity(num_workers);
        let mut stealers = Vec::with_capacity(num_workers);
        let mut spawn_stealers = Vec::with_capacity(num_workers);
        for _ in 0..num_workers {
            let (wakes, wake_stealer) = LocalQueue::shared(Order::Fifo);
            let (spawns, spawn_stealer) = LocalQueue::shared(Order::Lifo);
            if num_workers == 1 {
                // Nobody steals from the only worker: it keeps private rings, and the stealers
                // of the deques dropped here stay empty for good.
                locals.push(LocalQueues {
                    wakes: LocalQueue::private(Order::Fifo),
                    spawns: LocalQueue::private(Order::Lifo),
                });
            } else {
                locals.push(LocalQueues { wakes, spawns });
            }
            stealers.push(wake_stealer);
            spawn_stealers.push(spawn_stealer);
        }
        let pool = Pool {
            injector: Injector::new(),
            stealers: stealers.into(),
            spawn_stealers: spawn_stealers.into(),
            slots: (0..num_workers).map(|_| Slot::new()).collect(),
            idle: Idle::new(num_workers),
            shutdown: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            chain_bound,
            selective: stealing == Stealing::Selective,
            quiescent_lock: Mutex::new(()),
            quiescent_cv: Condvar::new(),
            counters: (0..num_workers)
                .map(|_| WorkerCounters::default())
                .collect(),
        };
        (pool, locals)
    }

    fn num_workers(&self) -> usize {
        self.stealers.len()
    }

    /// The current thread's worker context, if it is one of this pool's workers.
    #[inline]
    fn current(&self) -> Option<&WorkerCtx> {
        let ctx = CURRENT.with(Cell::get);
        if ctx.is_null() {
            return None;
        }
        // SAFETY: CURRENT points to the WorkerCtx on this thread's stack while the worker loop runs
        // (it is reset before the context is dropped); only this thread reads it.
        let ctx = unsafe { &*ctx };
        ptr::eq(ctx.pool, self).then_some(ctx)
    }

    /// Whether the calling thread is one of this pool's workers.
    pub(crate) fn on_worker(&self) -> bool {
        self.current().is_some()
    }

    /// Bumps a per-worker counter (nothing without the `metrics` feature).
    #[inline(always)]
    fn count(&self, ctx: &WorkerCtx, counter: Counter) {
        #[cfg(feature = "metrics")]
        self.counters[ctx.index].bump(counter);
        #[cfg(not(feature = "metrics"))]
        let _ = (ctx, counter);
    }

    /// Bumps a counter of the current worker, if this thread is one (nothing without the
    /// `metrics` feature).
    #[inline(always)]
    fn count_here(&self, counter: Counter) {
        #[cfg(feature = "metrics")]
        if let Some(ctx) = self.current() {
            self.count(ctx, counter);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = counter;
    }
}

impl Default for Rng {
    fn default() -> Rng {
        Rng::new(0)
    }
}
