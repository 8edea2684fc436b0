//! Test doubles for the protocol, shared by its unit tests and its loom models: cowns that check
//! exclusion and record the order of the behaviours that ran on them, and behaviours that run (on
//! whichever thread made them runnable) by checking and recording, then releasing their slots.

use std::ptr::NonNull;

use super::{
    enqueue_batch, enqueue_distinct, enqueue_single, release, resolve_counting, Gate, Grant,
    LaterSlot, Queue, Slot,
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

/// A behaviour over some cowns, laid out as the protocol expects: its first request at offset 0
/// (so the first request's address is the behaviour's), the gate right after it, and the later
/// requests pointing back to the first.
#[repr(C)]
pub(crate) struct TestBehaviour {
    first: Slot,
    gate: Gate,
    later: Vec<LaterSlot>,
    /// Per slot: the position of this behaviour in the cown's run order.
    positions: Vec<AtomicUsize>,
    ran: AtomicUsize,
    /// Set when the behaviour runs while some other one runs on a shared cown in read mode too.
    pub(crate) overlapped: AtomicBool,
}

impl TestBehaviour {
    /// A behaviour over `cowns` (`true` = read-only), to be spawned alone or in a batch.
    pub(crate) fn new(cowns: &[(&TestCown, bool)], alone: bool) -> Box<TestBehaviour> {
        let (&(cown, read), rest) = cowns.split_first().expect("a behaviour names a cown");
        let single = alone && rest.is_empty();
        let mut b = Box::<TestBehaviour>::new_uninit();
        // The later requests point to the first through the address of the whole behaviour, which
        // reaches its gate too.
        let first = NonNull::from(&mut *b).cast::<Slot>();
        let later = rest
            .iter()
            .map(|&(c, r)| LaterSlot::new(Slot::later(c.queue(), r), first))
            .collect();
        b.write(TestBehaviour {
            first: Slot::first(cown.queue(), read, single),
            gate: Gate::new(cowns.len()),
            later,
            positions: cowns.iter().map(|_| AtomicUsize::new(usize::MAX)).collect(),
            ran: AtomicUsize::new(0),
            overlapped: AtomicBool::new(false),
        });
        // SAFETY: written just above.
        unsafe { b.assume_init() }
    }

    /// Where this behaviour ran in the order of its `i`-th cown.
    pub(crate) fn position(&self, i: usize) -> usize {
        self.positions[i].load(SeqCst)
    }

    /// Its request for its `i`-th cown.
    pub(crate) fn slot(&self, i: usize) -> &Slot {
        match i {
            0 => &self.first,
            _ => self.later[i - 1].slot(),
        }
    }

    /// A pointer to its request for its `i`-th cown, as the protocol takes it.
    fn slot_ptr(&self, i: usize) -> NonNull<Slot> {
        match i {
            0 => self.first_ptr(),
            _ => self.later[i - 1].as_ptr(),
        }
    }

    /// Its first request, through the address of the whole behaviour (see [`Gate::of`]).
    fn first_ptr(&self) -> NonNull<Slot> {
        NonNull::from(self).cast()
    }

    fn len(&self) -> usize {
        1 + self.later.len()
    }

    /// How often it ran (must end at 1).
    pub(crate) fn runs(&self) -> usize {
        self.ran.load(SeqCst)
    }

    fn cown(&self, i: usize) -> &TestCown {
        // SAFETY: test queues are the first field of a live `TestCown`.
        unsafe { self.slot(i).queue().cast::<TestCown>().as_ref() }
    }

    /// Runs the behaviour: checks and records exclusion, then releases its slots, collecting the
    /// behaviours that became runnable.
    fn run(&self, ready: &mut Vec<NonNull<Slot>>) {
        assert_eq!(self.ran.fetch_add(1, SeqCst), 0, "a behaviour ran twice");
        for i in 0..self.len() {
            let (slot, cown) = (self.slot(i), self.cown(i));
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
        for i in 0..self.len() {
            let (slot, cown) = (self.slot(i), self.cown(i));
            if slot.is_read() {
                cown.busy.fetch_sub(READING, SeqCst);
            } else {
                cown.busy.store(0, SeqCst);
            }
        }
        for i in 0..self.len() {
            // SAFETY: the behaviour ran, so each slot was granted; it is not used again.
            unsafe { release(self.slot_ptr(i), &mut |first| ready.push(first)) };
        }
    }
}

/// The behaviour whose first request is `first`.
///
/// # Safety
/// `first` is the first request of a live test behaviour.
unsafe fn behaviour<'a>(first: NonNull<Slot>) -> &'a TestBehaviour {
    // SAFETY: the caller's contract: the first request is at offset 0 of its test behaviour.
    unsafe { first.cast::<TestBehaviour>().as_ref() }
}

/// Runs one runnable behaviour and returns those its releases made runnable, without running them.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn run_one(first: NonNull<Slot>) -> Vec<NonNull<Slot>> {
    let mut ready = Vec::new();
    // SAFETY: the protocol hands out first requests of live test behaviours.
    unsafe { behaviour(first) }.run(&mut ready);
    ready
}

/// Whether `first` is the first request of `b`.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn is(first: NonNull<Slot>, b: &TestBehaviour) -> bool {
    std::ptr::eq(first.as_ptr().cast::<TestBehaviour>(), b)
}

