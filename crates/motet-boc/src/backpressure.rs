//! Backpressure: an opt-in bound on how many behaviours may be queued on a cown.
//!
//! A cown made with [`Cown::bounded`](crate::Cown::bounded) counts the behaviours queued on it
//! (spawned and not yet completed, the running one included): its *pending* count. When a `when`
//! names such a cown while that count is at or above the bound (the cown is *full*), the spawner
//! is slowed down. In no case is a behaviour dropped, reordered, or enqueued late: the spawn is
//! always enqueued at once, and the ordering guarantees are untouched. What happens depends on who
//! spawns; see the crate docs (section *Backpressure*) for the user-facing summary.
//!
//! # Threads outside the runtime
//!
//! The main thread, or a thread of its own (not a worker), *blocks* in `when`, before enqueueing,
//! until the count is below the bound, and counts its spawn only if that keeps the count within
//! the bound (one compare-and-swap): threads never take the count past the bound. A thread holds
//! no cown (cowns are only held by running behaviours, and behaviours run on workers), so the
//! workers drain the queue without it, unless the queue waits for something outside the runtime
//! (a [`Deferred`](crate::Deferred) that this very thread would resolve later). That takes a
//! behaviour queued on the cown that names something else too: the cown is then *entangled*
//! (below), and a blocked thread stops waiting, and enqueues anyway, once the cown is entangled
//! and the runtime quiescent. Not on quiescence alone: a runtime with nothing to run may be
//! waiting for another thread that has enqueued a behaviour granted at once and not yet
//! scheduled it. On a deterministic runtime the blocked thread drives the runtime meanwhile, and
//! stops waiting when no work is left.
//!
//! # Behaviours: deferred releases
//!
//! A behaviour never blocks its worker. What is *deferred* is the release of the producing
//! behaviour's own cowns, so that its next behaviours (the rest of a producer chain) wait. A
//! behaviour whose closure spawned onto a full bounded cown `c` that it does not hold itself is
//! *deferred on `c`* when its closure returns: it keeps its cowns, and its runnable is *parked* on
//! `c` (not polled: it costs no worker time), until `c` is below its bound. Then the release that
//! took `c` below the bound wakes every release parked on it, and each lets its cowns go.
//!
//! Holding a producer's cowns deadlocks if `c`'s queue waits for them, directly (a behaviour
//! queued on `c` names one of them) or through other cowns. So a deferred behaviour keeps its
//! cowns only while `c` is sure to drain without them, which this module decides from what it
//! knows for sure, with no clock and no guess about progress:
//!
//! - `c` is *entangled* while a behaviour queued on it names another cown too (it may wait for
//!   that cown, and that cown for the producer), or while a behaviour holding it blocks in
//!   [`Promise::wait`](crate::Promise::wait) (it may wait for anything). A behaviour spawned
//!   alone over `c` (`when(&c, ..)`, `when(c.read(), ..)`) waits for nothing but `c`: once
//!   granted, it runs and completes, or is deferred in turn. Which behaviours entangle is read
//!   from their requests' tags, so that a release needs nothing else: every behaviour that counts
//!   its grants does, which includes a dynamic set or a batch member naming `c` alone.
//! - A *deferred holder* of a bounded cown `b` is a deferred behaviour that holds `b`: `b` then
//!   drains only once that behaviour's own target drains. These are the edges of the *deferral
//!   graph*, from each bounded cown to the targets of its deferred holders.
//! - `c` *drains* if no cown reachable from it in the deferral graph (itself included) is
//!   entangled, and no cycle is reachable from it. Every path from `c` then ends at a bounded
//!   cown whose holders are behaviours that name it alone and are not deferred: they run, so that
//!   cown drains, its deferred holders are let go, and so on back to `c`.
//!
//! A behaviour deferred on `c` is parked only if `c` is full and drains; otherwise its release
//! happens at once. Since a deferral adds its edges before it looks, and every deferral and every
//! look happens under one lock ([`Deferrals`]), the last deferral to close a cycle sees it and
//! lets go. After it is parked, `c` stops draining in only two ways, and both wake what is parked
//! where it matters:
//!
//! - a cown on the path becomes entangled: the spawn (or the blocking holder) that entangles it
//!   wakes the releases parked on it; every cown on a path other than `c` itself is the target of
//!   a deferred holder further up the path, which is parked there, is woken and lets go;
//! - a new deferred holder adds an edge below a path: that deferral looks first, and parks only
//!   if its own target drains (so the path still does).
//!
//! A spawn counts itself and finds out whether the cown was full in one atomic step, so of
//! several spawns racing at one below the bound, one fills the cown and the others find it full.
//! The pending count therefore stays within the bound plus, for each behaviour held back, what it
//! spawned onto the cown in its closure (the check is made per spawn, and a spawn is never
//! refused, but a behaviour is held back only once its closure returns): a producer chain has one
//! behaviour held at a time. That holds while the cown is not entangled; an entangled cown holds
//! no producer back (as Verona's backpressure does not mute a cown that a message to an
//! overloaded cown names). A behaviour that spawns onto a bounded cown it holds itself is never
//! deferred: it is that cown's own backlog, and holding it would stop the drain.
//!
//! # Races
//!
//! A release parks, then checks that `c` is still full and not entangled; a release of `c` counts
//! its completion, then checks for parked releases; an entangling spawn counts, then checks for
//! parked releases. The counts and the checks are sequentially consistent, so of a park and a
//! release (or an entanglement) racing, at least one sees the other: a parked release is never
//! left behind a drained or entangled cown. A release that found the cown below its bound takes
//! what is parked under the lock that parks, after checking again: what it saw may have been
//! woken by another release meanwhile, and a new producer behaviour parked on a cown full again.
//! The loom models `loom_deferral_*` check the first two races, the unit tests the graph.
//!
//! # Other code on a worker
//!
//! An actor's handler or a process is neither blocked nor deferred: its spawn is enqueued at once
//! (it can test [`Cown::pending`](crate::Cown::pending) itself, or hand the spawn to a behaviour).

