//! Backpressure on spawns (see [`crate::backpressure`]): throttling a spawn onto a bounded cown,
//! and the deferred release of a behaviour that spawned onto a full one.
//!
//! A behaviour whose closure spawned onto a full bounded cown (that it does not hold itself) is
//! deferred on it when its closure returns ([`defer`]). The [`Deferrals`] graph decides: either
//! the behaviour lets its cowns go at once, or its runnable goes into a [`DeferredRelease`], a
//! small task of its own, which is *parked* on the bounded cown (not scheduled) until a release
//! of that cown takes it below its bound, or a spawn entangles it ([`wake`]). Once scheduled, the
//! task releases the behaviour's cowns and goes on with the chain that release starts, as the
//! behaviour's own step would have. The deferred behaviour's own kind never sees a deferral, so
//! its step needs no check for one; deferrals are rare (a producer outrunning a bounded cown), so
//! the task's allocation is paid only then.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::OnceLock;

use motet_runtime::task::{Erased, Running, Task, Turn};
use motet_runtime::{Handle, Runnable};

use crate::backpressure::{Bound, Deferrals};
use crate::cown::CownHeader;
use crate::protocol::{LaterSlot, Queue, Slot};

use super::block::{first_of, runtime_of, Kind};
use super::cancel::shutdown_with;
use super::current::{Current, CURRENT};
use super::handoff::schedule_ready;
use super::run;
use super::step::{finish, Step};

/// A deferred release parked in the graph: its task's runnable, and the runtime to schedule it on
/// (its behaviour's).
pub(super) struct Parked {
    task: Runnable<Erased>,
    runtime: Handle,
}

/// The deferral graph of every bounded cown of the process.
fn deferrals() -> &'static Deferrals<Parked> {
    static DEFERRALS: OnceLock<Deferrals<Parked>> = OnceLock::new();
    DEFERRALS.get_or_init(Deferrals::new)
}

/// Applies backpressure for a request on a bounded cown about to be enqueued (see
/// [`crate::backpressure`]), and counts it. `joint`: the behaviour counts its grants (it names
/// several cowns, or is spawned over a dynamic set or in a batch), so it entangles the cown until
/// it releases it. Whether a behaviour counts its grants is what its release reads back from the
/// request's tags ([`Slot::is_single`]); it is also what may wait for other cowns, with the
/// exception of a dynamic set or a batch member over this cown alone, which entangles it anyway.
#[cold]
pub(super) fn throttle(header: &CownHeader, bound: &Bound, joint: bool) {
    if joint && bound.entangle() {
        // The new behaviour may wait for what the releases parked on the cown hold.
        wake(bound, Wake::Entangled);
    }
    let running = CURRENT.with(Cell::get);
    let Some(first) = running.first else {
        if !header.runtime.on_worker() {
            // A thread outside the runtime: blocks while the cown is full.
            bound.enqueue_blocking(&header.runtime);
        } else {
            // An actor, a process: enqueued at once.
            bound.enqueue();
        }
        return;
    };
    if !bound.enqueue() || running.deferred_on.is_some() {
        return;
    }
    let queue = NonNull::from(&header.queue);
    // SAFETY: `first` is the running behaviour's, whose requests are alive.
    let holds = unsafe { Current::requests(first) }
        // SAFETY: as above.
        .any(|s| unsafe { s.as_ref() }.queue() == queue);
    if !holds {
        header.queue.retain();
        CURRENT.with(|cur| {
            cur.set(Current {
                deferred_on: Some(NonNull::from(header)),
                ..running
            })
        });
    }
}

/// Applies backpressure to, and counts, the requests of a behaviour that counts its grants on
/// bounded cowns.
#[inline]
pub(super) fn throttle_all(requests: &[NonNull<Slot>]) {
    for &slot in requests {
        // SAFETY: the spawner holds references to the cowns it names.
        let header = unsafe { CownHeader::from_queue(slot.as_ref().queue()) };
        if let Some(bound) = header.bound.as_deref() {
            throttle(header, bound, true);
        }
    }
}

