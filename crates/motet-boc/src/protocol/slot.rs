//! A behaviour's requests: [`Slot`], its status word and its tags, and [`LaterSlot`], a request
//! after a behaviour's first, which points back to the first (see the module docs, *Slot status*
//! and *A behaviour seen by the protocol*).

use std::ptr::{self, NonNull};

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
/// A request that duplicates an earlier one of its behaviour on the same cown: never enqueued nor
/// released (the cown is acquired once), so no other status is ever stored over it.
const DUPLICATE: usize = 4;

/// Tag bit: the request is read-only.
const READ_TAG: usize = 0b001;
/// Tag bit: the behaviour's first request, which stands for the behaviour (see [`Slot::first_of`]).
const FIRST_TAG: usize = 0b010;
/// Tag bit, only beside [`FIRST_TAG`]: the only request of a behaviour spawned alone over one cown,
/// which has no gate: its one grant makes it runnable.
const SINGLE_TAG: usize = 0b100;
const TAGS: usize = READ_TAG | FIRST_TAG | SINGLE_TAG;

/// One request of a behaviour for one cown. 8-aligned: a successor's status holds its address, and
/// a request's pointer to its queue carries three tag bits.
#[repr(C, align(8))]
pub(crate) struct Slot {
    /// [`WAIT`], [`READY`], [`READ_AVAILABLE`], [`CHAIN_CLOSED`], [`DUPLICATE`] (as addresses
    /// without provenance, never dereferenced) or the successor slot.
    pub(super) status: AtomicPtr<Slot>,
    /// The cown's queue, tagged with `READ_TAG`, `FIRST_TAG` and `SINGLE_TAG`.
    cown: *const Queue,
}

/// A request of a behaviour after its first: the request, and the behaviour's first request, which
/// the protocol hands to its caller when the behaviour becomes runnable and whose gate follows it.
#[repr(C)]
pub(crate) struct LaterSlot {
    slot: Slot,
    first: NonNull<Slot>,
}

// SAFETY: a slot's fields are read and written by the protocol's rules (the status word is atomic,
// the queue pointer is written before the slot is shared), from any thread; the queue they point
// to is `Sync`.
unsafe impl Send for Slot {}
// SAFETY: as above.
unsafe impl Sync for Slot {}
// SAFETY: as for `Slot`; `first` is written before the slot is shared and only read after.
unsafe impl Send for LaterSlot {}
// SAFETY: as above.
unsafe impl Sync for LaterSlot {}

/// A status value as a pointer without provenance.
#[inline(always)]
pub(super) fn status_ptr(status: usize) -> *mut Slot {
    ptr::without_provenance_mut(status)
}

impl Slot {
    fn tagged(queue: NonNull<Queue>, tags: usize) -> Slot {
        Slot {
            status: AtomicPtr::new(status_ptr(WAIT)),
            cown: queue.as_ptr().map_addr(|a| a | tags),
        }
    }

    /// The first request of a behaviour, for the cown behind `queue`; `single` if it is the only
    /// request of a behaviour spawned alone (see [`enqueue_single`](super::enqueue_single)).
    pub(crate) fn first(queue: NonNull<Queue>, read: bool, single: bool) -> Slot {
        let read = if read { READ_TAG } else { 0 };
        let single = if single { SINGLE_TAG } else { 0 };
        Slot::tagged(queue, FIRST_TAG | single | read)
    }

    /// A request after the first of its behaviour (placed in a [`LaterSlot`]).
    pub(crate) fn later(queue: NonNull<Queue>, read: bool) -> Slot {
        Slot::tagged(queue, if read { READ_TAG } else { 0 })
    }

    /// The cown's queue.
    #[inline]
    pub(crate) fn queue(&self) -> NonNull<Queue> {
        // SAFETY: built from a `NonNull` in `tagged`; masking tag bits of an 8-aligned address
        // keeps it non-null.
        unsafe { NonNull::new_unchecked(self.cown.map_addr(|a| a & !TAGS).cast_mut()) }
    }

    /// Whether the request is read-only.
    #[inline]
    pub(crate) fn is_read(&self) -> bool {
        self.cown.addr() & READ_TAG != 0
    }

    /// Whether this is the only request of a behaviour without a gate.
    #[inline(always)]
    pub(crate) fn is_single(&self) -> bool {
        self.cown.addr() & SINGLE_TAG != 0
    }

    /// Whether this is its behaviour's first request.
    #[inline(always)]
    fn is_first(&self) -> bool {
        self.cown.addr() & FIRST_TAG != 0
    }

    /// Whether the request duplicates another one of its behaviour (and is ignored).
    #[inline]
    pub(crate) fn is_duplicate(&self) -> bool {
        // Relaxed: set before the behaviour is shared, and never changed afterwards.
        self.status.load(Ordering::Relaxed).addr() == DUPLICATE
    }

    /// Marks a later request as a duplicate: it is then neither enqueued nor released. Only before
    /// its behaviour is enqueued.
    pub(crate) fn mark_duplicate(&self) {
        debug_assert!(
            !self.is_first(),
            "a behaviour's first request is never a duplicate"
        );
        // Relaxed: the slot is not shared yet; the enqueue that shares it publishes this.
        self.status.store(status_ptr(DUPLICATE), Ordering::Relaxed);
    }

    /// The first request of the behaviour `slot` belongs to: `slot` itself, or the one a
    /// [`LaterSlot`] points to.
    ///
    /// # Safety
    /// `slot` is live and either a behaviour's first request or the `slot` of a [`LaterSlot`],
    /// reached through a pointer to the whole `LaterSlot`.
    #[inline(always)]
    pub(crate) unsafe fn first_of(slot: NonNull<Slot>) -> NonNull<Slot> {
        // SAFETY: the caller's contract.
        if unsafe { slot.as_ref() }.is_first() {
            return slot;
        }
        // SAFETY: the caller's contract: a later request is the first field of a `LaterSlot`.
        unsafe { slot.cast::<LaterSlot>().as_ref() }.first
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
    /// allocated: the caller may then call `successor` on it in turn.
    #[inline]
    pub(crate) fn successor(&self) -> Option<NonNull<Slot>> {
        if self.is_read() {
            // A reader's successor may be granted, run and freed before this reader finishes.
            return None;
        }
        // Acquire, though the result is only a hint: the successor was published by a release
        // store of this word (`enqueue`), and the caller reads the successor's fields (its `cown`
        // word in `is_read`, its status word) when it calls `successor` on it in turn. With a
        // relaxed load those reads raced with the successor's initialisation (ThreadSanitizer
        // reported them from `prefetch_successors`). On x86 an acquire load is a plain load.
        let status = self.status.load(Ordering::Acquire);
        debug_assert_ne!(status.addr(), DUPLICATE, "a duplicate has no successor");
        if status.addr() > CHAIN_CLOSED {
            NonNull::new(status)
        } else {
            None
        }
    }
}

impl LaterSlot {
    /// A later request of the behaviour whose first request is `first`.
    pub(crate) fn new(slot: Slot, first: NonNull<Slot>) -> LaterSlot {
        debug_assert!(!slot.is_first());
        LaterSlot { slot, first }
    }

    /// The request.
    #[inline(always)]
    pub(crate) fn slot(&self) -> &Slot {
        &self.slot
    }

    /// A pointer to the request that reaches the whole `LaterSlot`, as the protocol needs it (see
    /// [`Slot::first_of`]).
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> NonNull<Slot> {
        NonNull::from(self).cast()
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