#[cfg(all(test, loom))]
mod loom_models;
#[cfg(all(test, not(loom)))]
mod tests;

use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::time::Duration;

use motet_runtime::Handle;

use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};

/// How long a blocked thread sleeps between checks for quiescence on a thread pool (it is woken
/// at once when the queue drains below the bound).
const QUIESCENCE_CHECK: Duration = Duration::from_millis(10);

/// The counters of a bounded cown.
///
/// # Memory ordering
///
/// Two handshakes must not lose a wake-up: a deferred release parks (`parked` up), then checks
/// `pending` and `entangled`; a release counts itself (`pending` down), and an entangling spawn
/// (`entangled` up), then check `parked`. Each side writes one word and reads the other's, the
/// pattern that needs sequential consistency; here, the check after a park reads `pending` and
/// `entangled` with a read-modify-write that adds nothing, and every other write to those words is
/// a read-modify-write too. An RMW reads the last value in its word's modification order, so the
/// check either sees the racing release (or entanglement), or comes before it in that order: then
/// the racing RMW (acquire) reads from the release sequence of the check (release), and the park,
/// sequenced before the check, happens before the racing side's load of `parked`, which sees it.
/// (The same with `SeqCst` loads holds in the C++ model too, but loom checks `SeqCst` accesses as
/// acquire and release only, and so would not check the handshake.)
pub(crate) struct Bound {
    bound: usize,
    /// Behaviours queued on the cown: counted by their spawn before they are enqueued, and by
    /// their release before the cown is handed on. Written by read-modify-writes only.
    pending: AtomicUsize,
    /// Behaviours queued on the cown that count their grants (they name other cowns too, see the
    /// module docs), and holders of the cown blocked in `Promise::wait`: while not zero, the cown
    /// may wait for anything.
    /// Written by read-modify-writes only.
    entangled: AtomicUsize,
    /// Deferred releases parked on the cown (their list is in [`Deferrals`]).
    parked: AtomicUsize,
    /// Threads blocked in `wait_below`.
    waiters: AtomicUsize,
    lock: std::sync::Mutex<()>,
    cv: std::sync::Condvar,
}

impl Bound {
    pub(crate) fn new(bound: usize) -> Bound {
        Bound {
            bound,
            pending: AtomicUsize::new(0),
            entangled: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            waiters: AtomicUsize::new(0),
            lock: std::sync::Mutex::new(()),
            cv: std::sync::Condvar::new(),
        }
    }

    /// Behaviours queued now (a reading for users: it may be stale by the time it is used).
    pub(crate) fn pending(&self) -> usize {
        // Relaxed: a plain reading, which orders nothing.
        self.pending.load(Ordering::Relaxed)
    }

