//! Taking over the task in the next-task slot of a worker that stays inside one turn.
//!
//! # The next-task slot is stealable
//!
//! A task in the slot waits for the end of its owner's current turn. Usually that is a moment
//! away, but a turn can run long: a busy-wait, a long computation, a blocking wait for the very
//! task it just scheduled. So the slot is shared ([`Slot`](crate::scheduler::slot::Slot)): the owner fills an empty slot with a
//! store (an occupied one keeps its task), empties it with a swap (loads and stores alone in a
//! pool of one worker, where nobody else looks at it), and publishes a turn counter (a relaxed
//! store per turn); a searching worker that found nothing in any queue takes a slot's task with
//! one swap once it has seen the owner stay in the same turn for `SLOT_WAIT` (10 µs), as Go's
//! scheduler takes a busy P's `runnext`. A ping-pong pair, whose turns are short, keeps running
//! on one worker.
//!
//! **A rescue that did not pay makes the thief wait longer on that turn.** A producer that sends
//! all its messages in one long turn (Savina's `count`) keeps its consumer in its slot: the
//! consumer is idle, the first message schedules it, and it runs after the producer's turn, on the
//! same worker. A thief took it over after `SLOT_WAIT`; it drained its mailbox faster than the
//! producer filled it, went idle, landed in the producer's slot again with the next message, and
//! was taken over again, so that every message, and the consumer's state, crossed cores, which
//! measured much slower than with the consumer left behind its producer (see
//! docs/measurements/2026-11-29-runtime.md, "A thief that stops splitting a producer from its
//! consumer").
//! So a thief remembers, per other worker, the turn it watches, since when, and how long it waits
//! before it takes that turn's slot. When the work a rescue began runs out while the slot's owner
//! is still inside the same turn, the turn is feeding the task faster than it runs out, and the
//! thief's wait on that slot is multiplied by `SLOT_WAIT_GROWTH` (4), up to `SLOT_WAIT_MAX`
//! (10 ms), counted from the rescue; the owner's next turn starts again at `SLOT_WAIT`. A turn
//! that blocks on a task it handed over keeps its first rescue after `SLOT_WAIT`; only the further
//! hand-offs of the same turn wait longer, at most about `SLOT_WAIT_MAX` each (`tests/slot.rs`
//! runs a turn that hands over and waits for 40 successors in a row). Leaving the consumer behind
//! its producer for good would be faster still on `count`: the rescues made while the wait grows,
//! early in the producer's turn, cost the difference.
//!
//! Filling the slot wakes nobody: a hand-off from task to task (a message to an idle actor) is
//! the hottest path of the pool, and a wake check there made a ping-pong pair on a 2-worker pool
//! wake the other worker on every message, which then polled the pair's slot and took its cache
//! line away from the owner on every turn. Instead, an idle worker is there to rescue a slot in
//! one of two ways:
//!
//! - A searching worker watches the slots while it spins (for `SPIN_BEFORE_PARK`, then it parks
//!   whatever it sees), taking a task over after its wait (`SLOT_WAIT` at first) on an unchanged
//!   turn counter.
//! - A parked worker parks with a timeout whenever another worker is unparked (only the last
//!   worker to park sleeps without one; see `idle`). On timing out it takes over any slot whose
//!   owner's turn counter has not moved for its wait, steals once, and parks again. A task
//!   stuck behind a long turn therefore waits at most about `WATCH_MAX` for a parked worker (or
//!   `SLOT_WAIT_MAX`, if rescues from the same turn did not pay).
//!
//! The spawn stack needs no such care: it is a crossbeam deque, stealable like the wake queue.

use std::time::{Duration, Instant};

use super::worker::WorkerCtx;
use super::Pool;
use crate::metrics::Counter;
use crate::task::raw::TaskRef;

/// How long a searching worker must see another worker stay in one turn, with a task in its slot,
/// before it takes that task (see `Pool::take_slot`), until a rescue from that turn did not pay.
/// Long enough that a ping-pong pair, whose turns last a few hundred nanoseconds, is never split;
/// short next to the turns it rescues.
pub(super) const SLOT_WAIT: Duration = Duration::from_micros(10);
/// After a slot rescue that did not pay (see [`Pool::judge_rescue`]), the wait on that slot for
/// the rest of its owner's turn is multiplied by this.
pub(super) const SLOT_WAIT_GROWTH: u32 = 4;
/// The longest wait on a slot whose rescues did not pay: a task that its owner's turn keeps
/// handing over waits at most about this long for another worker.
pub(super) const SLOT_WAIT_MAX: Duration = Duration::from_millis(10);

/// What a worker knows of another worker's turn, for taking its slot's task over.
#[derive(Clone, Copy)]
pub(super) struct SlotWatch {
    /// The other worker's turn counter when this worker first saw it.
    pub(super) turn: u32,
    /// When this worker first saw that turn counter.
    pub(super) since: Instant,
    /// How long that worker must stay in that turn before this worker takes its slot's task:
    /// [`SLOT_WAIT`], multiplied after each rescue from that turn that did not pay (see
    /// [`Pool::judge_rescue`]).
    pub(super) wait: Duration,
}

