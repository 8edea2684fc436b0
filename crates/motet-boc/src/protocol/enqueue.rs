//! Enqueueing a behaviour's requests: the only request of a behaviour over one cown, the distinct
//! requests of a behaviour over several (the paper's two-phase enqueue), and the chains of a batch
//! (see the module docs, *Two-phase enqueue*).

use std::ptr::NonNull;

use super::queue::Queue;
use super::read::claim;
use super::slot::{status_ptr, Grant, Slot, CHAIN_CLOSED, READY, READ_AVAILABLE, WAIT};
use crate::sync::atomic::Ordering;

///
/// # Safety
/// `prev` is the slot this request's tail swap returned, so it is live until we link or close it.
#[inline]
unsafe fn link_behind(
    queue: &Queue,
    prev: NonNull<Slot>,
    slot: NonNull<Slot>,
    read: bool,
) -> Grant {
    // SAFETY: the caller's contract.
    let p = unsafe { prev.as_ref() };
    let status = p.wait_enqueued();
    if !read {
        // SAFETY: our own slot, live until it is granted, which needs the link below.
        unsafe { slot.as_ref() }
            .status
            .store(status_ptr(READY), Ordering::Release);
    }
    if status.addr() == READY {
        if !p.is_read() {
            // Release: publishes our slot to `prev`'s release, which acquires it. Only we write
            // the status of a writer once it has left WAIT, so no CAS is needed.
            p.status.store(slot.as_ptr(), Ordering::Release);
            return Grant::No;
        }
        // AcqRel: release publishes our slot to whoever grants through `prev`; acquire as in
        // `wait_enqueued`. Fails if a grant cascade marked `prev` READ_AVAILABLE meanwhile.
        match p
            .status
            .compare_exchange(status, slot.as_ptr(), Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => return Grant::No,
            Err(actual) => debug_assert_eq!(actual.addr(), READ_AVAILABLE),
        }
    } else {
        debug_assert_eq!(status.addr(), READ_AVAILABLE);
    }
    // `prev` is a granted reader with no successor: we take over and owe it nothing. Release: its
    // owner may be spinning in `release` for a successor response, and then drops its read.
    p.status.store(status_ptr(CHAIN_CLOSED), Ordering::Release);
    claim(queue, slot, read)
}

/// The status that ends a request's enqueue.
#[inline]
fn enqueued_status(grant: Grant) -> *mut Slot {
    status_ptr(if grant == Grant::Read {
        READ_AVAILABLE
    } else {
        READY
    })
}

/// Enqueues the only request of a behaviour spawned alone over one cown; returns whether it was
/// granted at once (the caller then makes it runnable).
///
/// Such a behaviour has no gate count to hold it back while it enqueues, so its slot must be
/// complete before anyone can grant it. A writer can be granted only through its link (or its
/// claim), so it becomes `READY` just before linking, once its predecessor has finished enqueueing:
/// a successor that sees it `READY` then knows that every request before it has finished its
/// enqueue, which is what keeps the two-phase order transitive. (Becoming `READY` any earlier would
/// let a two-cown successor overtake, on its second cown, a two-cown predecessor still enqueueing.)
/// A reader may be granted through the cascade, which waits for it to leave `WAIT`, so it stores
/// its status (`READY`, or `READ_AVAILABLE` if it was granted at once) after linking.
///
/// # Safety
/// `slot` and its cown are live, the slot is not enqueued yet and is tagged single, and the caller
/// keeps a reference to the cown until this returns.
#[inline]
pub(crate) unsafe fn enqueue_single(slot: NonNull<Slot>) -> bool {
    // SAFETY: the caller's contract.
    let read = unsafe { slot.as_ref() }.is_read();
    // SAFETY: the caller's contract; `read` is the slot's mode.
    unsafe { enqueue_single_as(slot, read) }
}

/// [`enqueue_single`] for a request its caller knows to be a writer (a `when` over one cown with
/// write access, the common case): the checks for a reader fold away.
///
/// # Safety
/// As for [`enqueue_single`], and the slot is a write request.
#[inline]
pub(crate) unsafe fn enqueue_single_writer(slot: NonNull<Slot>) -> bool {
    // SAFETY: the caller's contract.
    debug_assert!(!unsafe { slot.as_ref() }.is_read());
    // SAFETY: the caller's contract.
    unsafe { enqueue_single_as(slot, false) }
}

