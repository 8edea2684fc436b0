//! A worker whose own slot and queues are empty: it searches (steals, spins while watching the
//! other workers' slots), parks, and looks again when woken, until it has a task to run.
//!
//! Only searching workers spin (at most half the workers, see [`idle`](crate::scheduler::idle)),
//! and only in a pool of more than one; a spinning worker yields its core between looks. A worker
//! parks with a timeout while another worker is unparked, and watches the slots and queues at each
//! timeout (see [`slot_rescue`](super::slot_rescue)); the last worker to park sleeps until a
//! wake-up.

use std::time::{Duration, Instant};

use super::slot_rescue::SLOT_WAIT;
use super::worker::WorkerCtx;
use super::Pool;
use crate::metrics::Counter;
use crate::scheduler::idle::Wake;
use crate::sync::atomic::Ordering::SeqCst;
use crate::task::raw::TaskRef;
use crate::timer::Timers;

/// How long a searching worker keeps looking for work before it parks (see `Pool::spin_search`).
pub(super) const SPIN_BEFORE_PARK: Duration = Duration::from_micros(50);
/// Spin-loop hints between two looks while searching.
pub(super) const SPIN_PAUSES: u32 = 64;
/// The first timeout of a worker that parks while another worker is unparked (see "The next-task
/// slot is stealable" above).
pub(super) const WATCH_MIN: Duration = Duration::from_micros(50);
/// The longest such timeout: each timeout that finds nothing doubles the next, up to this.
pub(super) const WATCH_MAX: Duration = Duration::from_millis(1);

impl Pool {
    /// A worker whose own slot and queues are empty: searches (steals, spins), parks, and looks
    /// again when woken, until it has a task to run (`None`: shutdown). A worker that finds work
    /// as a searcher stops searching first (see `idle`). Out of line: the worker's loop keeps its
    /// turns tight.
    #[inline(never)]
    pub(super) fn find_work(&self, ctx: &WorkerCtx, timers: &Timers) -> Option<TaskRef> {
        let mut searching = false;
        // Back from a timed park: one look at the slots and queues, without spinning.
        let mut rested = false;
        loop {
            self.end_episode(ctx);
            let found = if rested {
                self.rescue_slot(ctx).or_else(|| {
                    self.steal(ctx, &|v| self.slots[v].turn() == ctx.seen_turns[v].get())
                })
            } else {
                if !searching {
                    searching = self.idle.try_start_search();
                }
                if searching && !ctx.backoff.get().is_zero() {
                    self.count(ctx, Counter::Backoff);
                    self.back_off(ctx)
                } else if searching {
                    self.steal(ctx, &|_| false)
                        .or_else(|| self.spin_search(ctx))
                } else {
                    None
                }
            };
            if found.is_some() {
                self.stop_searching(ctx, searching);
                return found;
            }
            let info = self.idle.prepare_park(ctx.index, searching)?;
            // A queue the thief would leave alone (see `has_stealable`) wakes nobody: its owner is
            // running and runs it, and this worker, parking while the owner runs, watches it.
            if info.last_searcher && self.has_stealable(ctx) && self.idle.notify_one() {
                self.count(ctx, Counter::Wake);
            }
            if info.last_unparked {
                self.check_quiescent(timers);
            }
            self.count(ctx, Counter::Park);
            #[cfg(feature = "tracing")]
            tracing::trace!(worker = ctx.index, "park");
            // The last worker to park sleeps until a wake-up: nobody runs, so no slot can fill.
            // Any other watches the slots (see "The next-task slot is stealable").
            let wake = if info.last_unparked || self.num_workers() == 1 {
                self.idle.park(ctx.index);
                Wake::Notified
            } else {
                self.watch(ctx)
            };
            #[cfg(feature = "tracing")]
            tracing::trace!(worker = ctx.index, ?wake, "unpark");
            if self.shutdown.load(SeqCst) {
                return None;
            }
            searching = wake == Wake::Notified;
            rested = wake == Wake::Unparked;
            // Its own slot and queues first, as at the top of the worker's loop.
            let next = if ctx.alone {
                self.next_task::<true>(ctx)
            } else {
                self.next_task::<false>(ctx)
            };
            if let Some(task) = next {
                self.stop_searching(ctx, searching);
                return Some(task);
            }
        }
    }

    /// A searching worker that found work stops searching (and may wake another searcher).
    #[inline]
    pub(super) fn stop_searching(&self, ctx: &WorkerCtx, searching: bool) {
        if searching && self.idle.stop_search() {
            self.count(ctx, Counter::Wake);
        }
    }

    /// A searching worker that found nothing keeps looking for a short while before it parks: work
    /// often comes back within microseconds (a reply, the next request of a master handing out
    /// work), and parking costs a futex wait here plus a futex wake on the thread that makes the
    /// next task stealable, which then waits for this thread to be scheduled again. Only searching
    /// workers spin (at most half the workers), and only in a pool of more than one.
    ///
    /// Besides the queues it watches the other workers' slots: a slot whose owner stays in one
    /// turn for [`SLOT_WAIT`] is taken over (see [`Slot`](crate::scheduler::slot::Slot)). At the deadline it gives up
    /// whatever it sees: a slot's task stuck behind a longer turn is left to the timed park.
    pub(super) fn spin_search(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        let n = self.num_workers();
        if n == 1 {
            return None;
        }
        let deadline = Instant::now() + SPIN_BEFORE_PARK;
        loop {
            for _ in 0..SPIN_PAUSES {
                std::hint::spin_loop();
            }
            // Between two looks the searcher offers its core to any other runnable thread (an I/O
            // thread, another process's) and carries on at once if there is none. It stays
            // counted as searching, so producers still skip the futex wake: on a machine with
            // more runnable threads than cores, a pure spin would hold a core for its whole
            // `SPIN_BEFORE_PARK` while the thread that has the next piece of work waits for one.
            std::thread::yield_now();
            if self.shutdown.load(SeqCst) {
                return None;
            }
            let now = Instant::now();
            let stuck = |v: usize| {
                self.turn_age(ctx, v, now)
                    .is_some_and(|age| age >= SLOT_WAIT)
            };
            if let Some(task) = self.steal(ctx, &stuck) {
                return Some(task);
            }
            for victim in 0..n {
                if victim == ctx.index {
                    continue;
                }
                if let Some(task) = self.take_slot(ctx, victim, now) {
                    return Some(task);
                }
            }
            if now >= deadline {
                return None;
            }
        }
    }

    /// A timed park: waits, the timeout doubling from [`WATCH_MIN`] to [`WATCH_MAX`], and at each
    /// timeout looks (still counted as parked, so an idle pool stays quiescent) for a slot whose
    /// owner has stayed in one turn for the wait on it (see [`Pool::slot_ripe`]), or for
    /// queued work. Returns once woken, or once it took itself back for what it saw; waits
    /// without a timeout from the moment every worker is parked.
    pub(super) fn watch(&self, ctx: &WorkerCtx) -> Wake {
        let mut timeout = WATCH_MIN;
        self.note_turns(ctx);
        while !self.idle.park_timeout(ctx.index, timeout) {
            if self.shutdown.load(SeqCst) {
                return Wake::Notified;
            }
            if self.idle.all_parked() {
                self.idle.park(ctx.index);
                return Wake::Notified;
            }
            if self.stuck_slot(ctx) || self.has_stealable(ctx) {
                return self.idle.unpark_self(ctx.index);
            }
            self.note_turns(ctx);
            timeout = (timeout * 2).min(WATCH_MAX);
        }
        Wake::Notified
    }
}
