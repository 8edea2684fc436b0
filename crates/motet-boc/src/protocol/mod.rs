//! The dependency graph of behaviours: a queue of requests per cown, two-phase enqueue over several
//! cowns, release, and read-only acquisition.
//!
//! This module knows nothing about closures, types or the runtime. A behaviour is a [`Gate`] (how
//! many grants it still waits for) and one [`Slot`] per cown it names; a cown is a [`Queue`]. The
//! caller (`behaviour.rs`) owns the memory, sorts the requests, and decides what "runnable" means
//! (scheduling a task on motet-runtime; recording an event in the loom models).
//!
//! # The queue of a cown (after the BoC paper, section 4)
//!
//! Seen from one cown, the behaviours that name it form a queue in spawn order, an MCS queue lock
//! whose waiters are behaviours rather than spinning threads. [`Queue::tail`] points to the last
//! request (slot) enqueued, or is null when no behaviour uses or waits for the cown. A behaviour
//! enqueues a slot with one `swap` on the tail; the previous tail is its predecessor, to which it
//! links itself by writing its slot's address into the predecessor's `status`. When a behaviour
//! completes, each of its slots either finds a successor there and passes the cown on, or swings the
//! tail back to null with a compare-and-swap.
//!
//! # Two-phase enqueue (atomic acquisition and happens-before)
//!
//! A behaviour over several cowns enqueues on them in one global order (the caller sorts by cown
//! id), and its slots start in [`WAIT`]. A successor that finds a predecessor in `WAIT` spins until
//! the predecessor's behaviour has enqueued on *all* its cowns and set its slots to [`READY`]. So a
//! later behaviour can never overtake an earlier one on a cown they share: the graph is a DAG
//! ordered by spawn order (Definition 2.1 of the paper), and since every behaviour waits only on
//! predecessors that are earlier in that order, and enqueues in one global cown order, no cycle of
//! waits can form: neither in the spins of the enqueue nor in the graph.
//!
//! A behaviour's [`Gate`] counts the grants it still needs: one per distinct cown, plus one held by
//! the spawner until its second phase is complete, so a behaviour never runs (and is never freed)
//! half-enqueued. Whoever takes the count to zero makes the behaviour runnable. A lone behaviour
//! over a single cown (the common case) skips the count: its one grant comes from exactly one place,
//! which schedules it directly (the gate holds [`SINGLE`] instead of a count); its writer slot
//! becomes [`READY`] as it links in (see [`enqueue_single`]).
//!
//! # Slot status
//!
//! The `status` word of a slot is owned by its behaviour until a successor links in:
//!
//! - [`WAIT`]: the behaviour is still enqueueing; a successor spins.
//! - [`READY`]: enqueued, no successor yet, not granted as a reader.
//! - [`READ_AVAILABLE`]: a *granted reader* with no successor yet: the next request may join the
//!   read phase if it is a reader, or must wait for the readers to drain if it is a writer.
//! - [`CHAIN_CLOSED`]: a successor found `READ_AVAILABLE` and took care of itself; the slot owes it
//!   nothing.
//! - a pointer (at least 8: slots are 8-aligned): the successor's slot, which this slot's release
//!   (a writer) or the grant cascade through it (a reader) must grant.
//!
//! Transitions: the owner stores `WAIT → READY | READ_AVAILABLE` at the end of its enqueue; the
//! successor CASes `READY → successor` or, on `READ_AVAILABLE`, stores `CHAIN_CLOSED`; a grant
//! cascade CASes `READY → READ_AVAILABLE`. Only `READY` is contended (successor against cascade), and
//! a CAS settles it.
//!
//! # Read-only acquisition (as Verona's runtime does it since 2024)
//!
//! Consecutive readers of a cown run together; a writer waits for the readers spawned before it, and
//! readers spawned after a writer wait for it. The cown's [`Queue::read_count`] holds twice the
//! number of running (granted, unfinished) readers, plus [`WRITER_WAITING`]. A request *granted* on a
//! cown either runs (writer) or is counted there (reader):
//!
//! - a request that finds the queue empty is at the head: a reader adds itself to the count; a
//!   writer tries to claim the cown ([`try_write`]): it gets it if no reader runs, otherwise it
//!   parks in [`Queue::next_writer`] with `WRITER_WAITING` set, and the last reader to finish grants
//!   it;
//! - a request behind a `READ_AVAILABLE` reader is granted the same way (a reader joins; a writer
//!   tries to claim);
//! - a writer that completes grants its successor: a writer directly; a reader through the *grant
//!   cascade*, which counts and grants each reader of the run that follows, marks the last one
//!   `READ_AVAILABLE`, and hands a writer found at the end of the run to [`try_write`].
//!
//! A reader that completes leaves the tail (CAS to null) if it is the tail and has no successor, even
//! while other readers still run: the read count, not the tail, says whether the cown is free, which
//! is why a head writer must still [`try_write`]. A reader never grants its successor on release:
//! readers after it were granted by the cascade or by joining, and a writer after it waits on the
//! read count.
//!
//! # Reference counts and freeing
//!
//! [`Queue::refs`] counts the handles to the cown (and the holds that act like handles: a batch
//! being built, a producer deferred by backpressure). Neither the queue nor a read phase holds a
//! reference: a request is only ever enqueued through a handle, so while a handle exists the cown
//! lives, and once the last one is gone nothing can be enqueued any more and the cown only has to
//! outlive the requests already queued and the readers still running. Verona's queue holds one
//! reference while it is non-empty; here an idle cown's behaviour costs no reference-count
//! operation at all, which is two atomic operations less per behaviour on an idle cown.
//!
//! So the last handle's release ([`Queue::release_ref`]) frees the cown only if the queue is empty
//! and no reader runs. Otherwise it hands the freeing on, with a tag set by one atomic operation:
//!
//! - a non-null tail gets the [`ORPHAN`] tag. The request at the tail is the last one the cown will
//!   ever have; its release finds its compare-and-swap of the tail failing on its own tagged
//!   address, and frees the cown itself (after the last reader, if it is a reader: next point).
//!   Earlier requests see a tail that is not theirs and wait for their successor as usual.
//! - with the tail null, a read count that is not zero gets [`ORPHAN_READERS`]: the reader that
//!   takes the count to zero frees the cown.
//!
//! Each tag is set once, when the last handle is gone, and read by exactly one party, so the cown
//! is freed exactly once and after everything that used it.
//!
//! # Memory ordering
//!
//! Each atomic operation below says what it synchronises with. In short: the tail `swap` is
//! acquire-release (it publishes the new slot to its successor, and acquires the completed
//! behaviour's writes when the tail was null); links (`status` stores and CASes) are release and are
//! read with acquire before the successor pointer is dereferenced; the release CAS of the tail to
//! null publishes the completed behaviour's writes to the next head; `read_count` updates are
//! acquire-release so that a writer sees the readers' reads finished; gates use the
//! last-decrementer pattern (release decrement, acquire fence for the one that schedules), except
//! that a grant whose acquire load finds the count at its own share knows it is the last and
//! skips the decrement (see [`resolve`]).

