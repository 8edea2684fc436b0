//! Quiescence: when the pool has nothing left to do.
//!
//! A worker is running, searching or parked (see [`idle`](crate::scheduler::idle)). A worker parks
//! only with an empty slot and empty queues, so when every worker is parked, all work lies in the
//! injector or in pending timers: the pool is **quiescent** when all workers are parked, the
//! injector is empty and no timer is pending. The last worker to park (and the timer thread after
//! firing) checks this and wakes the threads blocked in `wait_quiescent`.

use super::Pool;
use crate::sync::atomic::Ordering::SeqCst;
use crate::sync::lock;
use crate::timer::Timers;

impl Pool {
    /// Quiescent: every worker parked, nothing in the injector, no pending timer.
    ///
    /// The three conditions are read one after the other, so they must describe one instant: a timer
    /// callback (or another thread) could otherwise push a task after the first read, wake a worker
    /// that steals it before the second, and return before the third, and the pool would look
    /// quiescent while that worker runs the task. Work only moves out of the injector through a worker
    /// that a counted wake-up unparked, so an unchanged wake count across the reads rules this out.
    pub(crate) fn is_quiescent(&self, timers: &Timers) -> bool {
        if self.stopped.load(SeqCst) {
            // Shut down: the workers exited without parking, and any task scheduled now is shut
            // down inside `schedule`.
            return true;
        }
        let wakes = self.idle.wakes();
        self.idle.all_parked()
            && self.injector.is_empty()
            && timers.pending() == 0
            && self.idle.wakes() == wakes
    }

    /// Wakes `wait_quiescent` callers if the pool is quiescent.
    pub(crate) fn check_quiescent(&self, timers: &Timers) {
        if self.is_quiescent(timers) {
            let _guard = lock(&self.quiescent_lock);
            self.quiescent_cv.notify_all();
        }
    }

    /// Blocks until the pool is quiescent.
    pub(crate) fn wait_quiescent(&self, timers: &Timers) {
        let mut guard = lock(&self.quiescent_lock);
        while !self.is_quiescent(timers) {
            guard = self
                .quiescent_cv
                .wait(guard)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}
