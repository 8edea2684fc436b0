//! A behaviour's requests: [`Slot`], its status word and its tags (see the module docs, *Slot
//! status*).

use std::ptr::{self, NonNull};

use super::gate::Gate;
use super::queue::Queue;
use crate::sync::atomic::{AtomicPtr, Ordering};
use crate::sync::Backoff;

/// A slot's behaviour is still enqueueing: a successor must wait.
pub(crate) const WAIT: usize = 0;
/// Enqueued, no successor, not a granted reader.
pub(crate) const READY: usize = 1;
/// A granted reader without a successor: a reader may join, a writer must wait for the readers.
pub(crate) const READ_AVAILABLE: usize = 2;
/// A successor found `READ_AVAILABLE` and took over; nothing is owed to it.
pub(crate) const CHAIN_CLOSED: usize = 3;

/// Slot tag bit: the request is read-only.
pub(super) const READ_TAG: usize = 0b01;
/// Slot tag bit: a duplicate of another slot of the same behaviour on the same cown; ignored by
/// the protocol (the cown is acquired once).
pub(super) const DUP_TAG: usize = 0b10;
pub(super) const TAGS: usize = READ_TAG | DUP_TAG;
/// One request of a behaviour for one cown. 8-aligned: a successor's status holds its address.
#[repr(C, align(8))]
pub(crate) struct Slot {
    /// [`WAIT`], [`READY`], [`READ_AVAILABLE`], [`CHAIN_CLOSED`] (as addresses without provenance,
    /// never dereferenced) or the successor slot.
    pub(super) status: AtomicPtr<Slot>,
    /// The cown's queue, tagged with `READ_TAG` and `DUP_TAG`.
    cown: *const Queue,
    /// The behaviour this request belongs to (dangling for a promise's blocker, which is never
    /// granted through the graph).
    gate: NonNull<Gate>,
}

/// A status value as a pointer without provenance.
#[inline(always)]
pub(super) fn status_ptr(status: usize) -> *mut Slot {
    ptr::without_provenance_mut(status)
}

impl Slot {
    /// A request of the behaviour behind `gate` for the cown behind `queue`.
    pub(crate) fn new(queue: NonNull<Queue>, read: bool, gate: NonNull<Gate>) -> Slot {
        let tag = if read { READ_TAG } else { 0 };
        Slot {
            status: AtomicPtr::new(status_ptr(WAIT)),
            cown: queue.as_ptr().map_addr(|a| a | tag),
            gate,
        }
    }

    /// The cown's queue.
    #[inline]
    pub(crate) fn queue(&self) -> NonNull<Queue> {
        // SAFETY: built from a `NonNull` in `new`; masking tag bits of an 8-aligned address keeps
        // it non-null.
        unsafe { NonNull::new_unchecked(self.cown.map_addr(|a| a & !TAGS).cast_mut()) }
    }

    /// Whether the request is read-only.
    #[inline]
    pub(crate) fn is_read(&self) -> bool {
        self.cown.addr() & READ_TAG != 0
    }

    /// Whether the request duplicates another one of its behaviour (and is ignored).
    #[inline]
    pub(crate) fn is_dup(&self) -> bool {
        self.cown.addr() & DUP_TAG != 0
    }

    /// Marks the request as a duplicate. Only before it is enqueued.
    pub(crate) fn set_dup(&mut self) {
        self.cown = self.cown.map_addr(|a| a | DUP_TAG);
    }

    /// Spins while the slot's behaviour is still enqueueing; returns the status seen (acquire).
    #[inline]
    pub(super) fn wait_enqueued(&self) -> *mut Slot {
        let backoff = Backoff::new();
        loop {
            // Acquire: pairs with the owner's release store ending its enqueue (or a link), so the
            // fields behind a successor pointer read afterwards are visible.
            let s = self.status.load(Ordering::Acquire);
            if s.addr() != WAIT {
                return s;
            }
            backoff.snooze();
        }
    }

    /// Spins until a successor has linked in or closed the chain; returns the status (acquire).
    #[inline]
    pub(super) fn wait_successor(&self) -> *mut Slot {
        let backoff = Backoff::new();
        loop {
            // Acquire: pairs with the successor's release link, before its slot is dereferenced.
            let s = self.status.load(Ordering::Acquire);
            if s.addr() >= CHAIN_CLOSED {
                return s;
            }
            backoff.snooze();
        }
    }

    /// The writer request linked behind this one, if this is a writer request and one is linked
    /// yet: a hint for prefetching.
    ///
    /// A writer's successor waits for the writer's release to be granted, so while this request is
    /// granted and not released, the successor's behaviour cannot run and its slot stays
    /// allocated: the caller may then call `successor` on it in turn (its status word is atomic).
    /// Its other fields may not be visible to this thread yet and must not be read.
    #[inline]
    pub(crate) fn successor(&self) -> Option<NonNull<Slot>> {
        if self.is_read() {
            // A reader's successor may be granted, run and freed before this reader finishes.
            return None;
        }
        // Relaxed: only a hint, on an atomic word. A release reads it again, with acquire, before
        // it uses the successor.
        let status = self.status.load(Ordering::Relaxed);
        if status.addr() > CHAIN_CLOSED {
            NonNull::new(status)
        } else {
            None
        }
    }

    /// The behaviour's gate.
    #[inline]
    pub(super) fn gate(&self) -> NonNull<Gate> {
        self.gate
    }
}

/// How a request was granted during its enqueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Grant {
    /// Not yet: a predecessor (or the last reader) will grant it.
    #[default]
    No,
    /// Granted a writer: the cown is this behaviour's.
    Write,
    /// Granted a reader: counted in the read phase.
    Read,
}
