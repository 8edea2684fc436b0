//! A worker thread's bank of references to a process system.
//!
//! Every process holds a counted reference to its system (the system must outlive the processes
//! that schedule themselves through it). Counted one at a time, that reference count is a cache
//! line every spawn and every free writes: on a pool, a driver process spawning on one worker
//! while the other worker finishes and frees the spawned processes moves that line between the
//! two workers twice per process. Instead, a worker thread takes references [`BATCH`] at a time
//! into a thread-local bank and hands them out one by one to the processes it spawns; the
//! references of the processes it frees go back into its bank, and an overfull bank gives
//! [`BATCH`] back. The shared count is touched once per [`BATCH`] spawns or frees, as
//! motet-runtime banks the references of its handles.
//!
//! A bank serves one system at a time (the one it holds references to); the references of another
//! system's processes are counted directly. It is filled only on a
//! runtime's worker threads, so the references it holds are given back when the worker exits
//! (when its runtime is dropped) or when the thread spawns for another system; nothing else keeps
//! a system alive once its handles and processes are gone.

use std::cell::Cell;
use std::ptr;
use std::sync::Arc;

use crate::system::SystemShared;

/// References taken from (or given back to) the shared count at once.
const BATCH: usize = 64;

/// The references a thread holds to one system.
struct Bank {
    /// The system the references are to; meaningful only while `refs` is non-zero.
    system: Cell<*const SystemShared>,
    /// How many counted references to `system` the bank holds.
    refs: Cell<usize>,
}

impl Bank {
    /// Gives every held reference back.
    fn flush(&self) {
        let refs = self.refs.replace(0);
        let system = self.system.get();
        for _ in 0..refs {
            // SAFETY: the bank holds `refs` counted references to `system`, which it gives up
            // here (the last one may free the system; the bank does not touch it afterwards).
            unsafe { Arc::decrement_strong_count(system) };
        }
    }
}

/// Empties this thread's bank when the thread exits.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = BANK.try_with(Bank::flush);
    }
}

thread_local! {
    // No destructor of its own, so every access is a plain thread-local access, without the
    // registration check a thread-local with a destructor pays on each use; the `GUARD`,
    // registered when the bank is first filled, empties it instead.
    static BANK: Bank = const {
        Bank {
            system: Cell::new(ptr::null()),
            refs: Cell::new(0),
        }
    };
    static GUARD: Guard = const { Guard };
}

/// A counted reference to `system` for a new process: from this thread's bank if it holds some
/// (refilled on a worker thread), otherwise a plain clone.
#[inline]
pub(crate) fn withdraw(system: &Arc<SystemShared>) -> Arc<SystemShared> {
    let raw = Arc::as_ptr(system);
    let banked = BANK.with(|bank| {
        let refs = bank.refs.get();
        if refs > 0 && bank.system.get() == raw {
            bank.refs.set(refs - 1);
            true
        } else {
            refill(bank, system)
        }
    });
    if banked {
        // SAFETY: the bank handed over one of its counted references to this system.
        unsafe { Arc::from_raw(raw) }
    } else {
        system.clone()
    }
}

/// Fills the bank with [`BATCH`] references to `system` (giving back those it holds to another)
/// and takes one; false, leaving the bank alone, off the runtime's workers. Out of line: it runs
/// once per [`BATCH`] spawns.
#[cold]
#[inline(never)]
fn refill(bank: &Bank, system: &Arc<SystemShared>) -> bool {
    if !system.on_worker() || !guarded() {
        return false;
    }
    bank.flush();
    let raw = Arc::as_ptr(system);
    bank.system.set(raw);
    for _ in 0..BATCH {
        // SAFETY: `system` is a live `Arc`, so its pointer came from one and the count is
        // positive; the bank now owns the new reference.
        unsafe { Arc::increment_strong_count(raw) };
    }
    bank.refs.set(BATCH - 1);
    true
}

/// Registers the guard that empties the bank at thread exit; false if the thread is exiting
/// already (its thread-locals are being destroyed: the bank must stay empty).
fn guarded() -> bool {
    GUARD.try_with(|_| ()).is_ok()
}

/// Gives up a process's reference to its system: into this thread's bank if it holds
/// references to that system, or holds none and this is a worker thread (giving [`BATCH`] back to
/// the shared count when it holds more than twice that), otherwise a plain drop. A worker that
/// frees the processes another worker spawned thus banks their references too.
#[inline]
pub(crate) fn deposit(system: Arc<SystemShared>) {
    let raw = Arc::as_ptr(&system);
    let banked = BANK.with(|bank| {
        let refs = bank.refs.get();
        if refs == 0 || bank.system.get() != raw {
            return adopt(bank, &system);
        }
        if refs < 2 * BATCH {
            bank.refs.set(refs + 1);
        } else {
            give_back(bank, refs);
        }
        true
    });
    if banked {
        // The reference now belongs to the bank.
        std::mem::forget(system);
    }
}

/// Starts banking `system`'s references with the one being deposited, if the bank is empty and
/// this is a worker thread. Out of line: it runs when a worker first frees a process.
#[cold]
#[inline(never)]
fn adopt(bank: &Bank, system: &Arc<SystemShared>) -> bool {
    if bank.refs.get() != 0 || !system.on_worker() || !guarded() {
        return false;
    }
    bank.system.set(Arc::as_ptr(system));
    bank.refs.set(1);
    true
}

/// Takes a deposit into a bank holding `refs` (at least `2 * BATCH`) references: gives
/// [`BATCH`] of them back. Out of line: it runs once per [`BATCH`] frees.
#[cold]
#[inline(never)]
fn give_back(bank: &Bank, refs: usize) {
    // Keeps `refs + 1 - BATCH` (more than `BATCH`), so none of these drops frees the system.
    bank.refs.set(refs + 1 - BATCH);
    let system = bank.system.get();
    for _ in 0..BATCH {
        // SAFETY: the bank held `refs + 1` counted references (with the deposited one), and gives
        // `BATCH` of them up.
        unsafe { Arc::decrement_strong_count(system) };
    }
}
