//! Which workers are parked, which are searching, and whom to wake.
//!
//! # Protocol
//!
//! Every worker is in one of three states:
//!
//! - **running**: it has a task in hand, or tasks in its slot or deque;
//! - **searching**: its own queues are empty and it is looking in the injector and stealing from the
//!   other workers;
//! - **parked**: it found nothing and sleeps on its [`Parker`] until [`Idle::notify_one`] wakes it
//!   (or, in a timed park, until its timeout passes: see "Timed parking" below).
//!
//! One word, `state`, counts the searching workers (low 16 bits) and the unparked ones (the rest).
//! All changes to it are `SeqCst`, and so are the loads that decide whether to wake someone: the
//! correctness argument is a Dekker-style one between a producer ("push the task, `SeqCst` fence,
//! then look at `state`") and a worker going to sleep ("update `state`, `SeqCst` fence, then look at
//! the queues"): of two threads that each write, fence and then read what the other wrote, at least
//! one sees the other's write. The producer's side is a fence and a load, not a read-modify-write,
//! so that pushing a task does not take the state word's cache line away from the other workers.
//!
//! **Waking at most one searcher per burst.** A producer that makes a task stealable (pushes to its
//! empty deque, or to the injector; a push onto a deque that already holds a task skips this, see
//! `Pool::push_local`) calls [`Idle::notify_one`], which wakes a parked worker only if no worker is
//! searching and some worker is parked. The woken worker starts out searching. When a searching worker
//! finds a task it leaves the searching state; if it was the *last* searcher, it calls `notify_one`
//! itself, because the burst it found may hold more work. A burst of N tasks therefore wakes workers
//! one at a time, each woken by the previous searcher, instead of waking N workers at once.
//!
//! **At most half the workers search.** [`Idle::try_start_search`] refuses when `2 * searching >=
//! workers`, so an idle pool does not spin all its cores on stealing.
//!
//! **No lost wake-ups.** A worker parks in two steps: [`Idle::prepare_park`] decrements the counters
//! (and registers it as a sleeper), then the worker checks every queue once more if it was the last
//! searcher, and only then sleeps. A producer pushes first and reads `state` after. Either the producer
//! sees `searching > 0` (and the searcher, when it parks as the last one, re-checks the queues and
//! finds the task), or it sees no searcher and a parked worker and wakes it. The loom models at the
//! end of this file check this with two workers and an outside producer.
//!
//! **Timed parking.** A task in a worker's next-task slot is not stealable the way a queued one is
//! (see `slot.rs`): putting it there wakes nobody, so that a hand-off costs no wake check. A task
//! stuck in a slot behind its owner's long turn is rescued by a parked worker that looks at the
//! slots from time to time instead: a worker that parks while another worker is unparked (so some
//! slot may fill) waits with a timeout ([`Idle::park_timeout`]). When the timeout passes it is
//! still parked, still on the sleepers' list and still counted as parked: it only *looks* (reads,
//! no writes), and waits again, so an idle pool stays quiescent through it. Only when it sees work
//! does it take itself back ([`Idle::unpark_self`]): off the list, counted unparked and not
//! searching, the wake-up counted in [`Idle::wakes`] like any other, unless a `notify_one` picked
//! it in the meantime, whose wake-up it then waits for. A worker that finds every worker parked
//! when its timeout passes waits without one: nobody runs, so no slot can fill before a wake-up.
//! So does the worker that parks as the *last* unparked one. A wake-up unparks a worker that
//! starts out searching, and when it finds work as the last searcher it wakes another worker (see
//! above), which then parks with a timeout as soon as it finds nothing: while any worker runs,
//! another one watches its slot.
//!
//! **Shutdown.** [`Idle::shutdown`] marks every worker as notified and wakes all of them; a woken worker
//! checks the runtime's shutdown flag before anything else.

use std::time::Duration;

use crate::sync::atomic::{fence, AtomicUsize, Ordering::SeqCst};
use crate::sync::{lock, Condvar, Mutex};

const SEARCH_MASK: usize = 0xFFFF;
const UNPARK_ONE: usize = 1 << 16;

/// The sleep/wake coordination of a pool of workers.
pub(crate) struct Idle {
    /// `unparked << 16 | searching`.
    state: AtomicUsize,
    /// How many times `notify_one` woke a worker, bumped after the state change and before the
    /// worker runs: lets a reader of several quiescence conditions check that no worker woke between
    /// its reads (see [`Idle::wakes`]).
    wakes: AtomicUsize,
    num_workers: usize,
    sleepers: Mutex<Sleepers>,
    parkers: Box<[Parker]>,
}

