//! The deterministic scheduler: one thread, every choice drawn from a seeded generator.
//!
//! There are no worker threads. Tasks run on whichever thread drives the runtime
//! ([`Runtime::wait_quiescent`](crate::Runtime::wait_quiescent) or
//! [`Handle::drive_until`](crate::Handle::drive_until)), one turn at a time. The next task is picked at
//! random among all runnable ones, so a test explores a different interleaving per seed, and the same
//! seed replays the same interleaving (given the same program). Time is virtual: when nothing is
//! runnable, the clock jumps to the earliest pending timer and fires it, so timeouts are tested without
//! waiting and without flakiness.
//!
//! Several threads may drive the same runtime at once (a test's main thread in `wait_quiescent`
//! while another blocks in an ask's `wait`, say). A task taken by one of them counts as outstanding
//! work until its turn ends, and so does a timer callback being fired, so no driver returns or
//! reports quiescence while another is still running something that may schedule more.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::clock::Clock;
use crate::rng::Rng;
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::sync::{lock, Mutex};
use crate::task::{RunOutcome, TaskRef};
use crate::timer::Timers;

/// The seeded single-thread scheduler.
pub(crate) struct Deterministic {
    runnable: Mutex<Vec<TaskRef>>,
    rng: Mutex<Rng>,
    seed: u64,
    shutdown: AtomicBool,
    /// Tasks taken from `runnable` whose turn has not ended, on any thread.
    running: AtomicUsize,
}

thread_local! {
    /// The scheduler whose task this thread is running, and how many of its turns are nested here
    /// (a driver called from inside a task, a misuse, must not wait for its own caller).
    static RUNNING_HERE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

impl Deterministic {
    pub(crate) fn new(seed: u64) -> Deterministic {
        Deterministic {
            runnable: Mutex::new(Vec::new()),
            rng: Mutex::new(Rng::new(seed)),
            seed,
            shutdown: AtomicBool::new(false),
            running: AtomicUsize::new(0),
        }
    }

    /// The seed this scheduler replays.
    pub(crate) fn seed(&self) -> u64 {
        self.seed
    }

    pub(crate) fn schedule(&self, task: TaskRef) {
        if self.shutdown.load(SeqCst) {
            task.shutdown();
            return;
        }
        lock(&self.runnable).push(task);
    }

    /// Runs one randomly chosen runnable task; returns false if none was runnable.
    pub(crate) fn step(&self) -> bool {
        let task = {
            let mut runnable = lock(&self.runnable);
            if runnable.is_empty() {
                return false;
            }
            let i = lock(&self.rng).below(runnable.len());
            // Counted before the lock is released: no other driver sees the task in neither place.
            self.running.fetch_add(1, SeqCst);
            runnable.swap_remove(i)
        };
        let me = self as *const Deterministic as usize;
        let outer = RUNNING_HERE.with(Cell::get);
        let depth = if outer.0 == me { outer.1 + 1 } else { 1 };
        RUNNING_HERE.with(|r| r.set((me, depth)));
        match catch_unwind(AssertUnwindSafe(|| task.run())) {
            Ok(RunOutcome::Idle) => {}
            Ok(RunOutcome::Yield) => lock(&self.runnable).push(task),
            Err(_) => eprintln!("motet-runtime: a task panicked outside its model's containment"),
        }
        RUNNING_HERE.with(|r| r.set(outer));
        self.running.fetch_sub(1, SeqCst);
        true
    }

    /// Whether another thread is running one of this scheduler's tasks or firing one of its timers.
    fn busy_elsewhere(&self, timers: &Timers) -> bool {
        let me = self as *const Deterministic as usize;
        let (who, depth) = RUNNING_HERE.with(Cell::get);
        let here = if who == me { depth } else { 0 };
        // A timer taken by `take_due` still counts as pending until its callback returned.
        self.running.load(SeqCst) > here || timers.pending() > 0
    }

    /// Runs tasks, and fires timers on the virtual clock, until `done()` or nothing is left. Returns
    /// `done()`.
    pub(crate) fn drive(
        &self,
        timers: &Timers,
        clock: &Clock,
        mut done: impl FnMut() -> bool,
    ) -> bool {
        loop {
            if done() {
                return true;
            }
            if self.step() {
                continue;
            }
            match timers.next_deadline() {
                Some(t) => {
                    clock.advance_to(t);
                    let due = timers.take_due(clock.now());
                    timers.fire(due);
                }
                None if self.busy_elsewhere(timers) => std::thread::yield_now(),
                None => return done(),
            }
        }
    }

    /// Whether nothing is runnable and no timer is pending.
    pub(crate) fn is_quiescent(&self, timers: &Timers) -> bool {
        lock(&self.runnable).is_empty() && self.running.load(SeqCst) == 0 && timers.pending() == 0
    }

    /// Hands every runnable task to its `shutdown`; later schedules do the same at once.
    pub(crate) fn shutdown(&self) {
        self.shutdown.store(true, SeqCst);
        loop {
            let Some(task) = lock(&self.runnable).pop() else {
                break;
            };
            task.shutdown();
        }
    }
}