/// [`enqueue_single`], with the slot's mode given.
///
/// # Safety
/// As for [`enqueue_single`]; `read` is whether the slot is a read request.
#[inline(always)]
unsafe fn enqueue_single_as(slot: NonNull<Slot>, read: bool) -> bool {
    // SAFETY: the caller's contract.
    let s = unsafe { slot.as_ref() };
    // SAFETY: the caller holds a reference to the cown.
    let queue = unsafe { s.queue().as_ref() };
    // AcqRel: release publishes the slot's fields to the next request; acquire, when the tail was
    // null, takes the writes of the behaviour whose release CAS emptied the queue.
    let prev = queue.tail.swap(slot.as_ptr(), Ordering::AcqRel);
    let grant = match NonNull::new(prev) {
        None => {
            if !read {
                // Release: as in `link_behind`; before `claim`, which may park the writer for the
                // last reader to grant.
                s.status.store(status_ptr(READY), Ordering::Release);
            }
            claim(queue, slot, read)
        }
        // SAFETY: `prev` came from our swap.
        Some(prev) => unsafe { link_behind(queue, prev, slot, read) },
    };
    if read {
        // Release: ends our enqueue; successors spinning in `wait_enqueued` acquire it. A reader
        // that was not granted cannot be granted before this (the cascade waits for it).
        s.status.store(enqueued_status(grant), Ordering::Release);
    }
    // A writer that was not granted may already have been granted, run and freed by another
    // thread: `slot` is not touched again.
    grant != Grant::No
}

/// The most requests [`enqueue_distinct`] takes (its grants are bits of one word).
pub(crate) const MAX_DISTINCT: usize = 64;

/// Enqueues the requests of one behaviour spawned alone over several distinct cowns, sorted by
/// cown (in the global order): the two-phase enqueue of the paper, each request a chain of one.
/// Returns how many requests were granted at once; the caller then resolves the gate with that
/// number plus the spawner's hold (or, with every request granted, makes the behaviour runnable
/// without counting).
///
/// The common multi-cown spawn (a `when` over two cowns) takes this path rather than
/// [`enqueue_batch`]: no chains to find, no grant buffer, and the second phase stores each
/// status without reading it first (a request of a chain of one is the only one that writes its
/// own status while it is `WAIT`); measured much cheaper per two-cown spawn on Savina's banking
/// than through `enqueue_batch` (see docs/measurements/2026-11-29-hot-path-choices.md).
/// `writers` says that every request is a write request (a constant where this is inlined): the
/// checks for a reader then fold away.
///
/// # Safety
/// The slots and their cowns are live, not enqueued yet, on pairwise distinct cowns sorted by id;
/// their behaviour is not single and its gate counts the spawner's hold; at most
/// [`MAX_DISTINCT`] requests; the caller keeps a reference to each cown until this returns; every
/// request is a write request if `writers`.
#[inline(always)]
pub(crate) unsafe fn enqueue_distinct(requests: &[NonNull<Slot>], writers: bool) -> u32 {
    debug_assert!(requests.len() <= MAX_DISTINCT);
    // Bit i: request i was granted at once; `readers`: as a reader (its status ends the enqueue
    // as READ_AVAILABLE).
    let mut granted = 0u64;
    let mut readers = 0u64;
    // Phase 1: on each cown, swap the request onto the tail and link it behind the previous tail,
    // or claim the cown at the front of the read phase.
    for (i, &slot) in requests.iter().enumerate() {
        // SAFETY: the caller's contract.
        let s = unsafe { slot.as_ref() };
        // SAFETY: as above.
        let queue = unsafe { s.queue().as_ref() };
        // AcqRel: as in `enqueue_single`.
        let prev = queue.tail.swap(slot.as_ptr(), Ordering::AcqRel);
        let front = match NonNull::new(prev) {
            None => true,
            // SAFETY: `prev` came from our swap.
            Some(prev) => unsafe { link_chain_behind(prev, slot) },
        };
        if front {
            debug_assert!(!(writers && s.is_read()));
            let read = !writers && s.is_read();
            match claim(queue, slot, read) {
                Grant::No => {}
                Grant::Write => granted |= 1 << i,
                Grant::Read => {
                    granted |= 1 << i;
                    readers |= 1 << i;
                }
            }
        }
    }
    // Phase 2: the behaviour is enqueued everywhere; let successors link in. Each status is still
    // WAIT: a successor links only once it has left WAIT, and a grant (a claim, a parked writer's
    // grant) never writes it.
    for (i, &slot) in requests.iter().enumerate() {
        // SAFETY: live until its behaviour runs, which needs the spawner's hold.
        let s = unsafe { slot.as_ref() };
        let status = if readers & (1 << i) != 0 {
            READ_AVAILABLE
        } else {
            READY
        };
        // Release: pairs with successors' acquire in `wait_enqueued`.
        s.status.store(status_ptr(status), Ordering::Release);
    }
    granted.count_ones()
}

