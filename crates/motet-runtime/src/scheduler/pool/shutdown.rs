//! Shutting the pool down.
//!
//! **Shutdown** (dropping the [`Runtime`](crate::Runtime)): set `shutdown`, wake every worker, join
//! them. A worker that sees `shutdown` stops running tasks and hands every task left in its slot
//! and queues to the task's `shutdown` (which may schedule more, into the same queues, until they
//! are empty). The runtime then drains the injector the same way. A task scheduled later still (by
//! another thread holding an actor address, say) sees `shutdown` after pushing and drains the
//! injector itself, so no task is ever stranded.

use std::cell::Cell;

use crossbeam_deque::Steal;

use super::{Pool, DRAINING};
use crate::sync::atomic::Ordering::SeqCst;
use crate::sync::lock;

impl Pool {
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
}
