//! The synchronisation primitives of the channel and process protocols, swapped for loom's under
//! `cfg(loom)` so that the loom models (`RUSTFLAGS="--cfg loom" cargo test -p motet-process --lib
//! --release loom`) explore the real code's interleavings.

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};

/// An `UnsafeCell` with loom's closure-based access API on both builds.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Runs `f` with a shared pointer to the contents.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Runs `f` with a mutable pointer to the contents.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// A busy-wait hint.
#[cfg(not(loom))]
#[inline(always)]
pub(crate) fn spin_hint() {
    std::hint::spin_loop();
}

/// Gives the processor away (a spinning thread whose lock holder may have been preempted).
#[cfg(not(loom))]
#[inline]
pub(crate) fn yield_now() {
    std::thread::yield_now();
}
