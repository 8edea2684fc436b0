//! Test doubles for the protocol, shared by its unit tests and its loom models: cowns that check
//! exclusion and record the order of the behaviours that ran on them, and behaviours that run (on
//! whichever thread made them runnable) by checking and recording, then releasing their slots.

use std::ptr::NonNull;

use super::{
    enqueue_batch, enqueue_distinct, enqueue_single, release, resolve, Gate, Grant, Queue, Slot,
};
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

/// Set in `TestCown::busy` while a writer runs.
const WRITING: usize = 1;
/// Added to `TestCown::busy` per running reader.
const READING: usize = 2;

/// A cown without data: its queue, a busy word checking exclusion, and a log position counter.
#[repr(C)]
pub(crate) struct TestCown {
    pub(crate) queue: Queue,
    freed: AtomicBool,
    busy: AtomicUsize,
    runs: AtomicUsize,
    /// The cown's place in the global order (creation order, so that loom replays are
    /// deterministic, which addresses are not).
    id: usize,
}

/// Creation counter for `TestCown::id` (std's atomic, not loom's: it is not part of the model).
static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe fn mark_freed(queue: NonNull<Queue>) {
    // SAFETY: every queue of the tests is the first field of a `TestCown` that outlives the test
    // (freeing is only recorded).
    let cown = unsafe { queue.cast::<TestCown>().as_ref() };
    assert!(!cown.freed.swap(true, SeqCst), "a cown was freed twice");
}

