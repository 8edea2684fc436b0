//! The synchronisation primitives motet is built from, swapped for loom's under `cfg(loom)`.
//!
//! Every atomic, mutex, condition variable and `UnsafeCell` in the protocol code of the runtime
//! and of the models (motet-actor's mailbox, motet-boc's protocol, motet-process's channels) comes
//! from here, so that the loom models (`RUSTFLAGS="--cfg loom" cargo test -p <crate> --lib
//! --release loom`) explore the real code's interleavings rather than a copy of it. Not part of
//! the public API: the models import it as `crate::sync`.

#[cfg(not(loom))]
pub use std::sync::{atomic, Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub use loom::sync::{atomic, Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub use loom::cell::UnsafeCell;

/// Locks `m`, ignoring poisoning: the critical sections of motet's own code never panic while
/// holding a lock, and user code never runs under one.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    #[cfg(not(loom))]
    {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
    #[cfg(loom)]
    {
        m.lock().unwrap()
    }
}

/// An `UnsafeCell` with loom's closure-based access API on both builds.
#[cfg(not(loom))]
#[derive(Debug)]
pub struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    /// A cell holding `value`.
    pub const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Runs `f` with a shared pointer to the contents.
    #[inline(always)]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Runs `f` with a mutable pointer to the contents.
    #[inline(always)]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// A busy-wait hint; under loom, a yield, so that the model lets the other thread progress.
#[inline(always)]
pub fn spin() {
    #[cfg(not(loom))]
    std::hint::spin_loop();
    #[cfg(loom)]
    loom::thread::yield_now();
}

/// Backoff for short waits on another thread (a predecessor finishing a two-phase enqueue, a
/// successor finishing its link): spins first, then yields the thread, so that a waiter does not
/// keep the CPU from the preempted thread it waits for when threads outnumber cores. Under loom,
/// every step is a yield, so that the model lets the other thread progress.
#[derive(Debug)]
pub struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
}

impl Backoff {
    /// A fresh backoff, at its shortest wait.
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Backoff {
        Backoff {
            #[cfg(not(loom))]
            inner: crossbeam_utils::Backoff::new(),
        }
    }

    /// Waits a little, a little longer each time.
    #[inline(always)]
    pub fn snooze(&self) {
        #[cfg(not(loom))]
        self.inner.snooze();
        #[cfg(loom)]
        loom::thread::yield_now();
    }
}
