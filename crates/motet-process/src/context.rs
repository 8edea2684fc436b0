//! What the current thread is doing for motet-process: the process system whose process (or
//! `block_on`) it is polling, and how many steps that process may still take before it yields.
//!
//! A process runs several steps per scheduling (the thesis' multi-step execution, section 4.5): a
//! receive that finds its value, a send with room, a select with a ready branch all continue without
//! going back to the scheduler. Each such operation spends one step of a per-run budget
//! ([`ProcessSystemBuilder::steps`](crate::ProcessSystemBuilder::steps)); once it is spent, the next
//! operation wakes its process and returns `Pending`, and the process goes to the back of its
//! worker's queue so that the others get a turn. Outside a process the budget is unlimited.

use std::cell::Cell;
use std::ptr;

use crate::system::SystemShared;

thread_local! {
    /// The system whose process (or `block_on`) this thread is polling; null outside.
    static SYSTEM: Cell<*const SystemShared> = const { Cell::new(ptr::null()) };
    /// Steps left to the process being polled on this thread.
    static BUDGET: Cell<u32> = const { Cell::new(u32::MAX) };
}

/// Marks the thread as polling for `system` with `budget` steps; restores the previous marks when
/// dropped (a `block_on` inside a deterministic drive nests).
pub(crate) struct Enter {
    system: *const SystemShared,
    budget: u32,
}

pub(crate) fn enter(system: *const SystemShared, budget: u32) -> Enter {
    Enter {
        system: SYSTEM.with(|s| s.replace(system)),
        budget: BUDGET.with(|b| b.replace(budget)),
    }
}

impl Drop for Enter {
    fn drop(&mut self) {
        SYSTEM.with(|s| s.set(self.system));
        BUDGET.with(|b| b.set(self.budget));
    }
}

/// Spends one step; false when the budget is exhausted (the caller yields instead).
#[inline]
pub(crate) fn take_step() -> bool {
    BUDGET.with(|b| {
        let left = b.get();
        if left == 0 {
            return false;
        }
        b.set(left - 1);
        true
    })
}

/// Runs `f` with the system of the process being polled on this thread, if any.
pub(crate) fn with_system<R>(f: impl FnOnce(Option<&SystemShared>) -> R) -> R {
    let system = SYSTEM.with(Cell::get);
    // SAFETY: the pointer is set only while a process of that system (which holds a reference to it)
    // or a `block_on` (which borrows it) is being polled on this thread.
    f(unsafe { system.as_ref() })
}

/// Spends the whole budget: the process yields at its next chance.
#[inline]
pub(crate) fn exhaust() {
    BUDGET.with(|b| b.set(0));
}