    /// Whether the cown is full, read as a handshake (see [`Bound`]'s memory ordering).
    pub(crate) fn is_full(&self) -> bool {
        // AcqRel read-modify-write that adds nothing: reads the last count (see above).
        self.pending.fetch_add(0, Ordering::AcqRel) >= self.bound
    }

    /// Whether the cown may wait for something other than its own holders (see the module docs),
    /// read as a handshake (see [`Bound`]'s memory ordering).
    pub(crate) fn is_entangled(&self) -> bool {
        // AcqRel read-modify-write that adds nothing: reads the last count (see above).
        self.entangled.fetch_add(0, Ordering::AcqRel) != 0
    }

    /// Counts a behaviour about to be enqueued on the cown; returns whether the cown was full.
    ///
    /// The count and the check are one step: of several spawns racing at one below the bound,
    /// one finds the cown below the bound and every other one finds it full.
    pub(crate) fn enqueue(&self) -> bool {
        // AcqRel: a write to the count, in the release sequences of the checks after parks.
        self.pending.fetch_add(1, Ordering::AcqRel) >= self.bound
    }

    /// Counts a behaviour about to be enqueued by a thread outside the runtime, blocking the
    /// thread first while the cown is full: a thread never takes the count past the bound, unless
    /// the runtime cannot drain it any more (see the module docs).
    pub(crate) fn enqueue_blocking(&self, runtime: &Handle) {
        // Relaxed: a first guess; the compare-and-swap below decides.
        let mut now = self.pending.load(Ordering::Relaxed);
        loop {
            if now >= self.bound {
                if !self.wait_below(runtime) {
                    // Nothing can drain the cown: enqueue anyway.
                    self.enqueue();
                    return;
                }
                now = self.pending.load(Ordering::Relaxed);
                continue;
            }
            // AcqRel, as `enqueue`.
            match self.pending.compare_exchange_weak(
                now,
                now + 1,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(actual) => now = actual,
            }
        }
    }

    /// Counts one more reason for the cown to be entangled; returns whether releases are parked
    /// on it (the caller then wakes them: they may be what the new behaviour waits for).
    pub(crate) fn entangle(&self) -> bool {
        // AcqRel, then acquire: the racing side of the handshake with a park (see `Bound`).
        self.entangled.fetch_add(1, Ordering::AcqRel);
        self.parked.load(Ordering::Acquire) != 0
    }

    /// Takes back a reason counted by [`Bound::entangle`].
    pub(crate) fn disentangle(&self) {
        // AcqRel: a write to the count, in the release sequences of the checks after parks; a
        // look that misses the decrement only lets go more.
        let before = self.entangled.fetch_sub(1, Ordering::AcqRel);
        debug_assert_ne!(before, 0, "a bounded cown disentangled more than entangled");
    }

    /// Counts a behaviour that released the cown, and wakes blocked threads once it is below the
    /// bound. Returns whether releases parked on the cown must be woken (it went below the bound).
    pub(crate) fn on_release(&self) -> bool {
        // AcqRel, then acquire: the racing side of the handshake with a park (see `Bound`).
        let before = self.pending.fetch_sub(1, Ordering::AcqRel);
        debug_assert_ne!(before, 0, "a bounded cown released more than enqueued");
        let below = before <= self.bound;
        // Acquire: the same handshake with a thread that counts itself in `wait_below` and then
        // checks the count (a wake-up lost otherwise would cost it one `QUIESCENCE_CHECK`).
        if below && self.waiters.load(Ordering::Acquire) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.cv.notify_all();
        }
        below && self.parked.load(Ordering::Acquire) != 0
    }

    /// Counts a release parked on the cown (see [`Deferrals::defer`]), before the checks of the
    /// handshake.
    fn park(&self) {
        // AcqRel: sequenced before the checks, whose release sequences carry it to the racing
        // side (see `Bound`).
        self.parked.fetch_add(1, Ordering::AcqRel);
    }

    /// Takes back `n` parks (woken, or refused after the handshake).
    fn unpark(&self, n: usize) {
        // AcqRel: as `park`.
        self.parked.fetch_sub(n, Ordering::AcqRel);
    }

    /// Blocks the calling thread (outside the runtime) until the cown is below its bound, or it
    /// cannot drain without something outside the runtime; returns whether it is below the bound.
    ///
    /// A cown that is not entangled drains by itself: every behaviour queued on it names it
    /// alone, so its head runs (or is deferred on a cown that drains, see the module docs). An
    /// entangled one may wait for anything, such as a deferred value this very thread would
    /// resolve after its spawn: once the runtime is quiescent, the thread stops waiting. Only
    /// then: a runtime with nothing to run may just be waiting for another thread that is between
    /// the enqueue of a behaviour granted at once and its scheduling.
    fn wait_below(&self, runtime: &Handle) -> bool {
        if runtime.seed().is_some() {
            // Deterministic: run the runtime here until the queue drains or nothing is left (then
            // nothing else can drain it).
            return runtime.drive_until(|| !self.is_full());
        }
        // AcqRel: sequenced before the checks of the count (see `on_release`).
        self.waiters.fetch_add(1, Ordering::AcqRel);
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let below = loop {
            if !self.is_full() {
                break true;
            }
            if self.is_entangled() && runtime.is_quiescent() {
                break false;
            }
            guard = self
                .cv
                .wait_timeout(guard, QUIESCENCE_CHECK)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        };
        drop(guard);
        // Relaxed: a notify that finds a thread gone is harmless.
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        below
    }
}