/// A slot's task this worker took over, to judge when it runs dry whether that paid.
#[derive(Clone, Copy)]
pub(super) struct Rescue {
    /// The worker whose slot it was.
    pub(super) victim: usize,
    /// That worker's turn counter at the rescue.
    pub(super) turn: u32,
}

impl Pool {
    /// Whether another worker's slot holds a task while its owner has stayed in one turn for
    /// longer than this worker's wait on it (see [`Pool::slot_ripe`]).
    pub(super) fn stuck_slot(&self, ctx: &WorkerCtx) -> bool {
        let now = Instant::now();
        (0..self.num_workers()).any(|victim| {
            victim != ctx.index
                && self.slots[victim].is_occupied()
                && self.slot_ripe(ctx, victim, now)
        })
    }

    /// Remembers the other workers' turn counters, for [`Pool::has_stealable`] and the stuck
    /// queues of [`Pool::steal`], and starts the clock of [`Pool::slot_ripe`] on new turns.
    pub(super) fn note_turns(&self, ctx: &WorkerCtx) {
        let now = Instant::now();
        for (victim, (seen, slot)) in ctx.seen_turns.iter().zip(self.slots.iter()).enumerate() {
            seen.set(slot.turn());
            if victim != ctx.index {
                self.turn_age(ctx, victim, now);
            }
        }
    }

    /// How long `victim` has been inside its current turn as far as this worker has seen (since
    /// it first saw that turn counter, or since it last took that worker's slot); `None` for a
    /// turn it sees for the first time (the clock starts now).
    #[inline]
    pub(super) fn turn_age(
        &self,
        ctx: &WorkerCtx,
        victim: usize,
        now: Instant,
    ) -> Option<Duration> {
        let turn = self.slots[victim].turn();
        let watch = &ctx.slot_watch[victim];
        let w = watch.get();
        if w.turn != turn {
            watch.set(SlotWatch {
                turn,
                since: now,
                wait: SLOT_WAIT,
            });
            return None;
        }
        Some(now.saturating_duration_since(w.since))
    }

    /// Whether this worker may take `victim`'s slot: its owner has stayed inside one turn for
    /// the wait this worker has on it, [`SLOT_WAIT`] at first, longer after rescues from
    /// that turn that did not pay (see [`Pool::judge_rescue`]).
    #[inline]
    pub(super) fn slot_ripe(&self, ctx: &WorkerCtx, victim: usize, now: Instant) -> bool {
        self.turn_age(ctx, victim, now)
            .is_some_and(|age| age >= ctx.slot_watch[victim].get().wait)
    }

    /// Takes `victim`'s slot's task, if its owner has been in one turn for long enough (see
    /// [`Pool::slot_ripe`]), and remembers the rescue to judge it once this worker runs dry.
    pub(super) fn take_slot(
        &self,
        ctx: &WorkerCtx,
        victim: usize,
        now: Instant,
    ) -> Option<TaskRef> {
        let slot = &self.slots[victim];
        if !slot.is_occupied() {
            return None;
        }
        if !self.slot_ripe(ctx, victim, now) {
            return None;
        }
        let task = slot.take()?;
        self.count(ctx, Counter::Steal);
        self.count(ctx, Counter::SlotSteal);
        self.note_steal(ctx);
        let watch = &ctx.slot_watch[victim];
        let w = watch.get();
        // The clock for the next rescue from this turn starts now: the slot is empty.
        watch.set(SlotWatch { since: now, ..w });
        ctx.rescued.set(Some(Rescue {
            victim,
            turn: w.turn,
        }));
        // SAFETY: only `TaskRef`s are put into slots, and `take` hands each out once.
        Some(unsafe { TaskRef::from_raw(task) })
    }

    /// After a timed park or a back-off: takes the task of a slot whose owner has stayed inside
    /// one turn for long enough (see [`Pool::slot_ripe`]).
    pub(super) fn rescue_slot(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        let now = Instant::now();
        (0..self.num_workers())
            .filter(|&victim| victim != ctx.index)
            .find_map(|victim| self.take_slot(ctx, victim, now))
    }

    /// Judges a slot rescue once the work it began has run out (this worker runs dry). If the
    /// slot's owner is still inside the turn the task was rescued from, the rescue did not pay:
    /// that turn is feeding the task faster than the task runs out of work (a producer's long
    /// turn sending to a consumer that drains its mailbox, goes idle and lands in the slot again
    /// with the next message), and running it here only moves every message, and the consumer's
    /// state, across cores (Savina's `count` on two workers measured much slower than with
    /// the consumer left behind its producer). The wait on that slot is multiplied by
    /// [`SLOT_WAIT_GROWTH`], up to [`SLOT_WAIT_MAX`], for the rest of that turn. A new
    /// turn of the owner starts again at [`SLOT_WAIT`].
    pub(super) fn judge_rescue(&self, ctx: &WorkerCtx, rescue: Rescue) {
        let watch = &ctx.slot_watch[rescue.victim];
        let w = watch.get();
        if w.turn != rescue.turn || self.slots[rescue.victim].turn() != rescue.turn {
            return;
        }
        let wait = (w.wait * SLOT_WAIT_GROWTH).min(SLOT_WAIT_MAX);
        watch.set(SlotWatch { wait, ..w });
    }
}
