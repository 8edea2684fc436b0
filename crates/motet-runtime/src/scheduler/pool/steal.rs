//! How a thief takes work from other workers, and when it backs off instead.
//!
//! # How a thief takes work
//!
//! On a 2-core machine, a message chain or a driver that makes thousands of tiny tasks runnable
//! in one turn measured several times slower on two workers than on one: a searching worker took
//! every task as soon as it was queued (in `fib` for BoC, one steal per two tasks run; in
//! `chameneos`, a tenth of all turns began with a steal), so both workers ran the same few
//! actors or cowns and moved their cache lines, the tasks' and the allocator's, back and forth
//! on every hand-off, for work that ran a few hundred nanoseconds. With [`Stealing::Selective`](crate::Stealing::Selective)
//! (the default) a thief is selective in three ways:
//!
//! - **Not from a queue of one.** A running worker's queue is taken from only once it holds
//!   `STEAL_MIN_QUEUE` (2) tasks, or once its owner has begun no turn for `SLOT_PATIENCE` (the
//!   rule of the slot): a lone queued task runs on its own worker a turn or two later, unless
//!   that turn runs long. The last searcher's check before it parks, and a timed-parked worker's
//!   look at its timeout, follow the same rule (a queue the thief would leave alone wakes
//!   nobody: its owner is running, and the parked worker watches it).
//! - **Half the queue.** A thief takes half of a victim's queue, however long, where crossbeam's
//!   batch stops at 32 tasks: one steal per burst rather than one per 32 tasks.
//! - **Back off when a steal did not pay.** A worker that took work from another and ran out of
//!   work again within `STEAL_WORTH` (20 µs) backs off: before it searches again it sleeps for
//!   `BACKOFF_MIN` (20 µs), doubling up to `BACKOFF_MAX` (200 µs) while its steals keep not
//!   paying, then looks once instead of spinning. It stays counted as searching while it sleeps,
//!   so producers wake nobody meanwhile. A steal whose work lasted longer resets the back-off.
//!   After the sleep it takes a queue or slot whose owner began no turn during it, whatever its
//!   length.
//!
//! [`Stealing::Eager`](crate::Stealing::Eager) keeps the former policy (any queued task, batches of at most 32, no
//! back-off), for comparison.

use std::time::{Duration, Instant};

use crossbeam_deque::Steal;

use super::worker::WorkerCtx;
use super::Pool;
use crate::metrics::Counter;
use crate::sync::atomic::Ordering::SeqCst;
use crate::task::raw::TaskRef;

/// A selective thief leaves a running worker's queue alone while it holds fewer tasks than this
/// and its owner moves from turn to turn: the owner runs that task within a turn or two.
pub(super) const STEAL_MIN_QUEUE: usize = 2;
/// Work taken from another worker that ran out sooner than this did not pay for the cache lines
/// it moved: the thief then backs off before it searches again.
pub(super) const STEAL_WORTH: Duration = Duration::from_micros(20);
/// The first back-off after a steal that did not pay; each further one doubles it.
pub(super) const BACKOFF_MIN: Duration = Duration::from_micros(20);
/// The longest back-off.
pub(super) const BACKOFF_MAX: Duration = Duration::from_micros(200);

impl Pool {
    /// Whether [`Pool::steal`] would find something for a worker back from a timed park: work in
    /// the injector, or a queue that a selective thief takes from (two tasks or more, or one whose
    /// owner has begun no turn since [`Pool::note_turns`]). With [`Stealing::Eager`](crate::Stealing::Eager), any queued
    /// work.
    pub(super) fn has_stealable(&self, ctx: &WorkerCtx) -> bool {
        if !self.selective {
            return self.has_work();
        }
        !self.injector.is_empty()
            || (0..self.num_workers()).any(|v| {
                let len = self.stealers[v].len().max(self.spawn_stealers[v].len());
                len >= STEAL_MIN_QUEUE
                    || (len > 0 && self.slots[v].turn() == ctx.seen_turns[v].get())
            })
    }

    /// Whether any task waits in the injector or in a worker's queues (the private rings of a
    /// pool of one worker are left out: only their worker looks, and only once they are empty).
    /// The slots are left out too: a slot's task is rescued by a timed park, not by a wake-up (a
    /// parking worker that woke another for an occupied slot would keep the pool polling a
    /// ping-pong pair's slot).
    pub(super) fn has_work(&self) -> bool {
        !self.injector.is_empty()
            || self.stealers.iter().any(|s| !s.is_empty())
            || self.spawn_stealers.iter().any(|s| !s.is_empty())
    }

