//! The work-stealing thread pool.
//!
//! # Where a task goes
//!
//! - Scheduled by a task running on a worker of the same pool: into that worker's **next-task slot**.
//!   If the slot is taken, the new task goes to one of the worker's two queues (and an idle worker
//!   may be woken to steal it), and the slot keeps its task. So a task that makes exactly one
//!   other task runnable hands it over directly: the worker runs it next, with warm caches and without touching a queue,
//!   as CAF chains actors and Verona keeps the last runnable behaviour.
//! - Scheduled from any other thread: into the global **injector**, and one parked worker is woken.
//! - Scheduled as *shared* (`Handle::schedule_shared`) by a task on a worker: to the back of that
//!   worker's wake queue, where another worker can steal it, and an idle worker is woken. This is
//!   for fan-out: the caller goes on with work of its own and wants the task to run beside it.
//! - A task that yields (more work, but its turn is over) goes to the back of the worker's wake
//!   queue.
//!
//! A worker has two queues. Tasks *woken up* (an actor that received a message) wait in the **wake
//! queue** (crossbeam's FIFO deque): served oldest first, fair among actors. Tasks *just created*
//! ([`Handle::schedule_new`](crate::Handle::schedule_new): an actor's first scheduling) wait on the
//! **spawn stack** (crossbeam's LIFO deque): the owner pops the newest, thieves steal the oldest. A
//! task that creates several tasks in one turn (an actor spawning children) is thereby followed
//! depth first, so the tasks alive at once stay few and their memory stays in cache. With one FIFO
//! queue for all, a recursive program runs breadth first and the actors waiting at once grow with
//! the width of the tree: on fib(25) (150,000 actors) that made a 22 MB working set and three
//! times the time, against 8 MB depth first. Thieves take the oldest spawns, the roots of the
//! largest subtrees, as in Cilk's work-first stealing. In a pool of one worker, where nobody
//! steals, both queues are private rings instead of crossbeam deques, free of atomics
//! ([`LocalQueue`]).
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
//!    much, and when it backs off instead of spinning: see "How a thief takes work" below.
//!    While searching it also watches the other workers' slots, and takes a slot's task over
//!    when its owner stays inside one turn (see below).
//! 5. Otherwise it parks (see [`idle`](super::idle) for the sleep/wake protocol): with a timeout
//!    while another worker is unparked, after which it looks at the slots and queues once and
//!    parks again, the timeout doubling from `WATCH_MIN` (50 µs) up to `WATCH_MAX` (1 ms) while
//!    it finds nothing.
//!
//! # The next-task slot is stealable
//!
//! A task in the slot waits for the end of its owner's current turn. Usually that is a moment
//! away, but a turn can run long: a busy-wait, a long computation, a blocking wait for the very
//! task it just scheduled. So the slot is shared ([`Slot`]): the owner fills an empty slot with a
//! store (an occupied one keeps its task), empties it with a swap (loads and stores alone in a
//! pool of one worker, where nobody else looks at it), and publishes a turn counter (a relaxed
//! store per turn); a searching worker that found nothing in any queue takes a slot's task with one swap
//! once it has seen the owner stay in the same turn for `SLOT_PATIENCE` (10 µs), as Go's
//! scheduler takes a busy P's `runnext`. A ping-pong pair, whose turns are short, keeps running
//! on one worker.
//!
//! **A rescue that did not pay makes the thief more patient with that turn.** A producer that
//! sends all its messages in one long turn (Savina's `count`) keeps its consumer in its slot: the
//! consumer is idle, the first message schedules it, and it runs after the producer's turn, on the
//! same worker. A thief took it over after 10 µs; it drained its mailbox faster than the producer
//! filled it, went idle, landed in the producer's slot again with the next message, and was taken
//! over again, so that every message, and the consumer's state, crossed cores: `count` on two
//! workers took 80 to 90 ms for actors and 30 to 40 ms for processes whenever the second worker had
//! a core of its own, against 11 and 6 ms with the consumer left behind its producer (as when
//! both workers share one core).
//! So a thief remembers, per other worker, the turn it watches, since when, and its patience with
//! that turn's slot. When the work a rescue began runs out while the slot's owner is still inside
//! the same turn, the turn is feeding the task faster than it runs out, and the thief's patience
//! with that slot is multiplied by `SLOT_PATIENCE_GROWTH` (4), up to `SLOT_PATIENCE_MAX` (10 ms),
//! counted from the rescue; the owner's next turn starts again at `SLOT_PATIENCE`. A turn that
//! blocks on a task it handed over keeps its first rescue after 10 µs; only the further hand-offs
//! of the same turn wait longer, at most about 10 ms each (`tests/slot.rs` runs a turn that hands
//! over and waits for 40 successors in a row). Measured against the thief before, six interleaved
//! rounds in a period where the old one hit the slow mode every time: `count` on two workers,
//! median of the rounds' medians, 86.1 → 27.7 ms for actors (slowest iteration 97.0 → 38.3 ms),
//! 38.5 → 12.5 ms for processes; the other Savina programs moved within their rounds' spread (see
//! the crate README). Leaving the consumer behind its producer for good would give 12 to 14 ms:
//! the rescues made while the patience grows, early in the producer's turn, cost the rest.
//!
//! Filling the slot wakes nobody: a hand-off from task to task (a message to an idle actor) is
//! the hottest path of the pool, and a wake check there made a ping-pong pair on a 2-worker pool
//! wake the other worker on every message, which then polled the pair's slot and took its cache
//! line away from the owner on every turn. Instead, an idle worker is there to rescue a slot in
//! one of two ways:
//!
//! - A searching worker watches the slots while it spins (for `SPIN_BEFORE_PARK`, then it parks
//!   whatever it sees), taking a task over after its patience (`SLOT_PATIENCE` at first) of an
//!   unchanged turn counter.
//! - A parked worker parks with a timeout whenever another worker is unparked (only the last
//!   worker to park sleeps without one; see `idle`). On timing out it takes over any slot whose
//!   owner's turn counter has not moved for its patience, steals once, and parks again. A task
//!   stuck behind a long turn therefore waits at most about `WATCH_MAX` for a parked worker (or
//!   `SLOT_PATIENCE_MAX`, if rescues from the same turn did not pay).
//!
//! The spawn stack needs no such care: it is a crossbeam deque, stealable like the wake queue.
//!
//! # How a thief takes work
//!
//! On a 2-core machine, a message chain or a driver that makes thousands of tiny tasks runnable
//! in one turn ran two to five times slower on two workers than on one: a searching worker took
//! every task as soon as it was queued (in `fib` for BoC, one steal per two tasks run; in
//! `chameneos`, a tenth of all turns began with a steal), so both workers ran the same few
//! actors or cowns and moved their cache lines, the tasks' and the allocator's, back and forth
//! on every hand-off, for work that ran a few hundred nanoseconds. With [`Stealing::Patient`]
//! (the default) a thief is thriftier in three ways:
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
//! [`Stealing::Eager`] keeps the former policy (any queued task, batches of at most 32, no
//! back-off), for comparison.
//!
//! # States, quiescence and shutdown
//!
//! A worker is running, searching or parked (see `idle`). A worker parks only with an empty slot and
//! empty queues, so when every worker is parked, all work lies in the injector or in pending timers:
//! the pool is **quiescent** when all workers are parked, the injector is empty and no timer is
//! pending. The last worker to park (and the timer thread after firing) checks this and wakes the
//! threads blocked in `wait_quiescent`.
//!
//! **Shutdown** (dropping the [`Runtime`](crate::Runtime)): set `shutdown`, wake every worker, join
//! them. A worker that sees `shutdown` stops running tasks and hands every task left in its slot and
//! queues to the task's `shutdown` (which may schedule more, into the same queues, until they are empty).
//! The runtime then drains the injector the same way. A task scheduled later still (by another thread
//! holding an actor address, say) sees `shutdown` after pushing and drains the injector itself, so no
//! task is ever stranded.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::time::{Duration, Instant};

