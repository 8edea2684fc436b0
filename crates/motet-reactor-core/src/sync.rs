//! The atomics and cells the lock-free physical-action paths (the inbox and the interrupt-safe
//! rings) are built from, swapped for loom's under `cfg(loom)` so that the loom models
//! (`RUSTFLAGS="--cfg loom" cargo test -p motet-reactor-core --lib --release loom`) explore the
//! real code.

#[cfg(not(loom))]
pub(crate) use core::sync::atomic;

#[cfg(loom)]
pub(crate) use loom::sync::atomic;

/// An `UnsafeCell` with loom's access API (`with`, `with_mut`), so that loom can check that no
/// two accesses to a ring slot race.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(v: T) -> UnsafeCell<T> {
        UnsafeCell(core::cell::UnsafeCell::new(v))
    }

    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;