impl TestCown {
    /// A cown with one reference, held by the test.
    pub(crate) fn new() -> Box<TestCown> {
        Box::new(TestCown {
            queue: Queue::new(1, mark_freed),
            freed: AtomicBool::new(false),
            busy: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    pub(crate) fn queue(&self) -> NonNull<Queue> {
        NonNull::from(&self.queue)
    }

    /// Gives up the test's reference: the cown must then be idle and freed.
    pub(crate) fn drop_handle(&self) {
        assert!(self.queue.is_idle(), "a cown is still in use at the end");
        assert_eq!(self.queue.refs(), 1, "the protocol kept a reference");
        // SAFETY: the test's own reference.
        unsafe { Queue::release_ref(self.queue()) };
        assert!(self.freed.load(SeqCst), "the cown was not freed");
    }

    /// Gives up the test's reference while behaviours may still use the cown: the protocol then
    /// frees it after the last of them (checked with [`TestCown::is_freed`]).
    #[cfg_attr(not(loom), allow(dead_code))]
    pub(crate) fn drop_handle_in_use(&self) {
        // SAFETY: the test's own reference, not used again.
        unsafe { Queue::release_ref(self.queue()) };
    }

    /// Whether the protocol has freed the cown (at most once: freeing twice panics).
    #[cfg_attr(not(loom), allow(dead_code))]
    pub(crate) fn is_freed(&self) -> bool {
        self.freed.load(SeqCst)
    }

    /// How many behaviours ran on this cown.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn runs(&self) -> usize {
        self.runs.load(SeqCst)
    }
}

/// A behaviour over some cowns; `gate` first, so a gate pointer is a behaviour pointer.
#[repr(C)]
pub(crate) struct TestBehaviour {
    gate: Gate,
    slots: Vec<Slot>,
    /// Per slot: the position of this behaviour in the cown's run order.
    positions: Vec<AtomicUsize>,
    ran: AtomicUsize,
    /// Set when the behaviour runs while some other one runs on a shared cown in read mode too.
    pub(crate) overlapped: AtomicBool,
}

impl TestBehaviour {
    /// A behaviour over `cowns` (`true` = read-only), to be spawned alone or in a batch.
    pub(crate) fn new(cowns: &[(&TestCown, bool)], alone: bool) -> Box<TestBehaviour> {
        let mut b = Box::new(TestBehaviour {
            gate: Gate::new(cowns.len(), alone),
            slots: Vec::with_capacity(cowns.len()),
            positions: cowns.iter().map(|_| AtomicUsize::new(usize::MAX)).collect(),
            ran: AtomicUsize::new(0),
            overlapped: AtomicBool::new(false),
        });
        let gate = NonNull::from(&b.gate);
        for &(cown, read) in cowns {
            b.slots.push(Slot::new(cown.queue(), read, gate));
        }
        b
    }

    /// Where this behaviour ran in the order of its `i`-th cown.
    pub(crate) fn position(&self, i: usize) -> usize {
        self.positions[i].load(SeqCst)
    }

    /// Its request for its `i`-th cown (read by the unit tests, not by the loom models).
    #[cfg(not(loom))]
    pub(crate) fn slot(&self, i: usize) -> &Slot {
        &self.slots[i]
    }

    /// How often it ran (must end at 1).
    pub(crate) fn runs(&self) -> usize {
        self.ran.load(SeqCst)
    }

    fn cown(&self, i: usize) -> &TestCown {
        // SAFETY: test queues are the first field of a live `TestCown`.
        unsafe { self.slots[i].queue().cast::<TestCown>().as_ref() }
    }

    /// Runs the behaviour: checks and records exclusion, then releases its slots, collecting the
    /// behaviours that became runnable.
    fn run(&self, ready: &mut Vec<NonNull<Gate>>) {
        assert_eq!(self.ran.fetch_add(1, SeqCst), 0, "a behaviour ran twice");
        for (i, slot) in self.slots.iter().enumerate() {
            let cown = self.cown(i);
            if slot.is_read() {
                let before = cown.busy.fetch_add(READING, SeqCst);
                assert_eq!(before & WRITING, 0, "a reader ran beside a writer");
                if before != 0 {
                    self.overlapped.store(true, SeqCst);
                }
            } else {
                let before = cown.busy.swap(WRITING, SeqCst);
                assert_eq!(before, 0, "a writer ran beside another behaviour");
            }
            self.positions[i].store(cown.runs.fetch_add(1, SeqCst), SeqCst);
        }
        for (i, slot) in self.slots.iter().enumerate() {
            let cown = self.cown(i);
            if slot.is_read() {
                cown.busy.fetch_sub(READING, SeqCst);
            } else {
                cown.busy.store(0, SeqCst);
            }
        }
        for slot in &self.slots {
            // SAFETY: the behaviour ran, so each slot was granted; it is not used again.
            unsafe { release(NonNull::from(slot), &mut |g| ready.push(g)) };
        }
    }
}

/// Runs one runnable behaviour and returns those its releases made runnable, without running them.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn run_one(gate: std::ptr::NonNull<Gate>) -> Vec<NonNull<Gate>> {
    let mut ready = Vec::new();
    // SAFETY: gates are the first field of live test behaviours.
    unsafe { gate.cast::<TestBehaviour>().as_ref() }.run(&mut ready);
    ready
}

/// Whether `gate` belongs to `b`.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn is(gate: NonNull<Gate>, b: &TestBehaviour) -> bool {
    std::ptr::eq(gate.as_ptr().cast::<TestBehaviour>(), b)
}

/// Runs every runnable behaviour on this thread, including those their releases make runnable.
pub(crate) fn run_all(mut ready: Vec<NonNull<Gate>>) {
    while let Some(gate) = ready.pop() {
        // SAFETY: gates are the first field of live test behaviours.
        let b = unsafe { gate.cast::<TestBehaviour>().as_ref() };
        b.run(&mut ready);
    }
}

/// Spawns `b` alone (single-cown fast path when it names one cown) and runs what became runnable.
pub(crate) fn spawn(b: &TestBehaviour) {
    run_all(spawn_deferred(std::slice::from_ref(&b)));
}