use crossbeam_deque::{Injector, Steal, Stealer};

use super::idle::{Idle, Wake};
use super::local_queue::{LocalQueue, Order};
use super::slot::Slot;
use crate::metrics::{Counter, WorkerCounters};
use crate::rng::Rng;
use crate::runtime::Stealing;
use crate::sync::atomic::{AtomicBool, Ordering::SeqCst};
use crate::sync::{lock, Condvar, Mutex};
use crate::task::{RunOutcome, TaskHeader, TaskRef};
use crate::timer::Timers;

/// How often (in turns) a worker looks at the injector before its own queues, and at the oldest
/// task of its spawn stack.
const INJECTOR_INTERVAL: u32 = 61;
/// How long a searching worker keeps looking for work before it parks (see `Pool::spin_search`).
const SPIN_BEFORE_PARK: Duration = Duration::from_micros(50);
/// Spin-loop hints between two looks while searching.
const SPIN_PAUSES: u32 = 64;
/// The turn (counted from 1, modulo [`INJECTOR_INTERVAL`]) at which a worker runs the oldest task
/// of its spawn stack; the injector's turn is the last one of each interval.
const OLDEST_TURN: u32 = 31;
/// How long a searching worker must see another worker stay in one turn, with a task in its slot,
/// before it takes that task (see `Pool::take_slot`), until a rescue from that turn did not pay.
/// Long enough that a ping-pong pair, whose
/// turns last a few hundred nanoseconds, is never split; short next to the turns it rescues.
const SLOT_PATIENCE: Duration = Duration::from_micros(10);
/// After a slot rescue that did not pay (see [`Pool::judge_rescue`]), the patience with that slot
/// for the rest of its owner's turn is multiplied by this.
const SLOT_PATIENCE_GROWTH: u32 = 4;
/// The most patience with a slot whose rescues did not pay: a task that its owner's turn keeps
/// handing over waits at most about this long for another worker.
const SLOT_PATIENCE_MAX: Duration = Duration::from_millis(10);
/// A patient thief leaves a running worker's queue alone while it holds fewer tasks than this
/// and its owner moves from turn to turn: the owner runs that task within a turn or two.
const STEAL_MIN_QUEUE: usize = 2;
/// Work taken from another worker that ran out sooner than this did not pay for the cache lines
/// it moved: the thief then backs off before it searches again.
const STEAL_WORTH: Duration = Duration::from_micros(20);
/// The first back-off after a steal that did not pay; each further one doubles it.
const BACKOFF_MIN: Duration = Duration::from_micros(20);
/// The longest back-off.
const BACKOFF_MAX: Duration = Duration::from_micros(200);
/// The first timeout of a worker that parks while another worker is unparked (see "The next-task
/// slot is stealable" above).
const WATCH_MIN: Duration = Duration::from_micros(50);
/// The longest such timeout: each timeout that finds nothing doubles the next, up to this.
const WATCH_MAX: Duration = Duration::from_millis(1);

