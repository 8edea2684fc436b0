//! The result hand-over between a behaviour and its [`Promise`](crate::Promise), without a lock and
//! without an allocation.
//!
//! The result lives in the behaviour's own block, beside this state word and the waker cell (apart:
//! the block packs the state word beside the behaviour's gate, see `Promised`). The block is freed
//! by whichever of the two sides finishes last: the behaviour (after it ran and released its cowns)
//! or the promise (dropped, or consumed). `state` decides which:
//!
//! - `HANDLE`: the promise exists. Set at spawn; cleared when the promise is dropped. A
//!   fire-and-forget `when` drops its promise at once: one atomic operation on the block the
//!   spawner has just written, and the behaviour, seeing `HANDLE` clear, frees its block without
//!   another atomic operation.
//! - `DONE`: the result is in the block. Set by the behaviour after writing it.
//! - `WAKER`: a waker is registered in the waker cell. While set (and `DONE` is not), the cell
//!   belongs to the behaviour side, which takes the waker when it sets `DONE` and then clears
//!   `WAKER`; while clear, it belongs to the promise side.
//!
//! The block is freed once `HANDLE` is clear, `DONE` is set and `WAKER` is clear; the side whose
//! operation makes that true frees it (see [`Completion::complete`] and
//! [`Completion::drop_handle`]). The result cell is an `Option`: the promise takes the value out,
//! and the block's drop drops whatever is left, and a waker left in the cell.

#[cfg(all(test, loom))]
mod loom_models;

use std::task::Waker;

use crate::sync::atomic::{AtomicU32, Ordering};
use crate::sync::UnsafeCell;

const HANDLE: u32 = 0b001;
const DONE: u32 = 0b010;
const WAKER: u32 = 0b100;

/// The state of a behaviour's result hand-over.
pub(crate) struct Completion {
    state: AtomicU32,
}

/// Where the promise side leaves a waker for the behaviour side (see the module docs).
pub(crate) struct WakerCell(UnsafeCell<Option<Waker>>);

impl WakerCell {
    pub(crate) fn new() -> WakerCell {
        WakerCell(UnsafeCell::new(None))
    }
}

impl Completion {
    /// A completion whose promise exists.
    pub(crate) fn new() -> Completion {
        Completion {
            state: AtomicU32::new(HANDLE),
        }
    }

    /// Behaviour side, after the result has been written: whether the promise is gone already.
    /// Then the block is the caller's to free, without another atomic operation.
    #[inline(always)]
    pub(crate) fn promise_gone(&self) -> bool {
        // Acquire: a promise dropped before completion cleared HANDLE with a release operation
        // after its last use of the block; HANDLE is never set again, so the block is ours.
        self.state.load(Ordering::Acquire) & HANDLE == 0
    }

    /// Behaviour side, after the result has been written (and [`Completion::promise_gone`]
    /// answered no): publishes it and wakes a waiter registered in `cell`. Returns whether the
    /// caller must now free the block.
    #[inline]
    pub(crate) fn complete(&self, cell: &WakerCell) -> bool {
        // AcqRel: release publishes the result to the promise; acquire a waker it registered.
        let prev = self.state.fetch_or(DONE, Ordering::AcqRel);
        if prev & HANDLE == 0 {
            return true;
        }
        if prev & WAKER == 0 {
            return false;
        }
        // SAFETY: WAKER was set before DONE: the cell is ours until we clear WAKER.
        let waker = cell.0.with_mut(|w| unsafe { (*w).take() });
        // AcqRel: release hands the cell back; acquire a promise drop that happened meanwhile.
        let prev = self.state.fetch_and(!WAKER, Ordering::AcqRel);
        if let Some(waker) = waker {
            waker.wake();
        }
        prev & HANDLE == 0
    }

    /// Promise side: whether the result is there (acquire: the result can then be read).
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.state.load(Ordering::Acquire) & DONE != 0
    }

    /// Promise side: registers `waker` in `cell` to be woken on completion, unless the result is
    /// already there (then returns true and registers nothing).
    pub(crate) fn register(&self, cell: &WakerCell, waker: &Waker) -> bool {
        // Acquire: as in `is_done`.
        let mut state = self.state.load(Ordering::Acquire);
        if state & DONE != 0 {
            return true;
        }
        if state & WAKER != 0 {
            // Take the cell back before replacing the waker.
            loop {
                // AcqRel: acquire the result if DONE is set meanwhile; release for the cell.
                match self.state.compare_exchange_weak(
                    state,
                    state & !WAKER,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => break,
                    Err(actual) if actual & DONE != 0 => return true,
                    Err(actual) => state = actual,
                }
            }
        }
        // SAFETY: WAKER is clear and DONE is not set: the cell is ours.
        cell.0.with_mut(|w| unsafe { *w = Some(waker.clone()) });
        // AcqRel: release the waker to the behaviour side; acquire the result if DONE came first.
        let prev = self.state.fetch_or(WAKER, Ordering::AcqRel);
        if prev & DONE != 0 {
            // The behaviour completed without seeing the waker: the cell is still ours.
            // Relaxed: only this side reads WAKER with DONE set.
            self.state.fetch_and(!WAKER, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Promise side, when the promise goes away. Returns whether the caller must now free the
    /// block. The promise must not touch the block afterwards unless this returned true.
    #[inline]
    pub(crate) fn drop_handle(&self) -> bool {
        // AcqRel: release our uses of the block (result taken) to the side that frees it; acquire
        // the behaviour's writes if we free it.
        let prev = self.state.fetch_and(!HANDLE, Ordering::AcqRel);
        prev & DONE != 0 && prev & WAKER == 0
    }
}
