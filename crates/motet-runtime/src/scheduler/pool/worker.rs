//! A worker: its private state, and the turns it runs.
//!
//! # What a worker runs next
//!
//! 1. Every 61st turn, the injector first (so outside work is not starved by local work); on the
//!    turn halfway between, the *oldest* task of its spawn stack (so a task at the bottom waits at
//!    most 61 turns, however fast new tasks arrive on top).
//! 2. The slot, unless `chain_bound` slot tasks ran in a row while other tasks wait in its queues or
//!    the injector: then the slot's task goes to the back of the wake queue so the others get a turn
//!    (a ping-pong pair cannot starve the rest). With nothing waiting, the chain goes on.
//! 3. Its wake queue (oldest first), then its spawn stack (newest first), then a batch from the
//!    injector.
//! 4. Otherwise it searches: steals a batch from the other workers (their wake queues, then their
//!    spawn stacks), starting at a random victim, and keeps trying for up to 50 µs (in a pool of
//!    more than one worker): fine-grained work (a master handing out terms of a few microseconds
//!    each) comes back sooner than a parked thread wakes up. Which queues it takes from, how
//!    much, and when it backs off instead of spinning: see [`steal`](super::steal).
//!    While searching it also watches the other workers' slots, and takes a slot's task over
//!    when its owner stays inside one turn (see [`slot_rescue`](super::slot_rescue)).
//! 5. Otherwise it parks (see [`search`](super::search), and [`idle`](crate::scheduler::idle) for the
//!    sleep/wake protocol): with a timeout
//!    while another worker is unparked, after which it looks at the slots and queues once and
//!    parks again, the timeout doubling from `WATCH_MIN` (50 µs) up to `WATCH_MAX` (1 ms) while
//!    it finds nothing.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::time::{Duration, Instant};

use super::slot_rescue::{Rescue, SlotWatch, SLOT_WAIT};
use super::{Pool, CURRENT, DRAINING};
use crate::metrics::Counter;
use crate::rng::Rng;
use crate::scheduler::local_queue::LocalQueue;
use crate::scheduler::slot::Slot;
use crate::sync::atomic::Ordering::SeqCst;
use crate::task::raw::{Header as TaskHeader, RawOutcome, TaskRef};
use crate::timer::Timers;

/// How often (in turns) a worker looks at the injector before its own queues, and at the oldest
/// task of its spawn stack.
pub(super) const INJECTOR_INTERVAL: u32 = 61;
/// The turn (counted from 1, modulo [`INJECTOR_INTERVAL`]) at which a worker runs the oldest task
/// of its spawn stack; the injector's turn is the last one of each interval.
pub(super) const OLDEST_TURN: u32 = 31;

/// A worker's own queues, made with the pool and moved onto the worker's thread: crossbeam deques,
/// or private rings in a pool of one worker (see [`LocalQueue`]).
pub(crate) struct LocalQueues {
    /// Tasks woken up (made runnable again), oldest first.
    pub(super) wakes: LocalQueue,
    /// Tasks just created, newest first for the owner (oldest first for thieves).
    pub(super) spawns: LocalQueue,
}