/// The shared part of the pool.
pub(crate) struct Pool {
    injector: Injector<TaskRef>,
    /// Thieves' ends of the workers' wake queues.
    stealers: Box<[Stealer<TaskRef>]>,
    /// Thieves' ends of the workers' spawn stacks.
    spawn_stealers: Box<[Stealer<TaskRef>]>,
    /// The workers' next-task slots (see [`Slot`] and the module docs).
    slots: Box<[Slot<TaskHeader>]>,
    pub(crate) idle: Idle,
    shutdown: AtomicBool,
    /// Set once shutdown has finished (workers joined, injector drained): nothing can run any more,
    /// so the pool is quiescent for good.
    stopped: AtomicBool,
    chain_bound: u32,
    /// [`Stealing::Patient`] (see "How a thief takes work" in the module docs).
    patient: bool,
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

/// A worker's own queues, made with the pool and moved onto the worker's thread: crossbeam deques,
/// or private rings in a pool of one worker (see [`LocalQueue`]).
pub(crate) struct LocalQueues {
    /// Tasks woken up (made runnable again), oldest first.
    wakes: LocalQueue,
    /// Tasks just created, newest first for the owner (oldest first for thieves).
    spawns: LocalQueue,
}

/// A worker's private state, on its thread's stack.
struct WorkerCtx {
    pool: *const Pool,
    index: usize,
    /// This worker's own slot, `&pool.slots[index]`, kept here so that the hot path (a fill per
    /// schedule, a take and a turn mark per turn) does not index the pool's slots each time.
    slot: NonNull<Slot<TaskHeader>>,
    /// The only worker of its pool: nobody else looks at its slot (see [`Slot::fill_unshared`]).
    alone: bool,
    local: LocalQueue,
    spawns: LocalQueue,
    /// This worker's turns so far (published to thieves through its slot's turn counter).
    turns: Cell<u32>,
    chain: Cell<u32>,
    /// Turns left until the next one that looks elsewhere first (see [`Pool::periodic_task`]).
    countdown: Cell<u32>,
    /// Whether that turn takes the oldest spawn (otherwise it looks at the injector).
    oldest_next: Cell<bool>,
    rng: Cell<Rng>,
    /// The other workers' turn counters as this worker saw them when it last parked with a
    /// timeout (see [`Pool::rescue_slot`]).
    seen_turns: Box<[Cell<u32>]>,
    /// When this worker last took work from another worker, if it has not run dry since.
    stole_at: Cell<Option<Instant>>,
    /// The current back-off after steals that did not pay (zero: none).
    backoff: Cell<Duration>,
    /// Per other worker: how long this worker has seen it inside one turn, and how patient it
    /// must be before it takes that worker's slot (see [`Pool::slot_ripe`]).
    slot_watch: Box<[Cell<SlotWatch>]>,
    /// The slot rescue this worker's current work began with, if any: from which worker and in
    /// which of its turns (see [`Pool::judge_rescue`]).
    rescued: Cell<Option<Rescue>>,
}

/// What a worker knows of another worker's turn, for taking its slot's task over.
#[derive(Clone, Copy)]
struct SlotWatch {
    /// The other worker's turn counter when this worker first saw it.
    turn: u32,
    /// When this worker first saw that turn counter.
    since: Instant,
    /// How long that worker must stay in that turn before this worker takes its slot's task:
    /// [`SLOT_PATIENCE`], multiplied after each rescue from that turn that did not pay (see
    /// [`Pool::judge_rescue`]).
    patience: Duration,
}

/// A slot's task this worker took over, to judge when it runs dry whether that paid.
#[derive(Clone, Copy)]
struct Rescue {
    /// The worker whose slot it was.
    victim: usize,
    /// That worker's turn counter at the rescue.
    turn: u32,
}

impl WorkerCtx {
    /// This worker's own slot.
    #[inline(always)]
    fn slot(&self) -> &Slot<TaskHeader> {
        // SAFETY: `slot` points into the pool's `slots`, which live as long as the pool; the
        // context lives inside `Pool::run_worker`, which borrows the pool for all that time.
        unsafe { self.slot.as_ref() }
    }
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
            patient: stealing == Stealing::Patient,
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

