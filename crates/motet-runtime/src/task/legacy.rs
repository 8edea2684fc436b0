//! The raw task API the models used before [`Task`](super::Task), kept while they move over to
//! it; nothing new should use it. A legacy task's cell is the model's own allocation, headed by a
//! [`TaskHeader`]; the model frees it itself and promises that it is alive while scheduled.

use std::ptr::NonNull;

use super::raw::{Header, RawOutcome, TaskRef as QueuedRef, VTable};
use crate::sync::atomic::AtomicU32;
use crate::Handle;

/// What a legacy task's `run` tells the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// The task has nothing more to do for now.
    Idle,
    /// The task gives others a turn: queue it again.
    Yield,
}

/// The operations of one kind of legacy task.
#[derive(Debug)]
pub struct TaskVTable {
    /// Runs the task for one turn.
    pub run: unsafe fn(NonNull<TaskHeader>) -> RunOutcome,
    /// Shuts the task down instead of running it.
    pub shutdown: unsafe fn(NonNull<TaskHeader>),
}

/// The first field of a legacy task's allocation.
#[repr(C)]
pub struct TaskHeader {
    header: Header,
    legacy: &'static TaskVTable,
}

impl TaskHeader {
    /// A header for a legacy task of the kind `vtable` describes.
    pub fn new(vtable: &'static TaskVTable) -> TaskHeader {
        TaskHeader {
            header: Header {
                vtable: &LEGACY,
                refs: AtomicU32::new(0),
                tail_len: 0,
            },
            legacy: vtable,
        }
    }
}

static LEGACY: VTable = VTable {
    run: legacy_run,
    shutdown: legacy_shutdown,
    drop_cell: legacy_never_dropped,
    kind: std::any::TypeId::of::<TaskHeader>,
};

unsafe fn legacy_run(header: NonNull<Header>) -> RawOutcome {
    let task = header.cast::<TaskHeader>();
    // SAFETY: a header with the `LEGACY` vtable is the first field of a `TaskHeader`, alive while
    // scheduled by the model's promise (`TaskRef::from_raw`).
    match unsafe { (task.as_ref().legacy.run)(task) } {
        RunOutcome::Idle => RawOutcome::Idle,
        // SAFETY: the model keeps the task alive for this scheduling too.
        RunOutcome::Yield => RawOutcome::Yield(unsafe { QueuedRef::from_raw(header) }),
    }
}

unsafe fn legacy_shutdown(header: NonNull<Header>) {
    let task = header.cast::<TaskHeader>();
    // SAFETY: as in `legacy_run`.
    unsafe { (task.as_ref().legacy.shutdown)(task) }
}

unsafe fn legacy_never_dropped(_: NonNull<Header>) {
    unreachable!("a legacy task is freed by its model")
}

/// A pointer to a legacy task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskRef(NonNull<TaskHeader>);

// SAFETY: the model's promise (see `from_raw`).
unsafe impl Send for TaskRef {}

impl TaskRef {
    /// Wraps a pointer to a legacy task header.
    ///
    /// # Safety
    /// `header` heads a live allocation usable from any thread, alive until the runtime calls its
    /// `run` or `shutdown` for each scheduling, and not scheduled twice at once.
    pub unsafe fn from_raw(header: NonNull<TaskHeader>) -> TaskRef {
        TaskRef(header)
    }

    fn queued(self) -> QueuedRef {
        // SAFETY: `from_raw`'s contract.
        unsafe { QueuedRef::from_raw(self.0.cast()) }
    }
}

/// Schedules a legacy task ([`Handle::schedule`]).
///
/// # Safety
/// As for [`TaskRef::from_raw`].
pub unsafe fn schedule(handle: &Handle, task: TaskRef) {
    handle.schedule_ref(task.queued(), false);
}

/// Schedules a new legacy task ([`Handle::schedule_new`]).
///
/// # Safety
/// As for [`TaskRef::from_raw`].
pub unsafe fn schedule_new(handle: &Handle, task: TaskRef) {
    handle.schedule_ref(task.queued(), true);
}

/// Schedules a legacy task where another worker can take it ([`Handle::schedule_shared`]).
///
/// # Safety
/// As for [`TaskRef::from_raw`].
pub unsafe fn schedule_shared(handle: &Handle, task: TaskRef) {
    handle.schedule_shared_ref(task.queued());
}