#[cfg(all(test, loom))]
mod loom_models;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(all(test, not(loom)))]
mod tests;

use std::ptr::{self, NonNull};

use crate::sync::atomic::{fence, AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use crate::sync::Backoff;

/// A slot's behaviour is still enqueueing: a successor must wait.
pub(crate) const WAIT: usize = 0;
/// Enqueued, no successor, not a granted reader.
pub(crate) const READY: usize = 1;
/// A granted reader without a successor: a reader may join, a writer must wait for the readers.
pub(crate) const READ_AVAILABLE: usize = 2;
/// A successor found `READ_AVAILABLE` and took over; nothing is owed to it.
pub(crate) const CHAIN_CLOSED: usize = 3;

/// `read_count` counts running readers in steps of 2 ...
const ONE_READER: usize = 2;
/// ... and bit 0 says that a writer waits in `next_writer` for them to finish ...
pub(crate) const WRITER_WAITING: usize = 1;
/// ... and the top bit that the last handle is gone: the last reader frees the cown.
pub(crate) const ORPHAN_READERS: usize = 1 << (usize::BITS - 1);

/// Tail tag: the last handle is gone, and the request at the tail frees the cown on release.
pub(crate) const ORPHAN: usize = 0b001;

/// The gate value of a lone behaviour over one cown: no count, its one grant schedules it.
const SINGLE: u32 = u32::MAX;

/// Slot tag bit: the request is read-only.
const READ_TAG: usize = 0b01;
/// Slot tag bit: a duplicate of another slot of the same behaviour on the same cown; ignored by
/// the protocol (the cown is acquired once).
const DUP_TAG: usize = 0b10;
const TAGS: usize = READ_TAG | DUP_TAG;

/// The protocol part of a cown: its request queue, read phase and reference count.
///
/// 8-aligned, so a slot can tag its pointer to the queue.
#[repr(C, align(8))]
pub(crate) struct Queue {
    /// The last request enqueued, or null when no behaviour uses or waits for the cown.
    tail: AtomicPtr<Slot>,
    /// `2 * running readers + WRITER_WAITING (+ ORPHAN_READERS)`.
    read_count: AtomicUsize,
    /// The writer waiting for the running readers to finish, valid while `WRITER_WAITING` is set.
    next_writer: AtomicPtr<Slot>,
    /// Handles (see the module docs).
    refs: AtomicUsize,
    /// Frees the cown that embeds this queue, once `refs` reaches zero.
    free: unsafe fn(NonNull<Queue>),
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
        // Release: orders this holder's uses of the cown before its freeing. The acquire fence of
        // the last holder pairs with every other holder's release decrement.
        if queue.refs.fetch_sub(1, Ordering::Release) == 1 {
            fence(Ordering::Acquire);
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
    unsafe fn free_after_readers(this: NonNull<Queue>) {
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

/// What a behaviour waits for before it can run: the grants still missing (`distinct cowns + 1` at
/// the start, the 1 held by the spawner until its enqueue is complete), or [`SINGLE`] for a lone
/// behaviour over one cown, whose single grant schedules it without counting.
pub(crate) struct Gate {
    pending: AtomicU32,
}

impl Gate {
    /// A gate for a behaviour over `cowns` distinct cowns, spawned alone (`single` when exactly one
    /// cown) or in a batch.
    pub(crate) fn new(cowns: usize, alone: bool) -> Gate {
        let pending = if alone && cowns == 1 {
            SINGLE
        } else {
            u32::try_from(cowns + 1)
                .ok()
                .filter(|&n| n != SINGLE)
                .expect("too many cowns in one behaviour")
        };
        Gate {
            pending: AtomicU32::new(pending),
        }
    }

    /// The gate's word, for its behaviour's own use once the behaviour is runnable: the gate is
    /// then spent (no grant is left to count) and the protocol never reads it again.
    pub(crate) fn spent(&self) -> &AtomicU32 {
        &self.pending
    }

    /// Spends a counting gate without counting: for a behaviour granted every cown during its own
    /// enqueue, which its spawner makes runnable at once (no other thread holds a grant to count).
    /// A spent gate holds 0 (or [`SINGLE`]), which its behaviour tells apart from the states it
    /// later keeps there (see [`Gate::spent`]).
    #[inline]
    pub(crate) fn spend(&self) {
        // Relaxed: nobody else reads the gate of a behaviour that waits for no grant; the
        // scheduling that follows publishes the store to the thread that runs it.
        self.pending.store(0, Ordering::Relaxed);
    }

    /// Whether this gate skips counting.
    #[inline(always)]
    pub(crate) fn is_single(&self) -> bool {
        // Relaxed: a single gate never changes, and a counting one never holds `SINGLE`.
        self.pending.load(Ordering::Relaxed) == SINGLE
    }
}

/// One request of a behaviour for one cown. 8-aligned: a successor's status holds its address.
#[repr(C, align(8))]
pub(crate) struct Slot {
    /// [`WAIT`], [`READY`], [`READ_AVAILABLE`], [`CHAIN_CLOSED`] (as addresses without provenance,
    /// never dereferenced) or the successor slot.
    status: AtomicPtr<Slot>,
    /// The cown's queue, tagged with `READ_TAG` and `DUP_TAG`.
    cown: *const Queue,
    /// The behaviour this request belongs to (dangling for a promise's blocker, which is never
    /// granted through the graph).
    gate: NonNull<Gate>,
}

/// A status value as a pointer without provenance.
#[inline(always)]
fn status_ptr(status: usize) -> *mut Slot {
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
    fn wait_enqueued(&self) -> *mut Slot {
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
    fn wait_successor(&self) -> *mut Slot {
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
    fn gate(&self) -> NonNull<Gate> {
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

/// Makes `gate`'s behaviour `n` grants closer to running; calls `runnable` if that was the last.
///
/// # Safety
/// `gate` is live and still waits for at least `n` grants.
// Always inlined: every grant of every behaviour goes through it (in a release, the compiler left
// it a call, which callgrind measured at about 5 instructions more per behaviour on a chain of
// single-cown `when`s).
#[inline(always)]
pub(crate) unsafe fn resolve(
    gate: NonNull<Gate>,
    n: u32,
    runnable: &mut impl FnMut(NonNull<Gate>),
) {
    // SAFETY: the caller's contract; the gate cannot be freed before its last grant.
    let g = unsafe { gate.as_ref() };
    // The single-cown case first, by itself (a message's path: loading the count once for both
    // checks let the compiler test the count first, 4 to 6 instructions more per message on
    // Savina's count, measured with callgrind).
    if g.is_single() {
        runnable(gate);
        return;
    }
    // SAFETY: the caller's contract; not a single gate.
    unsafe { resolve_counting(gate, n, runnable) }
}

/// [`resolve`] for a gate its caller knows to count (a behaviour over several cowns, or one of a
/// batch): the spawner's hold of a multi-cown spawn, which skips the check for a single gate.
///
/// # Safety
/// As for [`resolve`], and the gate is not single.
#[inline(always)]
pub(crate) unsafe fn resolve_counting(
    gate: NonNull<Gate>,
    n: u32,
    runnable: &mut impl FnMut(NonNull<Gate>),
) {
    // SAFETY: the caller's contract; the gate cannot be freed before its last grant.
    let g = unsafe { gate.as_ref() };
    debug_assert!(!g.is_single(), "a single gate does not count");
    // Acquire: if these are the last grants (below), the other grants' release decrements happen
    // before the behaviour runs.
    let pending = g.pending.load(Ordering::Acquire);
    if pending == n {
        // These are the last grants: every other one is counted already, so nobody else writes
        // the gate any more and no atomic read-modify-write is needed (the second grant of a
        // two-cown behaviour, Savina's banking transfers: one locked instruction less each). The
        // load above read the last decrement, so it synchronises with every earlier one (they
        // form one release sequence). Spent, as `Gate::spend` leaves it (its behaviour keeps
        // other states there later); relaxed, published by the scheduling that follows.
        g.pending.store(0, Ordering::Relaxed);
        runnable(gate);
        return;
    }
    // Release: publishes this thread's protocol writes to whoever takes the count to zero; that
    // thread's acquire fence pairs with every earlier decrement (they form one release sequence).
    if g.pending.fetch_sub(n, Ordering::Release) == n {
        fence(Ordering::Acquire);
        runnable(gate);
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
unsafe fn drop_read(queue_ptr: NonNull<Queue>, runnable: &mut impl FnMut(NonNull<Gate>)) {
    // SAFETY: a counted reader keeps the cown alive until it leaves the count.
    let queue = unsafe { queue_ptr.as_ref() };
    // AcqRel: release our reads to the writer that will be granted (or to whoever frees the
    // cown); acquire `next_writer`, which the writer published with its release CAS setting
    // WRITER_WAITING, or the history of the last handle's release that set ORPHAN_READERS.
    let prev = queue.read_count.fetch_sub(ONE_READER, Ordering::AcqRel);
    if prev == ONE_READER | WRITER_WAITING {
        let writer = queue.next_writer.load(Ordering::Relaxed);
        // Relaxed: no reader can join before the writer (it sits in the queue ahead of any later
        // request), and the writer runs only after `resolve`, which releases this.
        queue
            .read_count
            .fetch_and(!WRITER_WAITING, Ordering::Relaxed);
        // SAFETY: a waiting writer's slot is live until it is granted and has run.
        let gate = unsafe { (*writer).gate() };
        // SAFETY: the writer's behaviour waits for this grant.
        unsafe { resolve(gate, 1, runnable) };
    } else if prev == ONE_READER | ORPHAN_READERS {
        let free = queue.free;
        // SAFETY: the last handle is gone, the queue is empty for good, and we were the last
        // reader: nobody else can reach the cown.
        unsafe { free(queue_ptr) };
    }
}

/// Links `slot` behind `prev`, a slot of another behaviour, or claims the cown if `prev` is a
/// granted reader. A lone writer becomes `READY` as soon as `prev` has finished enqueueing (see
/// [`enqueue_single`]).
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

/// Claims a cown for a request at the front of the read phase (head of the queue, or behind a
/// granted reader).
#[inline]
fn claim(queue: &Queue, slot: NonNull<Slot>, read: bool) -> Grant {
    if read {
        add_read(queue);
        Grant::Read
    } else if try_write(queue, slot) {
        Grant::Write
    } else {
        Grant::No
    }
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
/// `slot` and its cown are live, the slot is not enqueued yet, its gate is `single`, and the caller
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
/// own status while it is `WAIT`). Measured with callgrind on Savina's banking, about 160
/// instructions less per two-cown spawn than through `enqueue_batch`.
/// `writers` says that every request is a write request (a constant where this is inlined): the
/// checks for a reader then fold away.
///
/// # Safety
/// The slots and their cowns are live, not enqueued yet, on pairwise distinct cowns sorted by id;
/// their gate is not `single` and counts the spawner's hold; at most [`MAX_DISTINCT`] requests; and the caller
/// keeps a reference to each cown until this returns; every request is a write request if
/// `writers`.
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
/// The slots and their cowns are live, not enqueued yet, their gates are not `single` and count
/// the spawner's hold, and the caller keeps a reference to each cown until this returns.
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

/// Releases a request of a behaviour that has completed (or was cancelled): passes the cown on to
/// the successor, or leaves the queue.
///
/// # Safety
/// The slot was enqueued and granted, its behaviour has finished with the cown, and the slot is not
/// used again after this (its memory may be freed once all slots are released).
// Always inlined: the release of every behaviour; left to itself the compiler calls it, which
// callgrind measures at 14 instructions more per behaviour on a chain of single-cown `when`s.
#[inline(always)]
pub(crate) unsafe fn release(slot: NonNull<Slot>, runnable: &mut impl FnMut(NonNull<Gate>)) {
    // SAFETY: the caller's contract.
    if unsafe { slot.as_ref() }.is_dup() {
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
    runnable: &mut impl FnMut(NonNull<Gate>),
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
pub(crate) unsafe fn release_writer(slot: NonNull<Slot>, runnable: &mut impl FnMut(NonNull<Gate>)) {
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
unsafe fn release_as(slot: NonNull<Slot>, read: bool, runnable: &mut impl FnMut(NonNull<Gate>)) {
    // SAFETY: the caller's contract.
    let s = unsafe { slot.as_ref() };
    debug_assert!(!s.is_dup(), "a duplicate request is never released");
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
        unsafe { resolve(n.gate(), 1, runnable) };
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
    runnable: &mut impl FnMut(NonNull<Gate>),
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

/// The grant cascade: grants the run of readers that starts at `first`, marks the last of them
/// `READ_AVAILABLE`, and hands a writer that follows them to [`try_write`].
///
/// # Safety
/// `first` is a reader slot linked behind a writer that has just completed.
unsafe fn grant_readers(
    queue: &Queue,
    first: NonNull<Slot>,
    runnable: &mut impl FnMut(NonNull<Gate>),
) {
    add_read(queue);
    let mut current = first;
    loop {
        // SAFETY: `current` is granted but not yet resolved, so its behaviour cannot have run.
        let c = unsafe { current.as_ref() };
        let gate = c.gate();
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
                    unsafe { resolve(gate, 1, runnable) };
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
            unsafe { resolve(gate, 1, runnable) };
            current = next;
        } else {
            let writer = n.gate();
            // SAFETY: as above.
            unsafe { resolve(gate, 1, runnable) };
            if try_write(queue, next) {
                // SAFETY: the writer waits for this grant.
                unsafe { resolve(writer, 1, runnable) };
            }
            return;
        }
    }
}

/// Enqueues a promise's blocker: a writer request owned by the promise itself, at the head of a
/// fresh queue, so that every behaviour naming the promise waits until it is released.
///
/// # Safety
/// `slot` (with a dangling gate) and its cown are live, and the queue has never been used.
pub(crate) unsafe fn enqueue_blocker(slot: NonNull<Slot>) {
    // SAFETY: the caller's contract; a fresh queue grants its first writer at once.
    let granted = unsafe { enqueue_single(slot) };
    debug_assert!(granted);
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
