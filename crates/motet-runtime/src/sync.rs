//! The synchronisation primitives the runtime is built from, swapped for loom's under `cfg(loom)`.
//!
//! Every atomic, mutex, condition variable and `UnsafeCell` in the protocol code comes from here, so
//! that the loom models (`RUSTFLAGS="--cfg loom" cargo test -p motet-runtime --release --test loom`)
//! explore the real code's interleavings rather than a copy of it.

#[cfg(not(loom))]
pub(crate) use std::sync::{atomic, Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub(crate) use loom::sync::{atomic, Condvar, Mutex, MutexGuard};

/// Locks `m`, ignoring poisoning: the runtime's own critical sections never panic while holding a
/// lock, and user code never runs under one.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    #[cfg(not(loom))]
    {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
    #[cfg(loom)]
    {
        m.lock().unwrap()
    }
}