/// Counts the release of a bounded cown by one of its requests, `slot`, and wakes the releases
/// parked on the cown if it went below its bound.
///
/// Out of line, so that the release of a behaviour on an unbounded cown only tests for a bound.
/// Not `#[cold]`: a cold call here made the compiler spill a register of the chain of steps
/// (`run`) on every behaviour, bounded or not. It takes the slot alone, which the release has at
/// hand anyway: whether the behaviour entangled the cown is read from its tags (see `throttle`).
#[inline(never)]
pub(super) fn released(bound: &Bound, slot: &Slot) {
    if !slot.is_single() {
        bound.disentangle();
    }
    if bound.on_release() {
        wake(bound, Wake::Drained);
    }
}

/// Why the releases parked on a bounded cown are woken.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wake {
    /// A release took the cown below its bound.
    Drained,
    /// A behaviour naming other cowns too was queued on it.
    Entangled,
    /// A behaviour holding it is about to block this thread in `Promise::wait`.
    Blocking,
}

/// Lets go the releases parked on `bound` (see [`Deferrals::take_parked`]): schedules each on its
/// behaviour's runtime, where another worker can take it if this thread is about to block.
#[cold]
fn wake(bound: &Bound, why: Wake) {
    for Parked { task, runtime } in deferrals().take_parked(bound, why == Wake::Drained) {
        if why == Wake::Blocking {
            runtime.schedule_shared(task);
        } else {
            runtime.schedule(task);
        }
    }
}

/// The bounded cowns among the requests of a behaviour (its first request `first`, its later ones
/// `later`), each once.
///
/// # Safety
/// The behaviour holds its cowns (it is deferred, or runs) for as long as the iterator and the
/// bounds it yields are used, and its block is alive that long.
unsafe fn held_bounds<'a>(
    first: NonNull<Slot>,
    later: *const [LaterSlot],
) -> impl Iterator<Item = &'a Bound> + Clone {
    // SAFETY: the caller's contract: the block, so its later requests, are alive.
    let later = unsafe { &*later };
    std::iter::once(first)
        .chain(
            later
                .iter()
                .filter(|s| !s.slot().is_duplicate())
                .map(LaterSlot::as_ptr),
        )
        .filter_map(|s| {
            // SAFETY: the caller's contract: the behaviour holds these cowns.
            let header = unsafe { CownHeader::from_queue(s.as_ref().queue()) };
            header.bound.as_deref()
        })
}

/// A bounded cown's reference, handed from the thread that deferred a release to the one that
/// lets it go.
struct BoundedRef(NonNull<CownHeader>);

// SAFETY: a reference to a cown header, whose shared state is atomic or immutable (`Sync`).
unsafe impl Send for BoundedRef {}

impl BoundedRef {
    fn bound<'a>(&self) -> &'a Bound {
        // SAFETY: the reference keeps the cown alive; it is dropped only after the deferral's
        // last use of the bound (see `release`).
        unsafe { self.0.as_ref() }
            .bound
            .as_deref()
            .expect("a behaviour is deferred on a bounded cown")
    }
}

impl Drop for BoundedRef {
    fn drop(&mut self) {
        // SAFETY: the reference taken when the release was deferred, given up once.
        unsafe { Queue::release_ref(NonNull::from(&self.0.as_ref().queue)) };
    }
}

/// The state of a parked release: the behaviour (its runnable held here), and the bounded cown it
/// is deferred on.
pub(super) struct Deferral<K: Kind> {
    behaviour: Option<Running<K>>,
    bounded: BoundedRef,
}

/// The task of a behaviour whose release backpressure defers (see the module docs).
pub(super) struct DeferredRelease<K>(PhantomData<K>);