/// Enqueues a batch of requests, sorted by cown (in the global order), then by behaviour in spawn
/// order, without duplicates of one behaviour on one cown. Fills `grants` with what each request
/// got at once; the caller then adds up the grants per behaviour and calls [`resolve`] with that
/// number plus the spawner's hold.
///
/// The requests of the batch on one cown form a *chain*, linked privately first and then swapped
/// onto the tail at once, so that no other spawn can come between them (as Verona does).
///
/// # Safety
/// The slots and their cowns are live, not enqueued yet, their behaviours are not single, their
/// gates count the spawner's hold, and the caller keeps a reference to each cown until this
/// returns.
pub(crate) unsafe fn enqueue_batch(requests: &[NonNull<Slot>], grants: &mut [Grant]) {
    debug_assert_eq!(requests.len(), grants.len());
    grants.fill(Grant::No);
    // Phase 1: for each cown, link its chain privately, swap it onto the tail and link it behind
    // the previous tail.
    let mut start = 0;
    while start < requests.len() {
        // SAFETY: the caller's contract.
        let queue_ptr = unsafe { requests[start].as_ref() }.queue();
        let mut end = start + 1;
        // SAFETY: as above.
        while end < requests.len() && unsafe { requests[end].as_ref() }.queue() == queue_ptr {
            end += 1;
        }
        let chain = &requests[start..end];
        for pair in chain.windows(2) {
            // SAFETY: as above.
            let s = unsafe { pair[0].as_ref() };
            // Relaxed: private until the swap below publishes the chain.
            s.status.store(pair[1].as_ptr(), Ordering::Relaxed);
        }
        // SAFETY: as above.
        let queue = unsafe { queue_ptr.as_ref() };
        let first = chain[0];
        // AcqRel: as in `enqueue_single`.
        let prev = queue
            .tail
            .swap(chain[chain.len() - 1].as_ptr(), Ordering::AcqRel);
        let front = match NonNull::new(prev) {
            None => true,
            // SAFETY: `prev` came from our swap.
            Some(prev) => unsafe { link_chain_behind(prev, first) },
        };
        if front {
            claim_chain(queue, chain, &mut grants[start..end]);
        }
        start = end;
    }
    // Phase 2: the batch is enqueued everywhere; let successors link in.
    for (i, &slot) in requests.iter().enumerate() {
        // SAFETY: live until its behaviour runs, which needs the spawner's hold.
        let s = unsafe { slot.as_ref() };
        // Relaxed: only this thread writes a WAIT slot's status.
        if s.status.load(Ordering::Relaxed).addr() == WAIT {
            // Release: pairs with successors' acquire in `wait_enqueued`.
            s.status
                .store(enqueued_status(grants[i]), Ordering::Release);
        }
    }
}

/// Links the chain starting at `first` behind `prev`; returns whether the chain is at the front of
/// the read phase instead (`prev` was a granted reader).
///
/// # Safety
/// As for [`link_behind`].
#[inline]
unsafe fn link_chain_behind(prev: NonNull<Slot>, first: NonNull<Slot>) -> bool {
    // SAFETY: the caller's contract.
    let p = unsafe { prev.as_ref() };
    let status = p.wait_enqueued();
    if status.addr() == READY {
        if !p.is_read() {
            // Release: as in `link_behind`.
            p.status.store(first.as_ptr(), Ordering::Release);
            return false;
        }
        // AcqRel: as in `link_behind`.
        if p.status
            .compare_exchange(status, first.as_ptr(), Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return false;
        }
    }
    // Release: as in `link_behind`.
    p.status.store(status_ptr(CHAIN_CLOSED), Ordering::Release);
    true
}

/// Claims a cown for a chain at the front of the read phase: its leading readers join the phase,
/// and the first writer tries to claim the cown; the rest wait on the chain's links.
fn claim_chain(queue: &Queue, chain: &[NonNull<Slot>], grants: &mut [Grant]) {
    for (i, &slot) in chain.iter().enumerate() {
        // SAFETY: a live slot of the batch.
        let read = unsafe { slot.as_ref() }.is_read();
        grants[i] = claim(queue, slot, read);
        if !read {
            return;
        }
    }
}

/// Enqueues a deferred value's blocker: a writer request owned by its resolver, at the head of a
/// fresh queue, so that every behaviour naming the value waits until it is released.
///
/// # Safety
/// `slot` (a first request tagged single, never granted through the graph) and its cown are live,
/// and the queue has never been used.
pub(crate) unsafe fn enqueue_blocker(slot: NonNull<Slot>) {
    // SAFETY: the caller's contract; a fresh queue grants its first writer at once.
    let granted = unsafe { enqueue_single(slot) };
    debug_assert!(granted);
}
