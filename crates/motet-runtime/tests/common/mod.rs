//! Test tasks built on the raw task API: a boxed `#[repr(C)]` struct with a [`TaskHeader`] first,
//! freed by its own `run` (when it finishes) or `shutdown`.
#![allow(dead_code)] // each test file uses a different part of this module

use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use motet_runtime::{Handle, RunOutcome, TaskHeader, TaskRef, TaskVTable};

/// A task that runs a closure once. `on_shutdown` runs instead if the runtime shuts the task down.
#[repr(C)]
struct FnTask {
    header: TaskHeader,
    run: Box<dyn FnOnce() + Send>,
    on_shutdown: Box<dyn FnOnce() + Send>,
}

static FN_VTABLE: TaskVTable = TaskVTable {
    run: fn_task_run,
    shutdown: fn_task_shutdown,
};

unsafe fn fn_task_run(task: NonNull<TaskHeader>) -> RunOutcome {
    // SAFETY: every header scheduled with FN_VTABLE is the first field (repr(C)) of a `FnTask` leaked
    // from a Box by `schedule_fn`, scheduled once; the runtime calls `run` or `shutdown` exactly once,
    // so this is the only owner. The box is freed on return, or while unwinding if `run` panics.
    let task = unsafe { Box::from_raw(task.cast::<FnTask>().as_ptr()) };
    let FnTask { run, .. } = *task;
    run();
    RunOutcome::Idle
}

unsafe fn fn_task_shutdown(task: NonNull<TaskHeader>) {
    // SAFETY: as in `fn_task_run`.
    let task = unsafe { Box::from_raw(task.cast::<FnTask>().as_ptr()) };
    let FnTask { on_shutdown, .. } = *task;
    on_shutdown();
}

/// Schedules a task that runs `run` once, or `on_shutdown` if the runtime shuts it down instead.
pub fn schedule_fn(
    handle: &Handle,
    run: impl FnOnce() + Send + 'static,
    on_shutdown: impl FnOnce() + Send + 'static,
) {
    let task = Box::new(FnTask {
        header: TaskHeader::new(&FN_VTABLE),
        run: Box::new(run),
        on_shutdown: Box::new(on_shutdown),
    });
    let header = NonNull::from(Box::leak(task)).cast::<TaskHeader>();
    // SAFETY: `header` is the first field of a leaked `FnTask` (repr(C)), whose contents are Send;
    // it stays alive until the runtime calls `run` or `shutdown`, which free it, and it is scheduled
    // exactly once.
    unsafe { handle.schedule(TaskRef::from_raw(header)) };
}

/// As [`schedule_fn`] with [`Handle::schedule_shared`], ignoring a shutdown.
pub fn spawn_shared(handle: &Handle, run: impl FnOnce() + Send + 'static) {
    let task = Box::new(FnTask {
        header: TaskHeader::new(&FN_VTABLE),
        run: Box::new(run),
        on_shutdown: Box::new(|| {}),
    });
    let header = NonNull::from(Box::leak(task)).cast::<TaskHeader>();
    // SAFETY: as in `schedule_fn`.
    unsafe { handle.schedule_shared(TaskRef::from_raw(header)) };
}

/// Schedules a task that runs `run` once and ignores a shutdown.
pub fn spawn(handle: &Handle, run: impl FnOnce() + Send + 'static) {
    schedule_fn(handle, run, || {});
}

/// Like [`spawn`], but scheduled as a task just created (`Handle::schedule_new`).
pub fn spawn_new(handle: &Handle, run: impl FnOnce() + Send + 'static) {
    let task = Box::new(FnTask {
        header: TaskHeader::new(&FN_VTABLE),
        run: Box::new(run),
        on_shutdown: Box::new(|| {}),
    });
    let header = NonNull::from(Box::leak(task)).cast::<TaskHeader>();
    // SAFETY: as in `schedule_fn`.
    unsafe { handle.schedule_new(TaskRef::from_raw(header)) };
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
#[repr(C)]
struct StepTask {
    header: TaskHeader,
    id: u32,
    remaining: u32,
    log: Arc<Mutex<Vec<u32>>>,
}

static STEP_VTABLE: TaskVTable = TaskVTable {
    run: step_task_run,
    shutdown: step_task_shutdown,
};

unsafe fn step_task_run(task: NonNull<TaskHeader>) -> RunOutcome {
    let ptr = task.cast::<StepTask>();
    // SAFETY: the header is the first field of a live `StepTask` leaked by `spawn_steps`; the runtime
    // runs it on one thread at a time, so this is the only reference while `run` executes.
    let this = unsafe { &mut *ptr.as_ptr() };
    this.log.lock().unwrap().push(this.id);
    if this.remaining > 1 {
        this.remaining -= 1;
        return RunOutcome::Yield;
    }
    // SAFETY: the last turn: the runtime forgets the task after an `Idle` outcome, so nobody refers
    // to it any more; the box is freed here, once.
    drop(unsafe { Box::from_raw(ptr.as_ptr()) });
    RunOutcome::Idle
}

unsafe fn step_task_shutdown(task: NonNull<TaskHeader>) {
    // SAFETY: as in `step_task_run`: the runtime will not use the task again after `shutdown`.
    drop(unsafe { Box::from_raw(task.cast::<StepTask>().as_ptr()) });
}

/// Schedules a task that logs `id` on each of its `steps` turns (at least one).
pub fn spawn_steps(handle: &Handle, id: u32, steps: u32, log: &Arc<Mutex<Vec<u32>>>) {
    let task = Box::new(StepTask {
        header: TaskHeader::new(&STEP_VTABLE),
        id,
        remaining: steps.max(1),
        log: log.clone(),
    });
    let header = NonNull::from(Box::leak(task)).cast::<TaskHeader>();
    // SAFETY: `header` is the first field of a leaked `StepTask` (repr(C), Send contents) that frees
    // itself on its last turn or at shutdown, and is scheduled once.
    unsafe { handle.schedule(TaskRef::from_raw(header)) };
}
