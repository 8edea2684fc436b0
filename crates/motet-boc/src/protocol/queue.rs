//! A cown's side of the protocol: its queue of requests, its read phase and its reference count,
//! and the freeing of the cown by whichever of its last handle, last request and last reader goes
//! last (see the module docs, *Reference counts and freeing*).

use std::ptr::{self, NonNull};

use super::slot::Slot;
use crate::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// `read_count` counts running readers in steps of 2 ...
pub(crate) const ONE_READER: usize = 2;
/// ... and bit 0 says that a writer waits in `next_writer` for them to finish ...
pub(crate) const WRITER_WAITING: usize = 1;
/// ... and the top bit that the last handle is gone: the last reader frees the cown.
pub(crate) const ORPHAN_READERS: usize = 1 << (usize::BITS - 1);

/// Tail tag: the last handle is gone, and the request at the tail frees the cown on release.
pub(crate) const ORPHAN: usize = 0b001;

/// The protocol part of a cown: its request queue, read phase and reference count.
///
/// 8-aligned, so a slot can tag its pointer to the queue.
#[repr(C, align(8))]
pub(crate) struct Queue {
    /// The last request enqueued, or null when no behaviour uses or waits for the cown.
    pub(super) tail: AtomicPtr<Slot>,
    /// `2 * running readers + WRITER_WAITING (+ ORPHAN_READERS)`.
    pub(super) read_count: AtomicUsize,
    /// The writer waiting for the running readers to finish, valid while `WRITER_WAITING` is set.
    pub(super) next_writer: AtomicPtr<Slot>,
    /// Handles (see the module docs).
    pub(super) refs: AtomicUsize,
    /// Frees the cown that embeds this queue, once `refs` reaches zero.
    pub(super) free: unsafe fn(NonNull<Queue>),
}

impl Queue {
    /// A queue with no request, `refs` references (the creating handles) and the cown's destructor.
    pub(crate) fn new(refs: usize, free: unsafe fn(NonNull<Queue>)) -> Queue {
        Queue {
            tail: AtomicPtr::new(ptr::null_mut()),
            read_count: AtomicUsize::new(0),
            next_writer: AtomicPtr::new(ptr::null_mut()),
            refs: AtomicUsize::new(refs),
            free,
        }
    }

    /// Takes one more reference.
    #[inline]
    pub(crate) fn retain(&self) {
        // Relaxed: the caller holds a reference (or the queue's hold), which keeps the cown alive;
        // the count only has to be exact, as with `Arc::clone`.
        self.refs.fetch_add(1, Ordering::Relaxed);
    }

    /// Gives up one reference; the last one frees the cown, or hands the freeing on to the queue's
    /// last request or last reader (see the module docs).
    ///
    /// # Safety
    /// The caller owns one reference to the live cown embedding `this` and does not use the cown
    /// afterwards.
    #[inline]
    pub(crate) unsafe fn release_ref(this: NonNull<Queue>) {
        // SAFETY: the caller's reference keeps the queue alive until the decrement.
        let queue = unsafe { this.as_ref() };
        // Release: orders this holder's uses of the cown before its freeing. The acquire load of
        // the last holder pairs with every other holder's release decrement (a load rather than a
        // fence: ThreadSanitizer models the one and not the other).
        if queue.refs.fetch_sub(1, Ordering::Release) == 1 {
            queue.refs.load(Ordering::Acquire);
            // SAFETY: that was the last reference.
            unsafe { Queue::orphan(this) };
        }
    }

    /// The last reference is gone: frees the cown if nothing uses it, otherwise tags the tail or
    /// the read count so that the last request or reader frees it.
    ///
    /// # Safety
    /// No reference is left, and the caller does not use the cown afterwards.
    #[cold]
    unsafe fn orphan(this: NonNull<Queue>) {
        // SAFETY: not freed before one of the paths below decides so.
        let queue = unsafe { this.as_ref() };
        // Acquire: a null tail was left by a release CAS, whose behaviour's writes we need before
        // dropping the value. No handle is left, so no request can be enqueued: only the release
        // of the request at the tail (a CAS to null) changes the tail now.
        let mut tail = queue.tail.load(Ordering::Acquire);
        while !tail.is_null() {
            // AcqRel: release hands this thread's history (every holder's uses, through the fence
            // above) to the request that will free the cown; acquire as above when it fails on
            // a tail the last request has just left.
            match queue.tail.compare_exchange_weak(
                tail,
                tail.map_addr(|a| a | ORPHAN),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => tail = actual,
            }
        }
        // SAFETY: the queue is empty for good.
        unsafe { Queue::free_after_readers(this) };
    }

    /// With the queue empty for good and no reference left: frees the cown now if no reader runs,
    /// otherwise leaves that to the last reader.
    ///
    /// # Safety
    /// As for [`Queue::orphan`], with the tail null or tagged for the caller.
    pub(super) unsafe fn free_after_readers(this: NonNull<Queue>) {
        // SAFETY: not freed before this decides so.
        let queue = unsafe { this.as_ref() };
        // Acquire: the readers' reads of the value happen before it is dropped.
        if queue.read_count.load(Ordering::Acquire) != 0 {
            // AcqRel: release hands our history to the last reader; acquire its reads if the
            // count reached zero meanwhile.
            let prev = queue.read_count.fetch_or(ORPHAN_READERS, Ordering::AcqRel);
            if prev != 0 {
                return;
            }
        }
        let free = queue.free;
        // SAFETY: no reference, no request and no reader is left: nobody else can reach the cown.
        unsafe { free(this) };
    }

    /// The number of references (for tests and debug checks).
    #[cfg(test)]
    pub(crate) fn refs(&self) -> usize {
        self.refs.load(Ordering::SeqCst)
    }

    /// Whether no request is queued and no reader runs (for tests and debug checks).
    #[cfg(test)]
    pub(crate) fn is_idle(&self) -> bool {
        self.tail.load(Ordering::SeqCst).is_null() && self.read_count.load(Ordering::SeqCst) == 0
    }
}

impl Queue {
    /// Takes the last reference if it is the only one and no request is queued and no reader runs;
    /// returns whether it did.
    pub(crate) fn try_take_last(&self) -> bool {
        // Acquire: the other holders' uses happen before the value is taken.
        if self
            .refs
            .compare_exchange(1, 0, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        // No handle is left now, so nothing can be enqueued. Acquire: the completed behaviours'
        // writes (release CAS of the tail) and reads (read count) happen before the value is taken.
        if self.tail.load(Ordering::Acquire).is_null()
            && self.read_count.load(Ordering::Acquire) == 0
        {
            return true;
        }
        // Still in use: give the reference back. Relaxed: nobody else touches the count while it
        // is zero (every other holder is gone, and the protocol holds none).
        self.refs.store(1, Ordering::Relaxed);
        false
    }
}
