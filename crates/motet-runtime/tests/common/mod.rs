//! Test tasks built on the task API: one-shot closures ([`motet_runtime::testing::once`]) and a
//! task that yields a number of turns.
#![allow(dead_code)] // each test file uses a different part of this module

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use motet_runtime::task::{Running, Task, Turn};
use motet_runtime::{testing, Handle, Runnable};

/// Schedules a task that runs `run` once, or `on_shutdown` if the runtime shuts it down instead.
pub fn schedule_fn(
    handle: &Handle,
    run: impl FnOnce() + Send + 'static,
    on_shutdown: impl FnOnce() + Send + 'static,
) {
    handle.schedule(testing::once(run, on_shutdown));
}

/// As [`schedule_fn`] with [`Handle::schedule_shared`], ignoring a shutdown.
pub fn spawn_shared(handle: &Handle, run: impl FnOnce() + Send + 'static) {
    handle.schedule_shared(testing::once(run, || {}));
}

/// Schedules a task that runs `run` once and ignores a shutdown.
pub fn spawn(handle: &Handle, run: impl FnOnce() + Send + 'static) {
    schedule_fn(handle, run, || {});
}

/// Like [`spawn`], but scheduled as a task just created (`Handle::schedule_new`).
pub fn spawn_new(handle: &Handle, run: impl FnOnce() + Send + 'static) {
    handle.schedule_new(testing::once(run, || {}));
}

/// What happened to the tasks of a test, for tasks that count themselves.
#[derive(Default)]
pub struct Tally {
    pub ran: AtomicUsize,
    pub shut_down: AtomicUsize,
}

impl Tally {
    pub fn new() -> Arc<Tally> {
        Arc::new(Tally::default())
    }

    pub fn ran(&self) -> usize {
        self.ran.load(SeqCst)
    }

    pub fn shut_down(&self) -> usize {
        self.shut_down.load(SeqCst)
    }
}

/// Schedules a task that counts in `tally` whether it ran or was shut down.
pub fn spawn_counted(handle: &Handle, tally: &Arc<Tally>) {
    let (a, b) = (tally.clone(), tally.clone());
    schedule_fn(
        handle,
        move || {
            a.ran.fetch_add(1, SeqCst);
        },
        move || {
            b.shut_down.fetch_add(1, SeqCst);
        },
    );
}

/// A task that runs `steps` turns, yielding between them, and appends `id` to `log` at each turn.
struct StepTask;

/// A [`StepTask`]'s state.
struct Steps {
    id: u32,
    remaining: u32,
    log: Arc<Mutex<Vec<u32>>>,
}

impl Task for StepTask {
    type Shared = ();
    type Private = Steps;

    fn run(mut task: Running<StepTask>) -> Turn<()> {
        let steps = task.private();
        steps.log.lock().unwrap().push(steps.id);
        if steps.remaining > 1 {
            steps.remaining -= 1;
            return Turn::Yield(task.into_runnable());
        }
        Turn::Idle
    }
}

/// Schedules a task that logs `id` on each of its `steps` turns (at least one).
pub fn spawn_steps(handle: &Handle, id: u32, steps: u32, log: &Arc<Mutex<Vec<u32>>>) {
    handle.schedule(Runnable::new::<StepTask>(
        (),
        Steps {
            id,
            remaining: steps.max(1),
            log: log.clone(),
        },
    ));
}
