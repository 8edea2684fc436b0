//! The atomics the lock-free physical-action inbox is built from, swapped for loom's under `cfg(loom)`
//! so that the loom model (`RUSTFLAGS="--cfg loom" cargo test -p motet-reactor-core --lib --release
//! loom`) explores the real code.

#[cfg(not(loom))]
pub(crate) use core::sync::atomic;

#[cfg(loom)]
pub(crate) use loom::sync::atomic;