    /// Makes `task` runnable: into the current worker's slot if this thread is one of this pool's
    /// workers, otherwise into the injector. `new` says whether the task was just created (see the
    /// module docs for where that sends it if it leaves the slot).
    #[inline]
    pub(crate) fn schedule(&self, task: TaskRef, new: bool) {
        match self.current() {
            Some(ctx) => self.schedule_local(ctx, task, new),
            None => self.schedule_remote(task),
        }
    }

    /// Makes `task` runnable where another worker can take it: the back of the current worker's
    /// wake queue (waking an idle worker to steal it) if this thread is one of this pool's
    /// workers, otherwise the injector.
    pub(crate) fn schedule_shared(&self, task: TaskRef) {
        match self.current() {
            Some(ctx) => {
                ctx.local.push(task);
                self.notify_stealable();
            }
            None => self.schedule_remote(task),
        }
    }

    /// Into the slot if it is empty, otherwise to one of this worker's queues (and a parked worker
    /// may be woken to steal it, under the "at most one searcher" rule): the slot keeps the task
    /// that was there first. Filling an empty slot wakes nobody: a slot's task stuck behind a long
    /// turn is rescued by a searching or timed-parked worker (see "The next-task slot is
    /// stealable" in the module docs).
    ///
    /// The slot used to take the newest task and hand its previous occupant to a queue, as Go's
    /// `runnext` and Tokio's LIFO slot do. On a pool of several workers that cost an atomic swap per
    /// displaced task (a thief may have taken the occupant), where keeping the occupant costs a
    /// load; which of the woken tasks runs first makes no difference to a chain of hand-offs (one
    /// task woken per turn), and a task that wakes several still runs one of them next.
    #[inline]
    fn schedule_local(&self, ctx: &WorkerCtx, task: TaskRef, new: bool) {
        let slot = ctx.slot();
        if ctx.alone {
            if slot.fill_unshared(task.as_ptr()).is_err() {
                Self::push_alone(ctx, task, new);
            }
        } else if slot.fill(task.as_ptr()).is_err() {
            self.push_local(ctx, task, new);
        }
    }