/// A bounded cown in the deferral graph: the address of its [`Bound`], which the graph reads only
/// while the cown is known to be alive (see [`Node`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct BoundPtr(NonNull<Bound>);

// SAFETY: only a `&Bound` is ever made of it, and `Bound` is `Sync` (atomics and a lock).
unsafe impl Send for BoundPtr {}

impl BoundPtr {
    fn of(bound: &Bound) -> BoundPtr {
        BoundPtr(NonNull::from(bound))
    }

    /// The bound.
    ///
    /// # Safety
    /// The cown is alive (see [`Node`] for why the graph's are).
    unsafe fn get<'a>(self) -> &'a Bound {
        // SAFETY: the caller's contract.
        unsafe { self.0.as_ref() }
    }
}

/// What the deferral graph knows of one bounded cown. A node exists only while it has an edge or
/// a parked release, and both keep the cown alive: an edge's deferred holder holds the cown (and
/// a reference to its target, alive as long as the edge), and a parked release holds a reference
/// to the cown it is parked on.
struct Node<T> {
    /// The targets of the cown's deferred holders, one per holder (a multiset).
    edges: Vec<BoundPtr>,
    /// The releases parked on the cown.
    parked: Vec<T>,
}

/// The deferral graph and the releases parked in it (see the module docs), under one lock. `T`
/// is a parked release (a behaviour's deferred release task; a token in the loom models).
pub(crate) struct Deferrals<T> {
    graph: Mutex<BTreeMap<BoundPtr, Node<T>>>,
}

impl<T> Deferrals<T> {
    pub(crate) fn new() -> Deferrals<T> {
        Deferrals {
            graph: Mutex::new(BTreeMap::new()),
        }
    }

