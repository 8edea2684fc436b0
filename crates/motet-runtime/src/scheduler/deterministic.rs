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
//! Several threads may drive the same runtime (a test's main thread in `wait_quiescent` while another
//! blocks in an ask's `wait`, say). They take turns: one thread at a time runs a task or fires
//! timers, so tasks still never run in parallel, and a driver that finds nothing to do while it
//! holds the turn knows that no other thread is in the middle of something that could schedule
//! more.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::clock::Clock;
use crate::rng::Rng;
use crate::sync::atomic::{AtomicBool, Ordering::SeqCst};
use crate::sync::{lock, Mutex, MutexGuard};
use crate::task::raw::{RawOutcome, TaskRef};
use crate::timer::Timers;

/// The seeded single-thread scheduler.
pub(crate) struct Deterministic {
    runnable: Mutex<Vec<TaskRef>>,
    rng: Mutex<Rng>,
    seed: u64,
    shutdown: AtomicBool,
    /// Held by a driver while it runs a task, fires timers, or concludes that nothing is left.
    turn: Mutex<()>,
}

thread_local! {
    /// The scheduler (by address) whose turn this thread holds, or 0. A driver called from inside a
    /// task or a timer callback (a misuse) must not wait for the turn its own caller holds.
    static IN_TURN: Cell<usize> = const { Cell::new(0) };
}

/// Marks this thread as holding a scheduler's turn until dropped.
struct InTurn(usize);

impl InTurn {
    fn enter(id: usize) -> InTurn {
        InTurn(IN_TURN.with(|t| t.replace(id)))
    }
}

impl Drop for InTurn {
    fn drop(&mut self) {
        IN_TURN.with(|t| t.set(self.0));
    }
}

impl Deterministic {
    pub(crate) fn new(seed: u64) -> Deterministic {
        Deterministic {
            runnable: Mutex::new(Vec::new()),
            rng: Mutex::new(Rng::new(seed)),
            seed,
            shutdown: AtomicBool::new(false),
            turn: Mutex::new(()),
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

    fn id(&self) -> usize {
        self as *const Deterministic as usize
    }

    /// Whether this thread is inside one of this scheduler's turns.
    fn in_turn(&self) -> bool {
        IN_TURN.with(Cell::get) == self.id()
    }

    /// Waits for the turn, unless this thread already holds it (a nested driver).
    fn take_turn(&self) -> Option<MutexGuard<'_, ()>> {
        if self.in_turn() {
            None
        } else {
            Some(lock(&self.turn))
        }
    }

    /// Runs one randomly chosen runnable task; returns false if none was runnable. The caller holds
    /// the turn.
    fn step(&self) -> bool {
        let task = {
            let mut runnable = lock(&self.runnable);
            if runnable.is_empty() {
                return false;
            }
            let i = lock(&self.rng).below(runnable.len());
            runnable.swap_remove(i)
        };
        let _in_turn = InTurn::enter(self.id());
        match catch_unwind(AssertUnwindSafe(|| task.run())) {
            Ok(RawOutcome::Idle) => {}
            Ok(RawOutcome::Yield(task)) => lock(&self.runnable).push(task),
            Err(_) => eprintln!("motet-runtime: a task panicked outside its model's containment"),
        }
        true
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
            // Released at the end of each iteration, so that other drivers get turns too.
            let _turn = self.take_turn();
            if self.step() {
                continue;
            }
            match timers.next_deadline() {
                Some(t) => {
                    clock.advance_to(t);
                    let due = timers.take_due(clock.now());
                    let _in_turn = InTurn::enter(self.id());
                    timers.fire(due);
                }
                None => return done(),
            }
        }
    }

    /// Whether nothing is runnable, running or pending (false from inside a task: that one runs).
    pub(crate) fn is_quiescent(&self, timers: &Timers) -> bool {
        if self.in_turn() {
            return false;
        }
        let _turn = lock(&self.turn);
        lock(&self.runnable).is_empty() && timers.pending() == 0
    }

    /// Hands every runnable task to its `shutdown`; later schedules do the same at once.
    pub(crate) fn shutdown(&self) {
        self.shutdown.store(true, SeqCst);
        // A turn in progress on another thread ends first.
        let _turn = self.take_turn();
        let _in_turn = InTurn::enter(self.id());
        loop {
            let Some(task) = lock(&self.runnable).pop() else {
                break;
            };
            task.shutdown();
        }
    }
}
