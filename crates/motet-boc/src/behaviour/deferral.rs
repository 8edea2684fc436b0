//! Backpressure on spawns (see [`crate::backpressure`]): throttling a spawn onto a bounded cown,
//! and the deferred release of a behaviour that spawned onto a full one.
//!
//! A behaviour whose closure spawned onto a full bounded cown (that it does not hold itself) keeps
//! its cowns when the closure returns: its runnable goes into a [`DeferredRelease`], a small task
//! of its own that re-checks the bounded cown each time it gets a turn and releases the
//! behaviour's cowns once the cown is below its bound or made no progress since the previous
//! check. The deferred behaviour's own kind never sees a deferral, so its step needs no check for
//! one; deferrals are rare (a producer outrunning a bounded cown), so the task's allocation is
//! paid only then.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::NonNull;

use motet_runtime::task::{Running, Task, Turn};

use crate::backpressure::Bound;
use crate::cown::CownHeader;
use crate::protocol::{Queue, Slot};

use super::block::{first_of, runtime_of, Kind};
use super::cancel::shutdown_with;
use super::current::{Current, CURRENT};
use super::handoff::schedule_ready;
use super::run;
use super::step::{finish, Step};

/// Applies backpressure for a request on a bounded cown about to be enqueued (see
/// [`crate::backpressure`]), and counts it.
#[cold]
pub(super) fn throttle(header: &CownHeader, bound: &Bound) {
    if bound.is_full() {
        let running = CURRENT.with(Cell::get);
        match running.first {
            Some(first) => {
                let queue = NonNull::from(&header.queue);
                // SAFETY: `first` is the running behaviour's, whose requests are alive.
                let holds = unsafe { Current::requests(first) }
                    // SAFETY: as above.
                    .any(|s| unsafe { s.as_ref() }.queue() == queue);
                if !holds && running.deferred_on.is_none() {
                    header.queue.retain();
                    CURRENT.with(|cur| {
                        cur.set(Current {
                            deferred_on: Some(NonNull::from(header)),
                            ..running
                        })
                    });
                }
            }
            None if header.runtime.on_worker() => {}
            None => bound.wait_below(&header.runtime),
        }
    }
    bound.on_enqueue();
}

/// Applies backpressure to, and counts, the requests of a behaviour on bounded cowns.
#[inline]
pub(super) fn throttle_all(requests: &[NonNull<Slot>]) {
    for &slot in requests {
        // SAFETY: the spawner holds references to the cowns it names.
        let header = unsafe { CownHeader::from_queue(slot.as_ref().queue()) };
        if let Some(bound) = header.bound.as_deref() {
            throttle(header, bound);
        }
    }
}

/// A bounded cown's reference, handed from the thread that deferred a release to the one that
/// polls it.
struct BoundedRef(NonNull<CownHeader>);

// SAFETY: a reference to a cown header, whose shared state is atomic or immutable (`Sync`).
unsafe impl Send for BoundedRef {}

impl BoundedRef {
    fn bound(&self) -> Option<&Bound> {
        // SAFETY: the reference keeps the cown alive.
        unsafe { self.0.as_ref() }.bound.as_deref()
    }
}

impl Drop for BoundedRef {
    fn drop(&mut self) {
        // SAFETY: the reference taken when the release was deferred, given up once.
        unsafe { Queue::release_ref(NonNull::from(&self.0.as_ref().queue)) };
    }
}

/// The state of a deferred release: the behaviour, its runnable held here, and what the last
/// check saw of the bounded cown.
pub(super) struct Deferral<K: Kind> {
    behaviour: Option<Running<K>>,
    bounded: BoundedRef,
    /// Whether the task had a turn since the deferral: its first turn only yields, since the task
    /// may have come straight back through the worker's next-task slot before anything else ran.
    turned: bool,
    /// The bounded cown's completions at the last check.
    completed: usize,
}

/// The task of a behaviour whose release backpressure defers (see the module docs).
pub(super) struct DeferredRelease<K>(PhantomData<K>);

/// Defers the release of a behaviour whose closure ran and spawned onto the full bounded cown
/// `bounded` (holding one reference to it): schedules a [`DeferredRelease`] that holds its
/// runnable.
#[cold]
#[inline(never)]
pub(super) fn defer<K: Kind>(task: Running<K>, bounded: NonNull<CownHeader>) {
    let first = first_of::<K::Shared>(&task);
    let bounded = BoundedRef(bounded);
    let completed = bounded.bound().map_or(0, Bound::completed);
    let deferral = motet_runtime::Runnable::new::<DeferredRelease<K>>(
        (),
        Deferral {
            behaviour: Some(task),
            bounded,
            turned: false,
            completed,
        },
    );
    // SAFETY: the behaviour holds its cowns (its release is deferred), so its first cown is alive.
    unsafe { runtime_of(first) }.schedule(deferral);
}

impl<K: Kind> Task for DeferredRelease<K> {
    type Shared = ();
    type Private = Deferral<K>;

    fn run(mut task: Running<Self>) -> Turn<()> {
        if still_deferred(task.private()) {
            return Turn::Yield(task.into_runnable());
        }
        let deferral = task.private();
        run::turn::<K>(|| release(deferral));
        Turn::Idle
    }

    fn shutdown(task: Running<Self>) {
        shutdown_with(task, cancel_deferred::<K>);
    }
}

/// Cancels a deferred release: releases the behaviour's cowns now.
fn cancel_deferred<K: Kind>(task: motet_runtime::Runnable<motet_runtime::task::Erased>) {
    let Ok(mut task) = task.downcast::<DeferredRelease<K>>() else {
        unreachable!("a deferred release is cancelled as its own kind");
    };
    if let (Some(next), _) = release(task.private()).next() {
        schedule_ready(next);
    }
}

/// Whether the deferred release waits another turn: while the bounded cown is full and made
/// progress since the last check, and always at the first turn after the deferral.
fn still_deferred<K: Kind>(deferral: &mut Deferral<K>) -> bool {
    let Some(bound) = deferral.bounded.bound() else {
        return false;
    };
    let completed = bound.completed();
    let (turned, last) = (deferral.turned, deferral.completed);
    deferral.turned = true;
    deferral.completed = completed;
    bound.is_full() && (!turned || last != completed)
}

/// Releases the deferred behaviour's cowns and hands its result over; then gives up the bounded
/// cown's reference.
fn release<K: Kind>(deferral: &mut Deferral<K>) -> Step {
    let behaviour = deferral
        .behaviour
        .take()
        .expect("a deferred release happens once");
    // The release may wake a promise's waker, which may unwind: as outside any behaviour.
    CURRENT.with(|cur| cur.set(Current::NONE));
    finish(behaviour, 0)
}