/// A worker's private state, on its thread's stack.
pub(crate) struct WorkerCtx {
    pub(super) pool: *const Pool,
    pub(super) index: usize,
    /// This worker's own slot, `&pool.slots[index]`, kept here so that the hot path (a fill per
    /// schedule, a take and a turn mark per turn) does not index the pool's slots each time.
    pub(super) slot: NonNull<Slot<TaskHeader>>,
    /// The only worker of its pool: nobody else looks at its slot (see [`Slot::fill_unshared`]).
    pub(super) alone: bool,
    pub(super) local: LocalQueue,
    pub(super) spawns: LocalQueue,
    /// This worker's turns so far (published to thieves through its slot's turn counter).
    pub(super) turns: Cell<u32>,
    pub(super) chain: Cell<u32>,
    /// Turns left until the next one that looks elsewhere first (see [`Pool::periodic_task`]).
    pub(super) countdown: Cell<u32>,
    /// Whether that turn takes the oldest spawn (otherwise it looks at the injector).
    pub(super) oldest_next: Cell<bool>,
    pub(super) rng: Cell<Rng>,
    /// The other workers' turn counters as this worker saw them when it last parked with a
    /// timeout (see [`Pool::rescue_slot`]).
    pub(super) seen_turns: Box<[Cell<u32>]>,
    /// When this worker last took work from another worker, if it has not run dry since.
    pub(super) stole_at: Cell<Option<Instant>>,
    /// The current back-off after steals that did not pay (zero: none).
    pub(super) backoff: Cell<Duration>,
    /// Per other worker: how long this worker has seen it inside one turn, and how long it must
    /// wait before it takes that worker's slot (see [`Pool::slot_ripe`]).
    pub(super) slot_watch: Box<[Cell<SlotWatch>]>,
    /// The slot rescue this worker's current work began with, if any: from which worker and in
    /// which of its turns (see [`Pool::judge_rescue`]).
    pub(super) rescued: Cell<Option<Rescue>>,
}

impl WorkerCtx {
    /// This worker's own slot.
    #[inline(always)]
    pub(super) fn slot(&self) -> &Slot<TaskHeader> {
        // SAFETY: `slot` points into the pool's `slots`, which live as long as the pool; the
        // context lives inside `Pool::run_worker`, which borrows the pool for all that time.
        unsafe { self.slot.as_ref() }
    }
}

impl Pool {
    /// The body of worker thread `index`. Out of line, so that the worker's loop is compiled the
    /// same whatever the thread's closure does around it.
    #[inline(never)]
    pub(crate) fn run_worker(&self, index: usize, queues: LocalQueues, timers: &Timers) {
        let ctx = WorkerCtx {
            pool: self,
            index,
            slot: NonNull::from(&self.slots[index]),
            alone: self.num_workers() == 1,
            local: queues.wakes,
            spawns: queues.spawns,
            turns: Cell::new(0),
            chain: Cell::new(0),
            countdown: Cell::new(OLDEST_TURN),
            oldest_next: Cell::new(true),
            rng: Cell::new(Rng::new(index as u64 + 1)),
            seen_turns: self.slots.iter().map(|s| Cell::new(s.turn())).collect(),
            stole_at: Cell::new(None),
            backoff: Cell::new(Duration::ZERO),
            slot_watch: self
                .slots
                .iter()
                .map(|s| {
                    Cell::new(SlotWatch {
                        turn: s.turn(),
                        since: Instant::now(),
                        wait: SLOT_WAIT,
                    })
                })
                .collect(),
            rescued: Cell::new(None),
        };
        CURRENT.with(|c| c.set(&ctx));
        self.worker_loop(&ctx, timers);
        // Shutdown: release what is left here, including what those releases schedule.
        DRAINING.with(|d| d.set(true));
        while let Some(task) = ctx
            .slot()
            .take()
            // SAFETY: only `TaskRef`s are put into slots, and `take` hands each out once.
            .map(|task| unsafe { TaskRef::from_raw(task) })
            .or_else(|| ctx.local.pop())
            .or_else(|| ctx.spawns.pop())
        {
            task.shutdown();
        }
        DRAINING.with(|d| d.set(false));
        CURRENT.with(|c| c.set(ptr::null()));
    }

    /// The worker's loop, compiled twice: for the only worker of its pool (`ALONE`), whose slot
    /// nobody else looks at, it takes the slot's task with plain loads and stores and publishes
    /// no turn counter (only thieves read it), without testing `ctx.alone` on every turn.
    pub(super) fn worker_loop(&self, ctx: &WorkerCtx, timers: &Timers) {
        if ctx.alone {
            self.worker_turns::<true>(ctx, timers);
        } else {
            self.worker_turns::<false>(ctx, timers);
        }
    }

    pub(super) fn worker_turns<const ALONE: bool>(&self, ctx: &WorkerCtx, timers: &Timers) {
        // The hot loop: a turn after another while this worker has work of its own, with
        // nothing to test between two turns but the shutdown flag. The search and the parking,
        // and the state they keep, are `find_work`'s.
        loop {
            if self.shutdown.load(SeqCst) {
                return;
            }
            let task = match self.next_task::<ALONE>(ctx) {
                Some(task) => task,
                None => match self.find_work(ctx, timers) {
                    Some(task) => task,
                    None => return,
                },
            };
            self.run_task::<ALONE>(ctx, task);
        }
    }