/// Spawns behaviours as one atomic batch (or alone if there is one single-cown behaviour) and
/// returns the gates that became runnable at once, without running them.
pub(crate) fn spawn_deferred(batch: &[&TestBehaviour]) -> Vec<NonNull<Gate>> {
    let mut ready = Vec::new();
    if let [b] = batch {
        if b.gate.is_single() {
            // SAFETY: a fresh behaviour over a live cown.
            if unsafe { enqueue_single(NonNull::from(&b.slots[0])) } {
                ready.push(NonNull::from(&b.gate));
            }
            return ready;
        }
        // A lone behaviour over several cowns: the two-phase enqueue of distinct requests, as
        // `when` does it.
        let mut slots: Vec<(usize, NonNull<Slot>)> = Vec::new();
        for slot in &b.slots {
            // SAFETY: test queues are the first field of a live `TestCown`.
            let id = unsafe { slot.queue().cast::<TestCown>().as_ref() }.id;
            slots.push((id, NonNull::from(slot)));
        }
        slots.sort_by_key(|&(cown, _)| cown);
        let slots: Vec<NonNull<Slot>> = slots.into_iter().map(|(_, s)| s).collect();
        // SAFETY: a fresh behaviour over live, distinct cowns (the tests name a cown once per
        // behaviour), sorted; its gate is not single.
        let granted = unsafe { enqueue_distinct(&slots, false) };
        // SAFETY: the spawner's hold plus the grants it obtained.
        unsafe { resolve(NonNull::from(&b.gate), granted + 1, &mut |g| ready.push(g)) };
        return ready;
    }
    let mut requests: Vec<(usize, usize, NonNull<Slot>)> = Vec::new();
    for (owner, b) in batch.iter().enumerate() {
        for slot in &b.slots {
            // SAFETY: test queues are the first field of a live `TestCown`.
            let id = unsafe { slot.queue().cast::<TestCown>().as_ref() }.id;
            requests.push((id, owner, NonNull::from(slot)));
        }
    }
    requests.sort_by_key(|&(cown, owner, _)| (cown, owner));
    let slots: Vec<NonNull<Slot>> = requests.iter().map(|r| r.2).collect();
    let mut grants = vec![Grant::No; slots.len()];
    // SAFETY: fresh behaviours over live cowns, sorted, without duplicates (the tests name a cown
    // once per behaviour), gates not single.
    unsafe { enqueue_batch(&slots, &mut grants) };
    let mut counts = vec![1u32; batch.len()];
    for (r, g) in requests.iter().zip(&grants) {
        if *g != Grant::No {
            counts[r.1] += 1;
        }
    }
    for (b, n) in batch.iter().zip(counts) {
        // SAFETY: the spawner's hold plus the grants it obtained.
        unsafe { resolve(NonNull::from(&b.gate), n, &mut |g| ready.push(g)) };
    }
    ready
}

// SAFETY: the test doubles are shared between the threads of the loom models; their protocol
// fields are atomics, and their plain fields are written only before they are shared.
unsafe impl Send for TestCown {}
// SAFETY: as above.
unsafe impl Sync for TestCown {}
// SAFETY: as above.
unsafe impl Send for TestBehaviour {}
// SAFETY: as above.
unsafe impl Sync for TestBehaviour {}

/// Gates made runnable on one thread and run on another (loom models).
#[cfg(loom)]
pub(crate) struct Ready(pub(crate) Vec<NonNull<Gate>>);

// SAFETY: the gates point into test behaviours, which are `Sync`.
#[cfg(loom)]
unsafe impl Send for Ready {}

#[cfg(loom)]
impl Ready {
    /// Runs the gates (and every behaviour they make runnable) on a new loom thread. Taking
    /// `self` moves the whole `Ready` into the thread, not its non-`Send` vector alone.
    pub(crate) fn run_on_a_thread(self) -> loom::thread::JoinHandle<()> {
        loom::thread::spawn(move || {
            let ready = self;
            run_all(ready.0)
        })
    }
}