impl Idle {
    /// All `num_workers` workers start unparked and not searching.
    pub(crate) fn new(num_workers: usize) -> Idle {
        assert!(num_workers > 0 && num_workers < SEARCH_MASK);
        Idle {
            state: AtomicUsize::new(num_workers * UNPARK_ONE),
            wakes: AtomicUsize::new(0),
            num_workers,
            sleepers: Mutex::new(Sleepers {
                parked: Vec::with_capacity(num_workers),
                shutdown: false,
            }),
            parkers: (0..num_workers).map(|_| Parker::new()).collect(),
        }
    }

    /// Wakes one parked worker if none is searching. Called after a task was made stealable.
    /// Returns whether it woke one.
    pub(crate) fn notify_one(&self) -> bool {
        if !self.should_wake() {
            return false;
        }
        let mut sleepers = lock(&self.sleepers);
        // Re-check under the lock: another producer may have woken someone meanwhile.
        if !self.should_wake() {
            return false;
        }
        let Some(index) = sleepers.parked.pop() else {
            return false;
        };
        // The woken worker starts out searching (and unparked).
        self.state.fetch_add(UNPARK_ONE | 1, SeqCst);
        self.wakes.fetch_add(1, SeqCst);
        drop(sleepers);
        self.parkers[index].unpark();
        true
    }

    fn should_wake(&self) -> bool {
        // The fence orders this read after the producer's push (the Dekker argument in the module
        // docs; `prepare_park` fences the other side). A fence and a load rather than a
        // read-modify-write: the state word then stays shared in every core's cache, where a
        // read-modify-write would take it exclusive on every push, from every worker.
        fence(SeqCst);
        self.wake_wanted()
    }

    /// No worker searches and some worker is parked.
    #[inline]
    fn wake_wanted(&self) -> bool {
        let state = self.state.load(SeqCst);
        state & SEARCH_MASK == 0 && state / UNPARK_ONE < self.num_workers
    }

    /// Tries to enter the searching state; refuses when half the workers already search.
    pub(crate) fn try_start_search(&self) -> bool {
        let state = self.state.load(SeqCst);
        if 2 * (state & SEARCH_MASK) >= self.num_workers {
            return false;
        }
        self.state.fetch_add(1, SeqCst);
        true
    }

    /// Leaves the searching state after finding work; wakes another worker if this was the last
    /// searcher (the burst may hold more). Returns whether it woke one.
    pub(crate) fn stop_search(&self) -> bool {
        let prev = self.state.fetch_sub(1, SeqCst);
        debug_assert!(prev & SEARCH_MASK > 0);
        prev & SEARCH_MASK == 1 && self.notify_one()
    }

    /// First half of parking: counts the worker as parked and registers it as a sleeper. Returns
    /// whether it was the last searching worker (it must then check all queues once more) and whether
    /// it was the last unparked one (the pool may be quiescent).
    ///
    /// Returns `None` once the pool is shutting down: the worker must exit instead of parking.
    pub(crate) fn prepare_park(&self, index: usize, searching: bool) -> Option<ParkInfo> {
        let mut sleepers = lock(&self.sleepers);
        if sleepers.shutdown {
            return None;
        }
        self.parkers[index].prepare();
        let dec = UNPARK_ONE | usize::from(searching);
        let prev = self.state.fetch_sub(dec, SeqCst);
        // Orders the caller's final look at the queues after the state change (the other side of
        // `should_wake`'s fence).
        fence(SeqCst);
        sleepers.parked.push(index);
        Some(ParkInfo {
            last_searcher: searching && prev & SEARCH_MASK == 1,
            last_unparked: prev / UNPARK_ONE == 1,
        })
    }

    /// Second half of parking: sleeps until `notify_one` or `shutdown` picks this worker. On return the
    /// worker is unparked and searching (or the pool is shutting down). A worker that was the last
    /// searcher and found work in its final check calls `notify_one` before this, which may pick the
    /// worker itself: then `park` returns at once.
    pub(crate) fn park(&self, index: usize) {
        self.parkers[index].park();
    }

    /// Second half of parking, with a timeout: sleeps until `notify_one` or `shutdown` picks this
    /// worker (returns true: it is then unparked and searching, as after [`Idle::park`]), or until
    /// about `timeout` has passed (returns false). A timed-out worker is still parked, on the
    /// sleepers' list and counted as parked: it may look at the queues and slots, and then either
    /// wait again (`park_timeout` or `park`) or take itself back with [`Idle::unpark_self`].
    pub(crate) fn park_timeout(&self, index: usize, timeout: Duration) -> bool {
        self.parkers[index].park_timeout(timeout)
    }

