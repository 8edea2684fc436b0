//! Releasing a behaviour's requests once it has run: passing each cown on to the next request, or
//! leaving its queue, and freeing a cown whose last handle went while the behaviour held it.

use std::ptr::{self, NonNull};

use super::gate::grant;
use super::queue::{Queue, ORPHAN, ORPHAN_READERS};
use super::read::{drop_read, grant_readers};
use super::slot::{Slot, CHAIN_CLOSED, WAIT};
use crate::sync::atomic::Ordering;

/// Releases a request of a behaviour that has completed (or was cancelled): passes the cown on to
/// the successor, or leaves the queue.
///
/// # Safety
/// The slot was enqueued and granted, its behaviour has finished with the cown, and the slot is not
/// used again after this (its memory may be freed once all slots are released).
// Always inlined: the release of every behaviour; left to itself the compiler calls it, which
// measured dearer per behaviour on a chain of single-cown `when`s
// (see docs/measurements/2026-11-29-hot-path-choices.md).
#[inline(always)]
pub(crate) unsafe fn release(slot: NonNull<Slot>, runnable: &mut impl FnMut(NonNull<Slot>)) {
    // SAFETY: the caller's contract.
    if unsafe { slot.as_ref() }.is_duplicate() {
        return;
    }
    // SAFETY: the caller's contract, and not a duplicate.
    unsafe { release_distinct(slot, runnable) };
}

/// [`release`], for a request known not to be a duplicate (a behaviour's only request, or one its
/// caller checked).
///
/// # Safety
/// As for [`release`], and the slot is not a duplicate.
#[inline(always)]
pub(crate) unsafe fn release_distinct(
    slot: NonNull<Slot>,
    runnable: &mut impl FnMut(NonNull<Slot>),
) {
    // SAFETY: the caller's contract.
    let read = unsafe { slot.as_ref() }.is_read();
    // SAFETY: the caller's contract; `read` is the slot's mode.
    unsafe { release_as(slot, read, runnable) }
}

/// [`release_distinct`] for a request its caller knows to be a writer: the checks for a reader
/// fold away.
///
/// # Safety
/// As for [`release_distinct`], and the slot is a write request.
#[inline(always)]
pub(crate) unsafe fn release_writer(slot: NonNull<Slot>, runnable: &mut impl FnMut(NonNull<Slot>)) {
    // SAFETY: the caller's contract.
    debug_assert!(!unsafe { slot.as_ref() }.is_read());
    // SAFETY: the caller's contract.
    unsafe { release_as(slot, false, runnable) }
}

/// [`release_distinct`], with the slot's mode given.
///
/// # Safety
/// As for [`release_distinct`]; `read` is whether the slot is a read request.
#[inline(always)]
unsafe fn release_as(slot: NonNull<Slot>, read: bool, runnable: &mut impl FnMut(NonNull<Slot>)) {
    // SAFETY: the caller's contract.
    let s = unsafe { slot.as_ref() };
    debug_assert!(!s.is_duplicate(), "a duplicate request is never released");
    let queue_ptr = s.queue();
    // SAFETY: the slot is still in the queue (or counted in the read phase), which holds a
    // reference to the cown.
    let queue = unsafe { queue_ptr.as_ref() };
    // Acquire: pairs with a successor's release link.
    let mut status = s.status.load(Ordering::Acquire);
    debug_assert_ne!(status.addr(), WAIT, "released before its enqueue finished");
    if status.addr() < CHAIN_CLOSED {
        // No successor: leave the queue if we are its tail. Release on success: the next request
        // to find the tail null acquires this behaviour's writes through its swap (or the release
        // of the last handle through its load).
        match queue.tail.compare_exchange(
            slot.as_ptr(),
            ptr::null_mut(),
            Ordering::Release,
            Ordering::Acquire,
        ) {
            Ok(_) => {
                if read {
                    // SAFETY: a counted reader.
                    unsafe { drop_read(queue_ptr, runnable) };
                }
                return;
            }
            Err(actual) if actual == slot.as_ptr().map_addr(|a| a | ORPHAN) => {
                // The last handle is gone and this is the cown's last request (acquired: the
                // history of that release): free the cown, after the readers still running.
                // SAFETY: no reference is left and the queue is empty for good.
                unsafe { release_orphan(queue_ptr, read, runnable) };
                return;
            }
            // A successor swapped the tail and is linking in.
            Err(_) => status = s.wait_successor(),
        }
    }
    if read {
        // Readers owe their successor nothing (see the module docs).
        // SAFETY: a counted reader.
        unsafe { drop_read(queue_ptr, runnable) };
        return;
    }
    debug_assert!(
        status.addr() > CHAIN_CLOSED,
        "a writer's chain is never closed"
    );
    // SAFETY: a linked successor (a real slot pointer, above the status values) stays live until
    // it is granted and its behaviour has run.
    let next = unsafe { NonNull::new_unchecked(status) };
    // SAFETY: as above.
    let n = unsafe { next.as_ref() };
    if n.is_read() {
        // SAFETY: `next` is a reader waiting for this writer.
        unsafe { grant_readers(queue, next, runnable) };
    } else {
        // SAFETY: `next` waits for this grant.
        unsafe { grant(next, runnable) };
    }
}

/// Frees a cown whose last request is being released and whose last handle is gone: at once for a
/// writer (no reader runs beside it), by the last reader for a reader.
///
/// # Safety
/// The caller's slot is the last request of the cown, tagged [`ORPHAN`] at the tail, and the caller
/// does not use the cown afterwards.
#[cold]
unsafe fn release_orphan(
    queue_ptr: NonNull<Queue>,
    read: bool,
    runnable: &mut impl FnMut(NonNull<Slot>),
) {
    if read {
        // SAFETY: alive: our read is still counted.
        let queue = unsafe { queue_ptr.as_ref() };
        // Release: hands the last handle's history (acquired by our failed CAS) to the reader that
        // frees. Our own read is still counted, so the last reader is the one to free.
        queue.read_count.fetch_or(ORPHAN_READERS, Ordering::AcqRel);
        // SAFETY: a counted reader; the cown is not used afterwards.
        unsafe { drop_read(queue_ptr, runnable) };
    } else {
        // SAFETY: the caller's contract; a writer runs alone, so no reader is counted.
        unsafe { Queue::free_after_readers(queue_ptr) };
    }
}