    pub(super) fn steal(&self, ctx: &WorkerCtx, stuck: &dyn Fn(usize) -> bool) -> Option<TaskRef> {
        let n = self.num_workers();
        // Private rings: the only worker of its pool, with nobody to steal from.
        let (Some(local), Some(spawns)) = (ctx.local.worker(), ctx.spawns.worker()) else {
            return self.steal_injector(ctx);
        };
        let mut rng = ctx.rng.take();
        let start = rng.below(n);
        ctx.rng.set(rng);
        for i in 0..n {
            let victim = (start + i) % n;
            if victim == ctx.index {
                continue;
            }
            // Woken tasks first (the victim's oldest), then the oldest of its spawns: the roots
            // of its largest subtrees, which keep their depth-first order on the thief's stack.
            for (stealers, dest) in [(&self.stealers, local), (&self.spawn_stealers, spawns)] {
                let len = stealers[victim].len();
                if len == 0 || (self.selective && len < STEAL_MIN_QUEUE && !stuck(victim)) {
                    continue;
                }
                loop {
                    let stolen = if self.selective {
                        // Half of the queue, however long: crossbeam's default batch stops at 32.
                        stealers[victim].steal_batch_with_limit_and_pop(dest, len.div_ceil(2))
                    } else {
                        stealers[victim].steal_batch_and_pop(dest)
                    };
                    match stolen {
                        Steal::Success(task) => {
                            self.count(ctx, Counter::Steal);
                            self.note_steal(ctx);
                            return Some(task);
                        }
                        Steal::Retry => continue,
                        Steal::Empty => break,
                    }
                }
            }
        }
        let found = self.steal_injector(ctx);
        if found.is_none() {
            self.count(ctx, Counter::FailedSteal);
        }
        found
    }

    /// A task from the injector: a batch into the wake queue where that is a crossbeam deque, one
    /// task at a time into a private ring.
    pub(super) fn steal_injector(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        loop {
            let stolen = match ctx.local.worker() {
                Some(local) => self.injector.steal_batch_and_pop(local),
                None => self.injector.steal(),
            };
            match stolen {
                Steal::Success(task) => return Some(task),
                Steal::Retry => continue,
                Steal::Empty => return None,
            }
        }
    }

    /// Remembers when this worker began running work taken from another worker (selective
    /// stealing only: an eager thief never backs off).
    pub(super) fn note_steal(&self, ctx: &WorkerCtx) {
        if self.selective && ctx.stole_at.get().is_none() {
            ctx.stole_at.set(Some(Instant::now()));
        }
    }

    /// Called when this worker has run dry: if it ran stolen work since, judges whether the steal
    /// paid (see [`STEAL_WORTH`]) and sets the back-off.
    pub(super) fn end_episode(&self, ctx: &WorkerCtx) {
        if let Some(rescue) = ctx.rescued.take() {
            self.judge_rescue(ctx, rescue);
        }
        let Some(stole_at) = ctx.stole_at.take() else {
            return;
        };
        if stole_at.elapsed() >= STEAL_WORTH {
            ctx.backoff.set(Duration::ZERO);
        } else {
            let next = (ctx.backoff.get() * 2).clamp(BACKOFF_MIN, BACKOFF_MAX);
            ctx.backoff.set(next);
        }
    }

    /// Sleeps for the current back-off instead of spinning, still counted as searching (so
    /// producers wake nobody meanwhile; only shutdown cuts it short), then looks once: a queue
    /// whose owner began no turn during the sleep (which outlasts [`SLOT_WAIT`](super::slot_rescue::SLOT_WAIT)) is taken
    /// whatever its length, and a slot whose owner stayed in one turn for the wait on it
    /// (see [`Pool::slot_ripe`]), as after a timed park.
    pub(super) fn back_off(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        self.note_turns(ctx);
        let deadline = Instant::now() + ctx.backoff.get();
        loop {
            if self.shutdown.load(SeqCst) {
                return None;
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            std::thread::sleep(deadline - now);
        }
        self.steal(ctx, &|v| self.slots[v].turn() == ctx.seen_turns[v].get())
            .or_else(|| self.rescue_slot(ctx))
    }
}
