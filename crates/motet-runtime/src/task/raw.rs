//! The raw task: what the scheduler's queues hold and how a worker runs it.
//!
//! A queued task is a [`TaskRef`], a pointer to the [`Header`] at offset 0 of a task cell (see
//! [`super::cell`]). The header's [`VTable`] says how to run the task for one turn, how to shut it
//! down and how to free its cell; the runtime's generic code builds one vtable per task kind, so
//! nothing outside this module casts a header pointer.
//!
//! A `TaskRef` in a queue *is* the task's [`Runnable`](super::Runnable): the scheduling right,
//! which owns one count of the cell's references (see [`Header::refs`]). The scheduler hands each
//! queued `TaskRef` to exactly one of [`TaskRef::run`] or [`TaskRef::shutdown`], which turn it back
//! into the runnable the task's code receives.

use std::any::TypeId;
use std::fmt;
use std::ptr::NonNull;

use crate::sync::atomic::AtomicU32;

/// The first field of every task cell.
#[repr(C)]
pub(crate) struct Header {
    /// The operations of the cell's task kind.
    pub(crate) vtable: &'static VTable,
    /// `2 * handles + runnable`: two per [`TaskRc`](super::TaskRc), and [`RUNNABLE`] while the
    /// task's runnable exists (queued, running, or kept by the task's model). The cell is freed by
    /// whoever takes the count to zero. 32 bits, so that the tail's length fits beside it in the
    /// header's second word (a count past `i32::MAX` aborts, as `Arc`'s past `isize::MAX` does).
    pub(crate) refs: AtomicU32,
    /// How many values follow the cell (see [`TaskWithTail`](super::TaskWithTail)); 0 for kinds
    /// without a tail.
    pub(crate) tail_len: u32,
}

/// The count a task's runnable holds (bit 0 of [`Header::refs`]).
pub(crate) const RUNNABLE: u32 = 1;
/// The count each handle holds.
pub(crate) const HANDLE: u32 = 2;

/// The operations of one kind of task, built by [`super::cell`] for each [`Task`](super::Task).
pub(crate) struct VTable {
    /// Runs one turn. Takes over the runnable's count; returns it in `Yield`, or the task kept or
    /// released it.
    pub(crate) run: unsafe fn(NonNull<Header>) -> RawOutcome,
    /// As `run`, for a task that will not run on this runtime any more.
    pub(crate) shutdown: unsafe fn(NonNull<Header>),
    /// The kind's [`Task::call`](super::Task::call). Takes over the runnable's count.
    pub(crate) call: unsafe fn(NonNull<Header>, usize) -> usize,
    /// Drops the cell's contents and frees it; called once the count reached zero.
    pub(crate) drop_cell: unsafe fn(NonNull<Header>),
    /// The task kind, for the checked conversion of a runnable back to its typed form.
    pub(crate) kind: fn() -> TypeId,
    /// How many bytes the kind's shared and private parts span, from the start of the shared
    /// part to the end of the private part (a tail not included), for
    /// [`cell_contains`](super::cell_contains).
    pub(crate) extent: usize,
}

/// What a turn left for the worker.
pub(crate) enum RawOutcome {
    /// The task kept its runnable (to be scheduled again by its model) or released it.
    Idle,
    /// The task gives the worker this runnable to queue again, behind the others.
    Yield(TaskRef),
}

/// A queued task: a runnable whose ownership the scheduler holds.
///
/// Not `Clone`: each one stands for one count of the cell, given back by exactly one call of
/// [`run`](TaskRef::run) or [`shutdown`](TaskRef::shutdown).
#[derive(PartialEq, Eq)]
pub(crate) struct TaskRef(NonNull<Header>);

// SAFETY: a task ref is a runnable, whose cell's shared and private parts are `Send` (and the
// shared part `Sync`) by the bounds of `Task`, checked where the cell is made.
unsafe impl Send for TaskRef {}

impl TaskRef {
    /// A queued form of the runnable that owns the count behind `header`.
    ///
    /// # Safety
    /// `header` heads a live cell and the caller gives up a runnable's count of it (see
    /// [`Runnable::into_raw`](super::Runnable)).
    #[inline]
    pub(crate) unsafe fn from_raw(header: NonNull<Header>) -> TaskRef {
        TaskRef(header)
    }

    /// The header pointer.
    #[inline]
    pub(crate) fn as_ptr(&self) -> NonNull<Header> {
        self.0
    }

    /// Runs one turn of the task.
    #[inline]
    pub(crate) fn run(self) -> RawOutcome {
        // SAFETY: this ref owns a runnable's count, which keeps the cell alive; the vtable is the
        // one its cell was made with, and `run` takes the count over.
        unsafe {
            let vtable = self.0.as_ref().vtable;
            (vtable.run)(self.0)
        }
    }

    /// Tells the task that it will not run again on this runtime.
    pub(crate) fn shutdown(self) {
        // SAFETY: as for `run`.
        unsafe {
            let vtable = self.0.as_ref().vtable;
            (vtable.shutdown)(self.0)
        }
    }
}

impl fmt::Debug for TaskRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskRef({:p})", self.0)
    }
}