    /// Takes a parked worker whose wait timed out back to running, because it saw work. Returns
    /// [`Wake::Unparked`] when it is now unparked and *not* searching (the wake-up counted), or
    /// [`Wake::Notified`] when `notify_one` or `shutdown` picked it first: it then waits for that
    /// wake-up, after which it is unparked and searching.
    pub(crate) fn unpark_self(&self, index: usize) -> Wake {
        let mut sleepers = lock(&self.sleepers);
        if let Some(at) = sleepers.parked.iter().position(|&i| i == index) {
            sleepers.parked.remove(at);
            self.state.fetch_add(UNPARK_ONE, SeqCst);
            self.wakes.fetch_add(1, SeqCst);
            return Wake::Unparked;
        }
        drop(sleepers);
        // `notify_one` or `shutdown` took this worker off the list and counted it unparked: its
        // `unpark` follows right after the list change.
        self.parkers[index].park();
        Wake::Notified
    }

    /// How many times a worker was woken so far. A worker acts only after the wake-up that unparked
    /// it is counted here, so if two reads return the same value, no worker that was parked at the
    /// first read ran anything in between.
    pub(crate) fn wakes(&self) -> usize {
        self.wakes.load(SeqCst)
    }

    /// Whether every worker is parked (a timed-out worker that only looks around counts as parked).
    pub(crate) fn all_parked(&self) -> bool {
        self.state.load(SeqCst) / UNPARK_ONE == 0
    }

    /// Wakes every worker for shutdown.
    pub(crate) fn shutdown(&self) {
        let mut sleepers = lock(&self.sleepers);
        sleepers.shutdown = true;
        let parked = std::mem::take(&mut sleepers.parked);
        drop(sleepers);
        for index in parked {
            self.state.fetch_add(UNPARK_ONE, SeqCst);
            self.parkers[index].unpark();
        }
    }
}

struct Sleepers {
    /// Indices of parked workers (a stack: the most recently parked is woken first, its cache warm).
    parked: Vec<usize>,
    /// Set once by `shutdown`; no worker parks after it.
    shutdown: bool,
}

/// How a timed-out worker got back to running (see [`Idle::unpark_self`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// `notify_one` or `shutdown` woke the worker first: it is unparked and searching.
    Notified,
    /// It took itself back: it is unparked and not searching.
    Unparked,
}

/// What [`Idle::prepare_park`] found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ParkInfo {
    /// The worker was the last searcher: it must check the queues before sleeping.
    pub(crate) last_searcher: bool,
    /// The worker was the last unparked one: the pool may be quiescent.
    pub(crate) last_unparked: bool,
}

/// A one-shot sleep token per worker: `prepare` arms it, `unpark` fires it, `park` waits for the fire.
struct Parker {
    notified: Mutex<bool>,
    cv: Condvar,
}