    #[inline(always)]
    pub(super) fn next_task<const ALONE: bool>(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        // A countdown to the next turn that looks elsewhere first, rather than a modulo or a
        // turn number compared with both such turns: one decrement and one test per turn.
        let left = ctx.countdown.get() - 1;
        ctx.countdown.set(left);
        if left == 0 {
            if let Some(task) = self.periodic_task(ctx) {
                return Some(task);
            }
        }
        if let Some(task) = self.take_own_slot::<ALONE>(ctx) {
            let chain = ctx.chain.get();
            if chain < self.chain_bound {
                ctx.chain.set(chain + 1);
                self.count(ctx, Counter::Slot);
                return Some(task);
            }
            if ctx.local.is_empty() && ctx.spawns.is_empty() && self.injector.is_empty() {
                // Nobody here is waiting for a turn: moving the chain to the queue would only
                // invite another worker to steal one end of it.
                ctx.chain.set(0);
                self.count(ctx, Counter::Slot);
                return Some(task);
            }
            // The others get a turn: the chain's task queues behind the woken tasks waiting.
            ctx.local.push(task);
            self.notify_stealable();
        }
        ctx.chain.set(0);
        ctx.local
            .pop()
            .or_else(|| ctx.spawns.pop())
            .or_else(|| self.steal_injector(ctx))
    }

    /// The task in this worker's own slot, if any. `ALONE` is `ctx.alone` (see
    /// [`Pool::worker_loop`]).
    #[inline]
    pub(super) fn take_own_slot<const ALONE: bool>(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        debug_assert_eq!(ALONE, ctx.alone);
        let slot = ctx.slot();
        let task = if ALONE {
            slot.take_unshared()
        } else {
            slot.take()
        }?;
        // SAFETY: only `TaskRef`s are put into slots, and `take` hands each out once.
        Some(unsafe { TaskRef::from_raw(task) })
    }

    /// The turns that look elsewhere first (step 1 of "What a worker runs next"), alternately: the
    /// oldest task of the spawn stack at turn [`OLDEST_TURN`] of every [`INJECTOR_INTERVAL`], the
    /// injector at the last turn of it. Sets the countdown to the next one. Out of line: it runs
    /// on one turn in thirty.
    #[inline(never)]
    pub(super) fn periodic_task(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        if ctx.oldest_next.get() {
            ctx.oldest_next.set(false);
            ctx.countdown.set(INJECTOR_INTERVAL - OLDEST_TURN);
            self.oldest_spawn(ctx)
        } else {
            ctx.oldest_next.set(true);
            ctx.countdown.set(OLDEST_TURN);
            self.steal_injector(ctx)
        }
    }

    /// The oldest task of this worker's spawn stack (the end thieves take from).
    pub(super) fn oldest_spawn(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        ctx.spawns.pop_oldest(&self.spawn_stealers[ctx.index])
    }

    #[inline]
    pub(super) fn run_task<const ALONE: bool>(&self, ctx: &WorkerCtx, task: TaskRef) {
        self.count(ctx, Counter::Task);
        if !ALONE {
            // For thieves, who watch for a worker stuck in one turn; a pool of one has none.
            let turns = ctx.turns.get().wrapping_add(1);
            ctx.turns.set(turns);
            ctx.slot().begin_turn(turns);
        }
        match catch_unwind(AssertUnwindSafe(|| task.run())) {
            Ok(RawOutcome::Idle) => {}
            Ok(RawOutcome::Yield(task)) => {
                ctx.local.push(task);
                self.notify_stealable();
            }
            Err(_) => {
                // Models contain their users' panics; one escaping here is a model bug. The task is
                // dropped from the schedule and the worker carries on.
                eprintln!("motet-runtime: a task panicked outside its model's containment");
            }
        }
    }
}