    /// A behaviour holding the bounded cowns `held` (its own bounded cowns, none of them
    /// `target`) spawned onto `target` while it was full, and its closure has returned: parks the
    /// release that `park` makes and returns `Ok(())` if `target` is full and drains, so that the
    /// behaviour keeps its cowns until [`Deferrals::take_parked`] hands the release back. Otherwise
    /// returns `Err` with the release if `park` was called, and the behaviour lets its cowns go
    /// now (its edges are already forgotten).
    pub(crate) fn defer<'a>(
        &self,
        target: &Bound,
        held: impl Iterator<Item = &'a Bound> + Clone,
        park: impl FnOnce() -> T,
    ) -> Result<(), Option<T>> {
        let mut graph = lock(&self.graph);
        // The edges first: a look from `target` that comes back to a cown held here is a cycle.
        for b in held.clone() {
            node(&mut graph, b).edges.push(BoundPtr::of(target));
        }
        let mut made = None;
        if target.is_full() && drains(&graph, target) {
            let parked = &mut node(&mut graph, target).parked;
            parked.push(park());
            // Of this park and a racing release (or entanglement) of `target`, at least one
            // sees the other (see `Bound`'s memory ordering).
            target.park();
            if target.is_full() && !target.is_entangled() {
                return Ok(());
            }
            // Drained or entangled meanwhile: the racing release or spawn may have looked before
            // the count above; the release goes at once instead.
            target.unpark(1);
            made = parked.pop();
            forget_node_if_empty(&mut graph, target);
        }
        forget_edges(&mut graph, target, held);
        Err(made)
    }

    /// Forgets the edges of a deferred behaviour that holds `held` and was deferred on `target`,
    /// before it lets its cowns go.
    pub(crate) fn released<'a>(
        &self,
        target: &Bound,
        held: impl Iterator<Item = &'a Bound> + Clone,
    ) {
        if held.clone().next().is_none() {
            return;
        }
        forget_edges(&mut lock(&self.graph), target, held);
    }

    /// Takes every release parked on `bound`, for the caller to let go: after a release that
    /// took it below its bound (`drained`), only if it is still below it; after an entanglement,
    /// in any case.
    ///
    /// A release looks for parked releases after its decrement, and takes them later: meanwhile
    /// another release may have woken them, their producer spawned again, and a new release been
    /// parked on a full cown, which a stale wake would let go. So the check is made again here,
    /// under the lock that parks; if the cown is full again, a later release takes it below the
    /// bound and wakes what is parked then.
    pub(crate) fn take_parked(&self, bound: &Bound, drained: bool) -> Vec<T> {
        let mut graph = lock(&self.graph);
        if drained && bound.is_full() {
            return Vec::new();
        }
        let Some(node) = graph.get_mut(&BoundPtr::of(bound)) else {
            return Vec::new();
        };
        let parked = std::mem::take(&mut node.parked);
        bound.unpark(parked.len());
        forget_node_if_empty(&mut graph, bound);
        parked
    }
}

/// The node of `bound`, made if it has none.
fn node<'g, T>(graph: &'g mut BTreeMap<BoundPtr, Node<T>>, bound: &Bound) -> &'g mut Node<T> {
    graph.entry(BoundPtr::of(bound)).or_insert_with(|| Node {
        edges: Vec::new(),
        parked: Vec::new(),
    })
}

/// Removes the node of `bound` if it has no edge and no parked release left.
fn forget_node_if_empty<T>(graph: &mut BTreeMap<BoundPtr, Node<T>>, bound: &Bound) {
    let key = BoundPtr::of(bound);
    if graph
        .get(&key)
        .is_some_and(|n| n.edges.is_empty() && n.parked.is_empty())
    {
        graph.remove(&key);
    }
}

/// Removes one edge to `target` from each of the `held` cowns.
fn forget_edges<'a, T>(
    graph: &mut BTreeMap<BoundPtr, Node<T>>,
    target: &Bound,
    held: impl Iterator<Item = &'a Bound>,
) {
    let to = BoundPtr::of(target);
    for b in held {
        let Some(node) = graph.get_mut(&BoundPtr::of(b)) else {
            debug_assert!(false, "a deferred holder's edge is in the graph");
            continue;
        };
        if let Some(i) = node.edges.iter().position(|&e| e == to) {
            node.edges.swap_remove(i);
        }
        forget_node_if_empty(graph, b);
    }
}

/// Whether `from` drains: no cown reachable from it in the deferral graph is entangled, and no
/// cycle is reachable from it (see the module docs).
fn drains<T>(graph: &BTreeMap<BoundPtr, Node<T>>, from: &Bound) -> bool {
    let (mut path, mut good) = (Vec::new(), Vec::new());
    visit(graph, BoundPtr::of(from), &mut path, &mut good)
}

/// A depth-first look from `at`: `path` holds the cowns on the way there (a cown met again on it
/// closes a cycle), `good` the cowns already found to drain.
fn visit<T>(
    graph: &BTreeMap<BoundPtr, Node<T>>,
    at: BoundPtr,
    path: &mut Vec<BoundPtr>,
    good: &mut Vec<BoundPtr>,
) -> bool {
    if good.contains(&at) {
        return true;
    }
    // SAFETY: `at` is the cown a look started from (alive: the deferring behaviour holds a
    // reference to it) or the target of an edge (alive while the edge is, see `Node`).
    if path.contains(&at) || unsafe { at.get() }.is_entangled() {
        return false;
    }
    if let Some(node) = graph.get(&at) {
        path.push(at);
        for &next in &node.edges {
            if !visit(graph, next, path, good) {
                return false;
            }
        }
        path.pop();
    }
    good.push(at);
    true
}