/// Runs every runnable behaviour on this thread, including those their releases make runnable.
pub(crate) fn run_all(mut ready: Vec<NonNull<Slot>>) {
    while let Some(first) = ready.pop() {
        // SAFETY: the protocol hands out first requests of live test behaviours.
        unsafe { behaviour(first) }.run(&mut ready);
    }
}

/// Spawns `b` alone (single-cown fast path when it names one cown) and runs what became runnable.
pub(crate) fn spawn(b: &TestBehaviour) {
    run_all(spawn_deferred(std::slice::from_ref(&b)));
}

/// Spawns behaviours as one atomic batch (or alone if there is one behaviour) and returns the
/// behaviours that became runnable at once, without running them.
pub(crate) fn spawn_deferred(batch: &[&TestBehaviour]) -> Vec<NonNull<Slot>> {
    let mut ready = Vec::new();
    if let [b] = batch {
        if b.first.is_single() {
            // SAFETY: a fresh behaviour over a live cown.
            if unsafe { enqueue_single(b.first_ptr()) } {
                ready.push(b.first_ptr());
            }
            return ready;
        }
        // A lone behaviour over several cowns: the two-phase enqueue of distinct requests, as
        // `when` does it.
        let mut slots: Vec<(usize, NonNull<Slot>)> = (0..b.len())
            .map(|i| (b.cown(i).id, b.slot_ptr(i)))
            .collect();
        slots.sort_by_key(|&(cown, _)| cown);
        let slots: Vec<NonNull<Slot>> = slots.into_iter().map(|(_, s)| s).collect();
        // SAFETY: a fresh behaviour over live, distinct cowns (the tests name a cown once per
        // behaviour), sorted; it is not single.
        let granted = unsafe { enqueue_distinct(&slots, false) };
        // SAFETY: the spawner's hold plus the grants it obtained.
        unsafe { resolve_counting(b.first_ptr(), granted + 1, &mut |f| ready.push(f)) };
        return ready;
    }
    let mut requests: Vec<(usize, usize, NonNull<Slot>)> = Vec::new();
    for (owner, b) in batch.iter().enumerate() {
        for i in 0..b.len() {
            requests.push((b.cown(i).id, owner, b.slot_ptr(i)));
        }
    }
    requests.sort_by_key(|&(cown, owner, _)| (cown, owner));
    let slots: Vec<NonNull<Slot>> = requests.iter().map(|r| r.2).collect();
    let mut grants = vec![Grant::No; slots.len()];
    // SAFETY: fresh behaviours over live cowns, sorted, without duplicates (the tests name a cown
    // once per behaviour), none single.
    unsafe { enqueue_batch(&slots, &mut grants) };
    let mut counts = vec![1u32; batch.len()];
    for (r, g) in requests.iter().zip(&grants) {
        if *g != Grant::No {
            counts[r.1] += 1;
        }
    }
    for (b, n) in batch.iter().zip(counts) {
        // SAFETY: the spawner's hold plus the grants it obtained.
        unsafe { resolve_counting(b.first_ptr(), n, &mut |f| ready.push(f)) };
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

/// Behaviours made runnable on one thread and run on another (loom models).
#[cfg(loom)]
pub(crate) struct Ready(pub(crate) Vec<NonNull<Slot>>);

// SAFETY: the requests point into test behaviours, which are `Sync`.
#[cfg(loom)]
unsafe impl Send for Ready {}

#[cfg(loom)]
impl Ready {
    /// Runs the behaviours (and every behaviour they make runnable) on a new loom thread. Taking
    /// `self` moves the whole `Ready` into the thread, not its non-`Send` vector alone.
    pub(crate) fn run_on_a_thread(self) -> loom::thread::JoinHandle<()> {
        loom::thread::spawn(move || {
            let ready = self;
            run_all(ready.0)
        })
    }
}