    /// [`Pool::push_local`] for the only worker of its pool: onto its private ring, with nobody
    /// to tell. Kept out of line, as `push_local` is, and apart from it, so that its few
    /// instructions carry none of the crossbeam deque's register saves.
    #[inline(never)]
    fn push_alone(ctx: &WorkerCtx, task: TaskRef, new: bool) {
        let queue = if new { &ctx.spawns } else { &ctx.local };
        queue.push_private(task);
    }

    /// The task in this worker's own slot, if any. `ALONE` is `ctx.alone` (see
    /// [`Pool::worker_loop`]).
    #[inline]
    fn take_own_slot<const ALONE: bool>(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
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

    /// Pushes onto one of this worker's queues and, if the queue was empty, tells an idle worker
    /// there is something to steal. Kept out of line: `schedule` is inlined into every send, and
    /// usually finds the slot empty.
    ///
    /// A push onto a queue that already holds a task looks for nobody: the push that made it
    /// non-empty did (a `SeqCst` fence, the most expensive step of a push: a task that wakes four
    /// others in one turn would pay it three times), and a worker woken then, or searching then,
    /// finds this task too. Nothing depends on it for progress: the owner runs its own queues
    /// before it parks, and a worker that parks while the owner runs watches the queues with a
    /// timed park (see `watch`), so a task the others missed waits at most one watch timeout for
    /// them, and usually runs on its own worker first.
    #[inline(never)]
    fn push_local(&self, ctx: &WorkerCtx, task: TaskRef, new: bool) {
        let queue = if new { &ctx.spawns } else { &ctx.local };
        let was_empty = queue.is_empty();
        queue.push(task);
        if was_empty {
            self.notify_stealable();
        }
    }

    fn schedule_remote(&self, task: TaskRef) {
        self.injector.push(task);
        self.idle.notify_one();
        if self.shutdown.load(SeqCst) {
            self.drain_injector();
        }
    }

    #[inline]
    fn notify_stealable(&self) {
        if self.num_workers() > 1 && self.idle.notify_one() {
            self.count_here(Counter::Wake);
        }
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

    /// Whether [`Pool::steal`] would find something for a worker back from a timed park: work in
    /// the injector, or a queue that a patient thief takes from (two tasks or more, or one whose
    /// owner has begun no turn since [`Pool::note_turns`]). With [`Stealing::Eager`], any queued
    /// work.
    fn has_stealable(&self, ctx: &WorkerCtx) -> bool {
        if !self.patient {
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
    fn has_work(&self) -> bool {
        !self.injector.is_empty()
            || self.stealers.iter().any(|s| !s.is_empty())
            || self.spawn_stealers.iter().any(|s| !s.is_empty())
    }

    /// Quiescent: every worker parked, nothing in the injector, no pending timer.
    ///
    /// The three conditions are read one after the other, so they must describe one instant: a timer
    /// callback (or another thread) could otherwise push a task after the first read, wake a worker
    /// that steals it before the second, and return before the third, and the pool would look
    /// quiescent while that worker runs the task. Work only moves out of the injector through a worker
    /// that a counted wake-up unparked, so an unchanged wake count across the reads rules this out.
    pub(crate) fn is_quiescent(&self, timers: &Timers) -> bool {
        if self.stopped.load(SeqCst) {
            // Shut down: the workers exited without parking, and any task scheduled now is shut
            // down inside `schedule`.
            return true;
        }
        let wakes = self.idle.wakes();
        self.idle.all_parked()
            && self.injector.is_empty()
            && timers.pending() == 0
            && self.idle.wakes() == wakes
    }

    /// Wakes `wait_quiescent` callers if the pool is quiescent.
    pub(crate) fn check_quiescent(&self, timers: &Timers) {
        if self.is_quiescent(timers) {
            let _guard = lock(&self.quiescent_lock);
            self.quiescent_cv.notify_all();
        }
    }

    /// Blocks until the pool is quiescent.
    pub(crate) fn wait_quiescent(&self, timers: &Timers) {
        let mut guard = lock(&self.quiescent_lock);
        while !self.is_quiescent(timers) {
            guard = self
                .quiescent_cv
                .wait(guard)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether the calling thread is one of this pool's workers.
    pub(crate) fn on_worker(&self) -> bool {
        self.current().is_some()
    }

    /// Starts shutting down: no task runs any more once a worker sees the flag.
    pub(crate) fn begin_shutdown(&self) {
        self.shutdown.store(true, SeqCst);
        self.idle.shutdown();
    }

    /// Ends shutdown once the workers are gone and the injector is drained: from now on the pool is
    /// quiescent, and threads blocked in `wait_quiescent` return.
    pub(crate) fn finish_shutdown(&self) {
        self.stopped.store(true, SeqCst);
        let _guard = lock(&self.quiescent_lock);
        self.quiescent_cv.notify_all();
    }

    /// Hands every task in the injector to its `shutdown`.
    pub(crate) fn drain_injector(&self) {
        if DRAINING.with(Cell::get) {
            return; // an outer drain on this thread will pick it up
        }
        DRAINING.with(|d| d.set(true));
        loop {
            match self.injector.steal() {
                Steal::Success(task) => task.shutdown(),
                Steal::Retry => continue,
                Steal::Empty => break,
            }
        }
        DRAINING.with(|d| d.set(false));
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
                        patience: SLOT_PATIENCE,
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
    fn worker_loop(&self, ctx: &WorkerCtx, timers: &Timers) {
        if ctx.alone {
            self.worker_turns::<true>(ctx, timers);
        } else {
            self.worker_turns::<false>(ctx, timers);
        }
    }

    fn worker_turns<const ALONE: bool>(&self, ctx: &WorkerCtx, timers: &Timers) {
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

    /// A worker whose own slot and queues are empty: searches (steals, spins), parks, and looks
    /// again when woken, until it has a task to run (`None`: shutdown). A worker that finds work
    /// as a searcher stops searching first (see `idle`). Out of line: the worker's loop keeps its
    /// turns tight.
    #[inline(never)]
    fn find_work(&self, ctx: &WorkerCtx, timers: &Timers) -> Option<TaskRef> {
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
    fn stop_searching(&self, ctx: &WorkerCtx, searching: bool) {
        if searching && self.idle.stop_search() {
            self.count(ctx, Counter::Wake);
        }
    }

    /// A timed park: waits, the timeout doubling from [`WATCH_MIN`] to [`WATCH_MAX`], and at each
    /// timeout looks (still counted as parked, so an idle pool stays quiescent) for a slot whose
    /// owner has stayed in one turn for the patience with it (see [`Pool::slot_ripe`]), or for
    /// queued work. Returns once woken, or once it took itself back for what it saw; waits
    /// without a timeout from the moment every worker is parked.
    fn watch(&self, ctx: &WorkerCtx) -> Wake {
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

    /// Whether another worker's slot holds a task while its owner has stayed in one turn for
    /// longer than this worker's patience with it (see [`Pool::slot_ripe`]).
    fn stuck_slot(&self, ctx: &WorkerCtx) -> bool {
        let now = Instant::now();
        (0..self.num_workers()).any(|victim| {
            victim != ctx.index
                && self.slots[victim].is_occupied()
                && self.slot_ripe(ctx, victim, now)
        })
    }

    /// Remembers the other workers' turn counters, for [`Pool::has_stealable`] and the stuck
    /// queues of [`Pool::steal`], and starts the clock of [`Pool::slot_ripe`] on new turns.
    fn note_turns(&self, ctx: &WorkerCtx) {
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
    fn turn_age(&self, ctx: &WorkerCtx, victim: usize, now: Instant) -> Option<Duration> {
        let turn = self.slots[victim].turn();
        let watch = &ctx.slot_watch[victim];
        let w = watch.get();
        if w.turn != turn {
            watch.set(SlotWatch {
                turn,
                since: now,
                patience: SLOT_PATIENCE,
            });
            return None;
        }
        Some(now.saturating_duration_since(w.since))
    }

    /// Whether this worker may take `victim`'s slot: its owner has stayed inside one turn for
    /// the patience this worker has with it, [`SLOT_PATIENCE`] at first, more after rescues from
    /// that turn that did not pay (see [`Pool::judge_rescue`]).
    #[inline]
    fn slot_ripe(&self, ctx: &WorkerCtx, victim: usize, now: Instant) -> bool {
        self.turn_age(ctx, victim, now)
            .is_some_and(|age| age >= ctx.slot_watch[victim].get().patience)
    }

    /// Takes `victim`'s slot's task, if its owner has been in one turn for long enough (see
    /// [`Pool::slot_ripe`]), and remembers the rescue to judge it once this worker runs dry.
    fn take_slot(&self, ctx: &WorkerCtx, victim: usize, now: Instant) -> Option<TaskRef> {
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
    fn rescue_slot(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        let now = Instant::now();
        (0..self.num_workers())
            .filter(|&victim| victim != ctx.index)
            .find_map(|victim| self.take_slot(ctx, victim, now))
    }

    #[inline(always)]
    fn next_task<const ALONE: bool>(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
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

    /// The turns that look elsewhere first (step 1 of "What a worker runs next"), alternately: the
    /// oldest task of the spawn stack at turn [`OLDEST_TURN`] of every [`INJECTOR_INTERVAL`], the
    /// injector at the last turn of it. Sets the countdown to the next one. Out of line: it runs
    /// on one turn in thirty.
    #[inline(never)]
    fn periodic_task(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
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

    /// A searching worker that found nothing keeps looking for a short while before it parks: work
    /// often comes back within microseconds (a reply, the next request of a master handing out
    /// work), and parking costs a futex wait here plus a futex wake on the thread that makes the
    /// next task stealable, which then waits for this thread to be scheduled again. Only searching
    /// workers spin (at most half the workers), and only in a pool of more than one.
    ///
    /// Besides the queues it watches the other workers' slots: a slot whose owner stays in one
    /// turn for [`SLOT_PATIENCE`] is taken over (see [`Slot`]). At the deadline it gives up
    /// whatever it sees: a slot's task stuck behind a longer turn is left to the timed park.
    fn spin_search(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        let n = self.num_workers();
        if n == 1 {
            return None;
        }
        let deadline = Instant::now() + SPIN_BEFORE_PARK;
        loop {
            for _ in 0..SPIN_PAUSES {
                std::hint::spin_loop();
            }
            if self.shutdown.load(SeqCst) {
                return None;
            }
            let now = Instant::now();
            let stuck = |v: usize| {
                self.turn_age(ctx, v, now)
                    .is_some_and(|age| age >= SLOT_PATIENCE)
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

    /// The oldest task of this worker's spawn stack (the end thieves take from).
    fn oldest_spawn(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
        ctx.spawns.pop_oldest(&self.spawn_stealers[ctx.index])
    }

    /// A task from the injector: a batch into the wake queue where that is a crossbeam deque, one
    /// task at a time into a private ring.
    fn steal_injector(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
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

    fn steal(&self, ctx: &WorkerCtx, stuck: &dyn Fn(usize) -> bool) -> Option<TaskRef> {
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
                if len == 0 || (self.patient && len < STEAL_MIN_QUEUE && !stuck(victim)) {
                    continue;
                }
                loop {
                    let stolen = if self.patient {
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

    /// Remembers when this worker began running work taken from another worker (patient
    /// stealing only: an eager thief never backs off).
    fn note_steal(&self, ctx: &WorkerCtx) {
        if self.patient && ctx.stole_at.get().is_none() {
            ctx.stole_at.set(Some(Instant::now()));
        }
    }

    /// Called when this worker has run dry: if it ran stolen work since, judges whether the steal
    /// paid (see [`STEAL_WORTH`]) and sets the back-off.
    fn end_episode(&self, ctx: &WorkerCtx) {
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

    /// Judges a slot rescue once the work it began has run out (this worker runs dry). If the
    /// slot's owner is still inside the turn the task was rescued from, the rescue did not pay:
    /// that turn is feeding the task faster than the task runs out of work (a producer's long
    /// turn sending to a consumer that drains its mailbox, goes idle and lands in the slot again
    /// with the next message), and running it here only moves every message, and the consumer's
    /// state, across cores (Savina's `count` on two workers ran four to seven times slower than
    /// with the consumer left behind its producer). The patience with that slot is multiplied by
    /// [`SLOT_PATIENCE_GROWTH`], up to [`SLOT_PATIENCE_MAX`], for the rest of that turn. A new
    /// turn of the owner starts again at [`SLOT_PATIENCE`].
    fn judge_rescue(&self, ctx: &WorkerCtx, rescue: Rescue) {
        let watch = &ctx.slot_watch[rescue.victim];
        let w = watch.get();
        if w.turn != rescue.turn || self.slots[rescue.victim].turn() != rescue.turn {
            return;
        }
        let patience = (w.patience * SLOT_PATIENCE_GROWTH).min(SLOT_PATIENCE_MAX);
        watch.set(SlotWatch { patience, ..w });
    }

    /// Sleeps for the current back-off instead of spinning, still counted as searching (so
    /// producers wake nobody meanwhile; only shutdown cuts it short), then looks once: a queue
    /// whose owner began no turn during the sleep (which outlasts [`SLOT_PATIENCE`]) is taken
    /// whatever its length, and a slot whose owner stayed in one turn for the patience with it
    /// (see [`Pool::slot_ripe`]), as after a timed park.
    fn back_off(&self, ctx: &WorkerCtx) -> Option<TaskRef> {
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

    /// Bumps a per-worker counter (nothing without the `metrics` feature).
    #[inline(always)]
    fn count(&self, ctx: &WorkerCtx, counter: Counter) {
        #[cfg(feature = "metrics")]
        self.counters[ctx.index].bump(counter);
        #[cfg(not(feature = "metrics"))]
        let _ = (ctx, counter);
    }

    #[inline]
    fn run_task<const ALONE: bool>(&self, ctx: &WorkerCtx, task: TaskRef) {
        self.count(ctx, Counter::Task);
        if !ALONE {
            // For thieves, who watch for a worker stuck in one turn; a pool of one has none.
            let turns = ctx.turns.get().wrapping_add(1);
            ctx.turns.set(turns);
            ctx.slot().begin_turn(turns);
        }
        match catch_unwind(AssertUnwindSafe(|| task.run())) {
            Ok(RunOutcome::Idle) => {}
            Ok(RunOutcome::Yield) => {
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

impl Default for Rng {
    fn default() -> Rng {
        Rng::new(0)
    }
}
