//! Behaviours a shut-down runtime will not run: their closures are dropped unrun, their promises
//! get [`WhenError::Cancelled`], and their cowns are released as usual (so the behaviours after
//! them are cancelled in turn).

use std::cell::{Cell, RefCell};
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};

use motet_runtime::task::{Erased, Running, Task};
use motet_runtime::Runnable;

use crate::error::WhenError;

use super::block::Kind;
use super::current::{Current, RestoreCurrent};
use super::handoff::schedule_ready;
use super::step::finish;

/// How to cancel one task: a behaviour, or a deferred release, given as its erased runnable.
type Cancel = fn(Runnable<Erased>);

thread_local! {
    /// Set while this thread cancels behaviours at shutdown; nested cancellations queue here
    /// instead of recursing through the runtime's `schedule`.
    static CANCELLING: Cell<bool> = const { Cell::new(false) };
    static TO_CANCEL: RefCell<Vec<(Runnable<Erased>, Cancel)>> = const { RefCell::new(Vec::new()) };
}

/// A behaviour's task `shutdown`: the runtime will not run it.
pub(super) fn shutdown<K: Kind>(task: Running<K>) {
    shutdown_with(task, cancel_behaviour::<K>);
}

/// The `shutdown` of a task that `cancel` cancels: cancels it now, and whatever its cancellation
/// makes runnable after it, one at a time.
pub(super) fn shutdown_with<T: Task>(task: Running<T>, cancel: Cancel) {
    let task = task.into_runnable().erase();
    if CANCELLING.with(Cell::get) {
        // Cancelling releases cowns, whose successors the runtime shuts down at once: queue them
        // here rather than recurse once per behaviour of a long chain.
        TO_CANCEL.with(|q| q.borrow_mut().push((task, cancel)));
        return;
    }
    CANCELLING.with(|c| c.set(true));
    // A cancelled closure's `drop` is user code: it runs as outside any behaviour (see
    // `outside_behaviours`), whichever step's release scheduled the behaviour.
    let _outside = RestoreCurrent::replace(Current::NONE);
    let mut next = Some((task, cancel));
    while let Some((task, cancel)) = next {
        // Never unwinds into the caller: a runtime that is shut down cancels a behaviour inside
        // `schedule`, which a releasing behaviour calls, and a step relies on its release not
        // unwinding (see `step`). A panic in a cancelled closure's `drop` or in a promise's waker
        // is reported by the panic hook; the cancellations go on.
        let _ = catch_unwind(AssertUnwindSafe(|| cancel(task)));
        next = TO_CANCEL.with(|q| q.borrow_mut().pop());
    }
    CANCELLING.with(|c| c.set(false));
}

/// Cancels a behaviour of kind `K` that never ran: drops its closure, stores `Cancelled` for its
/// promise, and releases its cowns.
fn cancel_behaviour<K: Kind>(task: Runnable<Erased>) {
    let Ok(mut task) = task.downcast::<K>() else {
        unreachable!("a behaviour is cancelled as its own kind");
    };
    // A panic in the closure's `drop` (reported by the panic hook) still lets the cowns go.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the closure was never taken: the behaviour never ran (a behaviour that ran and
        // is still scheduled is a deferred release, a task of its own).
        unsafe { ManuallyDrop::drop(task.private()) }
    }));
    K::store(&task, Err(Box::new(WhenError::Cancelled)));
    if let (Some(next), _) = finish(task, 0).next() {
        schedule_ready(next);
    }
}
