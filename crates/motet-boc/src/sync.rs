//! Atomics, cells and spinning for the lock-free protocols, swapped for loom's under `cfg(loom)` so
//! that the loom models (`protocol/loom_models.rs`, `completion.rs`) explore the real code.

#[cfg(not(loom))]
pub(crate) use std::sync::atomic;

#[cfg(loom)]
pub(crate) use loom::sync::atomic;

/// An `UnsafeCell` with loom's closure-based access API on both builds.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Runs `f` with a mutable pointer to the contents.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// Backoff for the short waits of the protocol (a predecessor finishing its two-phase enqueue, a
/// successor finishing its link): spins first, then yields the thread, so that a waiter does not
/// keep the CPU from the preempted thread it waits for when threads outnumber cores. Under loom,
/// every step is a yield, so that the model lets the other thread progress.
pub(crate) struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
}

impl Backoff {
    #[inline(always)]
    pub(crate) fn new() -> Backoff {
        Backoff {
            #[cfg(not(loom))]
            inner: crossbeam_utils::Backoff::new(),
        }
    }

    /// Waits a little, a little longer each time.
    #[inline(always)]
    pub(crate) fn snooze(&self) {
        #[cfg(not(loom))]
        self.inner.snooze();
        #[cfg(loom)]
        loom::thread::yield_now();
    }
}
