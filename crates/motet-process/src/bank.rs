//! A worker thread's bank of references to a process system (see `motet_runtime::bank`).
//!
//! Every process holds a counted reference to its system (the system must outlive the processes
//! that schedule themselves through it). Counted one at a time, that count is a cache line every
//! spawn and every free writes: on a pool, a driver process spawning on one worker while the
//! other worker finishes and frees the spawned processes moves that line between the two workers
//! twice per process. So a worker thread banks references, as motet-runtime banks the references
//! of its handles. A bank serves one system at a time and is filled only on a runtime's worker
//! threads, so the references it holds are given back when the worker exits (when its runtime is
//! dropped) or when the thread spawns for another system.

use std::sync::Arc;

use motet_runtime::bank::{Counted, RefBank};

use crate::system::SystemShared;

/// References taken from (or given back to) the shared count at once.
const BATCH: usize = 64;

thread_local! {
    static BANK: RefBank<SystemShared, BATCH> = const { RefBank::new() };
}

// SAFETY: every `SystemShared` lives in an `Arc` (`ProcessSystemBuilder::build`), whose strong count
// is what keeps it alive; `acquire` and `release` add to and subtract from that count.
unsafe impl Counted for SystemShared {
    fn acquire(&self, n: usize) {
        for _ in 0..n {
            // SAFETY: `self` is inside an `Arc` (see above) that the caller's reference keeps alive.
            unsafe { Arc::increment_strong_count(self) };
        }
    }

    unsafe fn release(this: *const SystemShared, n: usize) {
        for _ in 0..n {
            // SAFETY: the caller gives up `n` counted references to the `Arc` at `this`.
            unsafe { Arc::decrement_strong_count(this) };
        }
    }
}

/// A counted reference to `system` for a new process: from this thread's bank if it holds some
/// (refilled on a worker thread), otherwise a plain clone.
#[inline]
pub(crate) fn withdraw(system: &Arc<SystemShared>) -> Arc<SystemShared> {
    RefBank::take(&BANK, system, || system.on_worker());
    // SAFETY: `take` made one more counted reference to the `Arc` at this pointer, ours now.
    unsafe { Arc::from_raw(Arc::as_ptr(system)) }
}

/// Gives up a process's reference to its system: into this thread's bank if it holds references
/// to that system, or holds none and this is a worker thread; otherwise a plain drop.
#[inline]
pub(crate) fn deposit(system: Arc<SystemShared>) {
    let raw = Arc::into_raw(system);
    // SAFETY: `raw` carries the counted reference given up here; the closure runs before that.
    unsafe { RefBank::give(&BANK, raw, || (*raw).on_worker()) };
}
