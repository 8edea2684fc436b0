//! The task abstraction: what the workers run.
//!
//! Everything that runs on motet is a *task*: an actor with a non-empty mailbox, a behaviour whose cowns
//! are all acquired, a ready reaction, a woken process. The runtime does not know which: a task is a
//! pointer to a [`TaskHeader`] placed at offset 0 of the model's own allocation (so an actor, its
//! mailbox and its state are one allocation, as Verona packs a behaviour with its requests), and the
//! header's [`TaskVTable`] says how to run it and how to shut it down.
//!
//! # Ownership
//!
//! The runtime never frees a task and never counts references to it. A model hands a task to
//! [`Handle::schedule`](crate::Handle::schedule) when it becomes runnable and promises that the task stays
//! alive until the runtime calls either `run` or `shutdown` on it, exactly once per scheduling. What
//! keeps it alive (a mailbox state, a reference count, a pending-request count) is the model's business;
//! the model also guarantees that a task is never in the scheduler twice at once.

use std::fmt;
use std::ptr::NonNull;

/// What a task's `run` tells the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// The task has nothing more to do for now (or is finished): the worker forgets it. The model will
    /// schedule it again when it becomes runnable.
    Idle,
    /// The task still has work but gives others a turn: the worker puts it at the back of its queue.
    Yield,
}

/// The operations of one kind of task.
#[derive(Debug)]
pub struct TaskVTable {
    /// Runs the task for one turn.
    ///
    /// # Safety
    /// Called by the runtime with the task pointer it was given by `schedule`, once per scheduling, on
    /// one thread at a time.
    pub run: unsafe fn(NonNull<TaskHeader>) -> RunOutcome,
    /// Called instead of `run` for a task that is scheduled on, or left in, a runtime that has shut
    /// down: the task must release what it holds without expecting to run again.
    ///
    /// # Safety
    /// As for `run`.
    pub shutdown: unsafe fn(NonNull<TaskHeader>),
}

/// The first field of every task allocation.
#[repr(C)]
pub struct TaskHeader {
    vtable: &'static TaskVTable,
}

impl TaskHeader {
    /// A header for a task of the kind described by `vtable`.
    pub const fn new(vtable: &'static TaskVTable) -> TaskHeader {
        TaskHeader { vtable }
    }
}

impl fmt::Debug for TaskHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskHeader").finish_non_exhaustive()
    }
}

/// A pointer to a runnable task, as held by the scheduler's queues.
///
/// A `TaskRef` does not own the task (see the module docs for who does).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TaskRef(NonNull<TaskHeader>);

// SAFETY: a task is run by one thread at a time (the model schedules it at most once at a time), and the
// model's allocation behind the header is `Send` by the contract of `TaskRef::from_raw`.
unsafe impl Send for TaskRef {}

impl TaskRef {
    /// Wraps a pointer to a task header.
    ///
    /// # Safety
    /// `header` points to a live `TaskHeader` at offset 0 of an allocation whose contents may be used
    /// from any thread, and which stays alive until the runtime has called `run` or `shutdown` on each
    /// scheduling of it (see the module docs).
    pub unsafe fn from_raw(header: NonNull<TaskHeader>) -> TaskRef {
        TaskRef(header)
    }

    /// The header pointer.
    pub fn as_ptr(self) -> NonNull<TaskHeader> {
        self.0
    }

    /// Runs one turn of the task.
    pub(crate) fn run(self) -> RunOutcome {
        // SAFETY: `from_raw`'s contract keeps the header alive until run/shutdown; the scheduler calls
        // exactly one of them per scheduling, on one thread.
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