impl Parker {
    fn new() -> Parker {
        Parker {
            notified: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    fn prepare(&self) {
        *lock(&self.notified) = false;
    }

    fn unpark(&self) {
        let mut notified = lock(&self.notified);
        *notified = true;
        drop(notified);
        self.cv.notify_one();
    }

    fn park(&self) {
        let mut notified = lock(&self.notified);
        while !*notified {
            notified = self.cv.wait(notified).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits for the fire for at most about `timeout`; returns whether it fired.
    #[cfg(not(loom))]
    fn park_timeout(&self, timeout: Duration) -> bool {
        let notified = lock(&self.notified);
        if *notified {
            return true;
        }
        let (notified, _) = self
            .cv
            .wait_timeout(notified, timeout)
            .unwrap_or_else(|e| e.into_inner());
        *notified
    }

    /// Loom cannot time a wait out, so a timed park is modelled as one whose timeout passes at
    /// once: the model explores the fire arriving before the look, or after it, racing the
    /// worker's removal of itself from the sleepers' list.
    #[cfg(loom)]
    fn park_timeout(&self, _timeout: Duration) -> bool {
        loom::thread::yield_now();
        *lock(&self.notified)
    }
}

/// Loom models of the sleep/wake protocol. Run with
/// `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p motet-runtime --lib --release loom`.
///
/// Each model runs the worker loop of `pool.rs` in miniature over a counter standing for the queues
/// and one next-task slot. A lost wake-up leaves a task behind with every worker asleep, which loom
/// reports as a deadlock. Under loom a timed park times out at once unless the worker was already
/// notified (see `Parker::park_timeout`), so the models cover a timeout racing every notification.
#[cfg(all(test, loom))]
mod loom_models {
    use super::super::slot::Slot;
    use super::{Idle, Wake};
    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
    use loom::sync::Arc;
    use std::ptr::NonNull;
    use std::time::Duration;

    struct World {
        idle: Idle,
        /// The next-task slot of a worker busy in a long turn (it never takes the task itself).
        slot: Slot<u32>,
        tasks: AtomicUsize,
        done: AtomicUsize,
        stop: AtomicBool,
        expected: usize,
        /// The selective thief of `Pool::steal`: a queue of one task is left to its (busy) owner
        /// except by a worker back from a timed park, which saw the owner begin no turn.
        selective: bool,
    }

    impl World {
        /// Takes a task; `stuck` says the taker saw the busy owner stay in its turn (it is back
        /// from a timed park), which a selective thief needs before it takes a queue of one.
        fn take(&self, stuck: bool) -> bool {
            if let Some(task) = self.slot.take() {
                // SAFETY: the only task put into the slot is a leaked box, and `take` hands it
                // out once.
                drop(unsafe { Box::from_raw(task.as_ptr()) });
                return true;
            }
            let mut n = self.tasks.load(SeqCst);
            if self.selective && !stuck && n < 2 {
                return false;
            }
            while n > 0 {
                match self.tasks.compare_exchange(n, n - 1, SeqCst, SeqCst) {
                    Ok(_) => return true,
                    Err(m) => n = m,
                }
            }
            false
        }

        /// A stealable task from outside: counted, then a wake check (as `Pool::schedule_remote`
        /// does).
        fn push(&self) {
            self.tasks.fetch_add(1, SeqCst);
            self.idle.notify_one();
        }

        /// A stealable task from a worker onto its own queue: a wake check only if the queue was
        /// empty (as `Pool::push_local` does).
        fn push_own(&self) {
            let was_empty = self.tasks.load(SeqCst) == 0;
            self.tasks.fetch_add(1, SeqCst);
            if was_empty {
                self.idle.notify_one();
            }
        }

        /// A task into the busy worker's slot: no wake check (as `Pool::schedule_local` does).
        fn put_in_slot(&self) {
            assert!(self
                .slot
                .fill(NonNull::from(Box::leak(Box::new(1u32))))
                .is_ok());
        }

        /// Runs one task: counts it, and once all are done, shuts the pool down.
        fn run_one(&self) {
            if self.done.fetch_add(1, SeqCst) + 1 == self.expected {
                self.stop.store(true, SeqCst);
                self.idle.shutdown();
            }
        }

        fn worker(&self, index: usize) {
            let mut searching = false;
            // Woke from a timed park: one look, without entering the searching state.
            let mut rested = false;
            loop {
                if self.stop.load(SeqCst) {
                    return;
                }
                if !searching && !rested {
                    searching = self.idle.try_start_search();
                }
                if self.take(rested) {
                    if searching {
                        searching = false;
                        self.idle.stop_search();
                    }
                    rested = false;
                    self.run_one();
                    continue;
                }
                let Some(info) = self.idle.prepare_park(index, searching) else {
                    return;
                };
                // The last searcher's final look covers the queues only: a slot's task is
                // rescued by a timed park, not by a wake-up.
                // A selective thief's last look skips a queue of one, as `has_stealable` does.
                let stealable = if self.selective { 2 } else { 1 };
                if info.last_searcher && self.tasks.load(SeqCst) >= stealable {
                    self.idle.notify_one();
                }
                rested = false;
                searching = true;
                if info.last_unparked {
                    self.idle.park(index);
                } else {
                    // The timed park of `Pool::worker_loop`: look at the slot and the queue at
                    // each timeout, take itself back once there is work, and wait without a
                    // timeout once every worker is parked.
                    while !self.idle.park_timeout(index, Duration::from_micros(50)) {
                        if self.idle.all_parked() {
                            self.idle.park(index);
                            break;
                        }
                        if self.slot.is_occupied() || self.tasks.load(SeqCst) > 0 {
                            if self.idle.unpark_self(index) == Wake::Unparked {
                                rested = true;
                                searching = false;
                            }
                            break;
                        }
                    }
                }
                if self.stop.load(SeqCst) {
                    return;
                }
            }
        }
    }

    fn world(expected: usize) -> Arc<World> {
        world_with(expected, false)
    }

    fn world_with(expected: usize, selective: bool) -> Arc<World> {
        Arc::new(World {
            idle: Idle::new(2),
            slot: Slot::new(),
            tasks: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            expected,
            selective,
        })
    }

    /// Both workers run while an outside thread pushes `pushes` tasks in a burst; all of them run.
    fn outside_pushes_are_run(pushes: usize) {
        loom::model(move || {
            let w = world(pushes);
            let workers: Vec<_> = (0..2)
                .map(|i| {
                    let w = w.clone();
                    loom::thread::spawn(move || w.worker(i))
                })
                .collect();
            for _ in 0..pushes {
                w.push();
            }
            for t in workers {
                t.join().unwrap();
            }
            assert_eq!(w.done.load(SeqCst), pushes);
        });
    }

    /// Worker 0 runs on a thread of its own while this thread, worker 1 inside a long turn, does
    /// `busy`; returns once worker 0 has exited.
    fn beside_a_busy_worker(w: &Arc<World>, busy: impl FnOnce(&World)) {
        let idle_worker = {
            let w = w.clone();
            loom::thread::spawn(move || w.worker(0))
        };
        busy(w);
        idle_worker.join().unwrap();
    }

    /// An outside thread pushes one task while both workers go to sleep: the task is run.
    #[test]
    fn loom_outside_push_is_never_lost() {
        outside_pushes_are_run(1);
    }

    /// Two pushes from outside in a burst: both run, and no worker sleeps through them.
    #[test]
    fn loom_burst_of_two_is_run() {
        outside_pushes_are_run(2);
    }

    /// Worker 1 is inside a long turn and puts a task into its slot, which it will not reach,
    /// without a wake check; worker 0 goes to sleep meanwhile. Worker 0 parks with a timeout (worker
    /// 1 is unparked) and takes the task from the slot when it times out.
    #[test]
    fn loom_slot_task_of_a_busy_worker_is_never_stranded() {
        loom::model(|| {
            let w = world(1);
            beside_a_busy_worker(&w, World::put_in_slot);
            assert_eq!(w.done.load(SeqCst), 1);
        });
    }

    /// Worker 1, busy in a long turn, queues two tasks while worker 0 goes to sleep; the second
    /// push finds the queue non-empty (unless worker 0 took the first already) and wakes nobody.
    /// Worker 0 runs both: woken by the first push, or finding the second at a timeout.
    #[test]
    fn loom_a_push_onto_a_non_empty_queue_needs_no_wake_check() {
        loom::model(|| {
            let w = world(2);
            beside_a_busy_worker(&w, |w| {
                w.push_own();
                w.push_own();
            });
            assert_eq!(w.done.load(SeqCst), 2);
        });
    }

    /// Selective stealing: worker 1, busy in a long turn, queues one task (a wake check, as the
    /// queue was empty) while worker 0 goes to sleep. Worker 0 leaves a queue of one alone while
    /// searching, and its last look before parking wakes nobody for it; it parks with a timeout
    /// (worker 1 is unparked) and takes the task back from the timed park, having seen worker 1
    /// stay in its turn.
    #[test]
    fn loom_a_lone_queued_task_of_a_busy_worker_is_rescued() {
        selective_thief_runs_the_queue_of_a_busy_worker(1);
    }

    /// Selective stealing: worker 1, busy, queues two tasks while worker 0 goes to sleep; the
    /// second push wakes nobody. Worker 0 runs both, taking the queue once it holds two, or from
    /// a timed park.
    #[test]
    fn loom_a_selective_thief_runs_a_queue_of_two() {
        selective_thief_runs_the_queue_of_a_busy_worker(2);
    }

    /// Worker 1, busy, queues `tasks` tasks under selective stealing while worker 0 goes to sleep;
    /// every task runs.
    fn selective_thief_runs_the_queue_of_a_busy_worker(tasks: usize) {
        loom::model(move || {
            let w = world_with(tasks, true);
            beside_a_busy_worker(&w, |w| {
                for _ in 0..tasks {
                    w.push_own();
                }
            });
            assert_eq!(w.done.load(SeqCst), tasks);
        });
    }

    /// Worker 1, busy, makes a task stealable while worker 0 is in a timed park: worker 0 taking
    /// itself back and the wake-up race for its place on the sleepers' list. The task runs exactly once and
    /// the state word ends counting both workers unparked (worker 0 exited on shutdown, worker 1
    /// never parked).
    #[test]
    fn loom_a_timeout_racing_a_wake_up_loses_nothing() {
        loom::model(|| {
            let w = world(1);
            beside_a_busy_worker(&w, World::push);
            assert_eq!(w.done.load(SeqCst), 1);
            assert_eq!(w.idle.state.load(SeqCst) >> 16, 2);
        });
    }
}