/// Defers the release of a behaviour whose closure ran and spawned onto the full bounded cown
/// `bounded` (holding one reference to it): parks it in the deferral graph, or, if the graph
/// says it must not wait, releases its cowns now and schedules what that release made runnable
/// (its step then leaves nothing for the chain, so that the step of every behaviour, inlined into
/// the chain's loop, is the same as without backpressure).
#[cold]
#[inline(never)]
pub(super) fn defer<K: Kind>(task: Running<K>, bounded: NonNull<CownHeader>) {
    let first = first_of::<K::Shared>(&task);
    let later: *const [LaterSlot] = K::later(&task);
    let bounded = BoundedRef(bounded);
    let target = bounded.bound();
    // SAFETY: the behaviour holds its cowns until its release, here or by its parked task, which
    // forgets its edges first; the runtime keeps the block alive until then.
    let held = unsafe { held_bounds(first, later) };
    // SAFETY: the behaviour holds its cowns, so its first cown is alive.
    let runtime = unsafe { runtime_of(first) }.clone();
    let mut parts = Some((task, bounded));
    let parked = deferrals().defer(target, held, || {
        let (task, bounded) = parts.take().expect("a release is parked once");
        let deferral = Deferral {
            behaviour: Some(task),
            bounded,
        };
        Parked {
            task: Runnable::new::<DeferredRelease<K>>((), deferral).erase(),
            runtime,
        }
    });
    let task = match parked {
        Ok(()) => return,
        Err(None) => parts.take().expect("not parked").0,
        Err(Some(parked)) => {
            let Ok(mut task) = parked.task.downcast::<DeferredRelease<K>>() else {
                unreachable!("a deferred release is parked as its own kind");
            };
            task.private()
                .behaviour
                .take()
                .expect("a deferred release happens once")
        }
    };
    // The release may wake a promise's waker, which may unwind: as outside any behaviour.
    CURRENT.with(|cur| cur.set(Current::NONE));
    if let (Some(next), _) = finish(task, 0).next() {
        schedule_ready(next);
    }
}

impl<K: Kind> Task for DeferredRelease<K> {
    type Shared = ();
    type Private = Deferral<K>;

    fn run(mut task: Running<Self>) -> Turn<()> {
        let deferral = task.private();
        run::turn::<K>(|| release(deferral));
        Turn::Idle
    }

    fn shutdown(task: Running<Self>) {
        shutdown_with(task, cancel_deferred::<K>);
    }
}

/// Cancels a deferred release: releases the behaviour's cowns now.
fn cancel_deferred<K: Kind>(task: Runnable<Erased>) {
    let Ok(mut task) = task.downcast::<DeferredRelease<K>>() else {
        unreachable!("a deferred release is cancelled as its own kind");
    };
    if let (Some(next), _) = release(task.private()).next() {
        schedule_ready(next);
    }
}

/// Forgets the deferred behaviour's edges, releases its cowns and hands its result over. The
/// bounded cown's reference is given up with the task, afterwards.
fn release<K: Kind>(deferral: &mut Deferral<K>) -> Step {
    let behaviour = deferral
        .behaviour
        .take()
        .expect("a deferred release happens once");
    let first = first_of::<K::Shared>(&behaviour);
    // SAFETY: the behaviour still holds its cowns, until `finish` below.
    let held = unsafe { held_bounds(first, K::later(&behaviour)) };
    deferrals().released(deferral.bounded.bound(), held);
    // The release may wake a promise's waker, which may unwind: as outside any behaviour.
    CURRENT.with(|cur| cur.set(Current::NONE));
    finish(behaviour, 0)
}

/// The bounded cowns of a behaviour blocked in [`Promise::wait`](crate::Promise::wait), entangled
/// while it waits (see [`crate::backpressure`]): what it waits for may need the releases parked
/// on them, which are woken.
pub(crate) struct Stall(Vec<NonNull<CownHeader>>);

/// Entangles the bounded cowns of the behaviour whose closure runs on this thread, if any, until
/// the returned guard is dropped (before the closure returns).
pub(crate) fn stall() -> Stall {
    let mut held = Vec::new();
    if let Some(first) = CURRENT.with(Cell::get).first {
        // SAFETY: `first` is the running behaviour's, whose requests are alive.
        for slot in unsafe { Current::requests(first) } {
            // SAFETY: as above: the behaviour holds its cowns while its closure runs.
            let (slot, header) =
                unsafe { (slot.as_ref(), CownHeader::from_queue(slot.as_ref().queue())) };
            if slot.is_duplicate() {
                continue;
            }
            if let Some(bound) = header.bound.as_deref() {
                if bound.entangle() {
                    wake(bound, Wake::Blocking);
                }
                held.push(NonNull::from(header));
            }
        }
    }
    Stall(held)
}

impl Drop for Stall {
    fn drop(&mut self) {
        for header in &self.0 {
            // SAFETY: the guard is dropped while the behaviour's closure runs, so while it holds
            // the cown.
            let header = unsafe { header.as_ref() };
            if let Some(bound) = header.bound.as_deref() {
                bound.disentangle();
            }
        }
    }
}
