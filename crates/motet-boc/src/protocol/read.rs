//! The read phase of a cown (see the module docs, *Read-only acquisition*): claiming a cown at the
//! front of its queue, counting readers in and out, parking a writer for the last reader, and the
//! grant cascade through a run of readers.

use std::ptr::NonNull;

use super::gate::grant;
use super::queue::{Queue, ONE_READER, ORPHAN_READERS, WRITER_WAITING};
use super::slot::{status_ptr, Grant, Slot, CHAIN_CLOSED, READY, READ_AVAILABLE};
use crate::sync::atomic::Ordering;

/// Claims a cown for a request at the front of the read phase (head of the queue, or behind a
/// granted reader).
#[inline]
pub(super) fn claim(queue: &Queue, slot: NonNull<Slot>, read: bool) -> Grant {
    if read {
        add_read(queue);
        Grant::Read
    } else if try_write(queue, slot) {
        Grant::Write
    } else {
        Grant::No
    }
}

/// Counts a reader into the read phase.
#[inline]
fn add_read(queue: &Queue) {
    // AcqRel: acquire the writes of the writer that completed before this read phase (through the
    // count's release sequence); release is needed for the read count's own sequence.
    queue.read_count.fetch_add(ONE_READER, Ordering::AcqRel);
}

/// A writer at the front of the queue claims the cown: granted if no reader runs, otherwise parked
/// in `next_writer` for the last reader to grant.
#[inline]
fn try_write(queue: &Queue, slot: NonNull<Slot>) -> bool {
    // Acquire: if no reader runs, the last reader's release decrement is acquired, so its reads of
    // the cown happen before this writer's accesses.
    let mut count = queue.read_count.load(Ordering::Acquire);
    if count == 0 {
        return true;
    }
    // Relaxed: published by the release CAS below that sets WRITER_WAITING; irrelevant if the
    // readers finish first and the writer is granted after all.
    queue.next_writer.store(slot.as_ptr(), Ordering::Relaxed);
    loop {
        if count == 0 {
            return true;
        }
        debug_assert_eq!(
            count & WRITER_WAITING,
            0,
            "two writers wait for one read phase"
        );
        // AcqRel: release publishes `next_writer` to the last reader; acquire as above on failure.
        match queue.read_count.compare_exchange_weak(
            count,
            count | WRITER_WAITING,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => return false,
            Err(actual) => count = actual,
        }
    }
}

/// A reader finished: leaves the read phase; the last reader grants a waiting writer, or frees a
/// cown whose last handle is gone.
///
/// # Safety
/// The queue is live, the caller was a counted reader, and it does not use the cown afterwards (it
/// may be freed here).
#[inline]
pub(super) unsafe fn drop_read(
    queue_ptr: NonNull<Queue>,
    runnable: &mut impl FnMut(NonNull<Slot>),
) {
    // SAFETY: a counted reader keeps the cown alive until it leaves the count.
    let queue = unsafe { queue_ptr.as_ref() };
    // AcqRel: release our reads to the writer that will be granted (or to whoever frees the
    // cown); acquire `next_writer`, which the writer published with its release CAS setting
    // WRITER_WAITING, or the history of the last handle's release that set ORPHAN_READERS.
    let prev = queue.read_count.fetch_sub(ONE_READER, Ordering::AcqRel);
    if prev == ONE_READER | WRITER_WAITING {
        let writer = queue.next_writer.load(Ordering::Relaxed);
        // Relaxed: no reader can join before the writer (it sits in the queue ahead of any later
        // request), and the writer runs only after `grant`, which releases this.
        queue
            .read_count
            .fetch_and(!WRITER_WAITING, Ordering::Relaxed);
        // SAFETY: a waiting writer's slot is live until it is granted and has run, and its
        // behaviour waits for this grant.
        unsafe { grant(NonNull::new_unchecked(writer), runnable) };
    } else if prev == ONE_READER | ORPHAN_READERS {
        let free = queue.free;
        // SAFETY: the last handle is gone, the queue is empty for good, and we were the last
        // reader: nobody else can reach the cown.
        unsafe { free(queue_ptr) };
    }
}

/// The grant cascade: grants the run of readers that starts at `first`, marks the last of them
/// `READ_AVAILABLE`, and hands a writer that follows them to [`try_write`].
///
/// # Safety
/// `first` is a reader slot linked behind a writer that has just completed.
pub(super) unsafe fn grant_readers(
    queue: &Queue,
    first: NonNull<Slot>,
    runnable: &mut impl FnMut(NonNull<Slot>),
) {
    add_read(queue);
    let mut current = first;
    loop {
        // SAFETY: `current` is granted but not yet resolved, so its behaviour cannot have run.
        let c = unsafe { current.as_ref() };
        let seen = c.wait_enqueued();
        let status = if seen.addr() == READY {
            // AcqRel: release lets a later reader join the phase; acquire a successor's link on
            // failure. Fails if a successor linked in since.
            match c.status.compare_exchange(
                seen,
                status_ptr(READ_AVAILABLE),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    // SAFETY: the reader waits for this grant; `current` is not touched after it.
                    unsafe { grant(current, runnable) };
                    return;
                }
                Err(status) => status,
            }
        } else {
            seen
        };
        debug_assert!(status.addr() > CHAIN_CLOSED);
        // SAFETY: a linked successor is live until granted and run.
        let next = unsafe { NonNull::new_unchecked(status) };
        // SAFETY: as above.
        let n = unsafe { next.as_ref() };
        if n.is_read() {
            add_read(queue);
            // SAFETY: the reader waits for this grant; `current` is not touched after it.
            unsafe { grant(current, runnable) };
            current = next;
        } else {
            // SAFETY: as above. The writer cannot be granted before `try_write` below: it waits on
            // the read count, whose WRITER_WAITING only `try_write` sets.
            unsafe { grant(current, runnable) };
            if try_write(queue, next) {
                // SAFETY: the writer waits for this grant.
                unsafe { grant(next, runnable) };
            }
            return;
        }
    }
}
