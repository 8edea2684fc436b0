//! The task kind of a process and its run: poll the future until it parks, finishes or spends its
//! step budget, and hand the runnable over as the state word says (see the module docs of
//! `process`).

use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll};

use motet_runtime::task::{Running, Task, Turn};
use motet_runtime::Runnable;

use super::waker::borrowed_waker;
use super::{Header, CANCELLED, COMPLETE, NOTIFIED, PINNED, REFS, REF_ONE, RUNNING};
use crate::blocks::Blocks;
use crate::channel::fast_park::{self, ParkVTable, NO_REQUEST, REFUSED};
use crate::context;
use crate::sync::atomic::Ordering;
use crate::system::SystemShared;

/// The kind of task a process whose future is an `F` is: its shared part the [`Header`], its
/// private part the future, which the process drops itself when it completes (so that a panic in
/// the drop is caught and reported, and the cell lives on for the wakers still counted).
pub(crate) struct ProcessTask<F>(PhantomData<fn() -> F>);

/// How a run ended the process.
enum End {
    Finished,
    Cancelled,
    Panicked(Box<dyn std::any::Any + Send>),
}

/// How a run's fast park (see `channel::fast_park`) ended.
enum FastPark {
    /// Parked in the channel's word: the run is over, and must not touch the process again.
    Parked,
    /// Not parked, nothing pending: poll again (the channel changed, or the run refuses fast
    /// parks from now on).
    Repoll,
    /// Not parked, a wake-up (or a cancellation) is pending: end the poll the usual way.
    Woken,
}

impl<F: Future<Output = ()> + Send + 'static> Task for ProcessTask<F> {
    type Shared = Header;
    type Private = ManuallyDrop<F>;

    #[inline]
    fn run(task: Running<Self>) -> Turn<Header> {
        let (this, future) = Self::hold(task);
        Self::turn(this, future)
    }

    fn shutdown(task: Running<Self>) {
        // Scheduled, hence `RUNNING` (owned by this call), on a runtime that will not run it.
        let (this, future) = Self::hold(task);
        Self::finish(this, future, End::Cancelled);
    }
}

impl<F: Future<Output = ()> + Send + 'static> ProcessTask<F> {
    /// A new process, `RUNNING` (owned by the run the caller schedules) and holding its own
    /// reference.
    pub(crate) fn spawn(system: &Arc<SystemShared>, future: F) -> Runnable<Header> {
        Runnable::new_in_with::<Self, Blocks>(|| (Header::new(system), ManuallyDrop::new(future)))
    }

    /// Starts a run: parks the runnable in the header's slot for the whole run (see the module
    /// docs), and returns the header and the future, which the run reaches through pointers: the
    /// cell never moves, and lives until the process's count reaches zero, which takes this run's
    /// [`finish`](ProcessTask::finish) or a park this run published, after which it reads
    /// nothing. The run thus never moves the runnable but to yield or free the process, and an
    /// unwind out of the run (none is expected: the future's polls and drop are caught) leaks the
    /// process instead of freeing it while wakers still count on it.
    #[inline(always)]
    fn hold(mut task: Running<Self>) -> (NonNull<Header>, *mut F) {
        let future: *mut F = &mut **task.private();
        let runnable = task.into_runnable();
        let this = NonNull::from(&*runnable);
        // SAFETY: the run holds the runnable, so the slot is empty, and owns the slot until it
        // publishes a park or frees the process.
        unsafe { this.as_ref().park_runnable(runnable) };
        (this, future)
    }

    /// One scheduling of the process: polls it until it parks, finishes, or spends its step budget.
    fn turn(this: NonNull<Header>, future: *mut F) -> Turn<Header> {
        // SAFETY: the process is alive until this run publishes a park or finishes it (see `hold`).
        let header = unsafe { this.as_ref() };
        // The scheduling made the process ours (see the module docs): a load, to see a
        // cancellation. Acquire: a cancel's flag came with a release.
        let prev = header.state.load(Ordering::Acquire);
        debug_assert!(prev & RUNNING != 0 && prev & COMPLETE == 0);
        let system = header.system();
        // A process that never parked is not registered, so shutdown could not flag it: it looks
        // at the system's flag instead (and one that misses it is refused by the registry when it
        // parks).
        // SAFETY: the slot is read and written by the process's runs only.
        let registered = unsafe { *header.registry_slot.get() } != 0;
        if prev & CANCELLED != 0 || (!registered && system.is_shut_down()) {
            Self::finish(this, future, End::Cancelled);
            return Turn::Idle;
        }
        let _enter = context::enter(system, system.steps);
        // No request, fast parks allowed.
        // SAFETY: the request is the runs' own.
        unsafe { *header.park.get() = NO_REQUEST };
        let waker = borrowed_waker(this);
        let mut cx = Context::from_waker(&waker);
        loop {
            // SAFETY: the future lies in the task's cell, which never moves, and only this run
            // touches it until `finish` drops it.
            let pinned = unsafe { Pin::new_unchecked(&mut *future) };
            match catch_unwind(AssertUnwindSafe(|| pinned.poll(&mut cx))) {
                Ok(Poll::Pending) => {
                    // The process parks, unless woken meanwhile (then it is polled again).
                    #[cfg(feature = "tracing")]
                    tracing::trace!(target: "motet::process", process = ?this, "park");
                }
                Ok(Poll::Ready(())) => {
                    Self::finish(this, future, End::Finished);
                    return Turn::Idle;
                }
                Err(payload) => {
                    Self::finish(this, future, End::Panicked(payload));
                    return Turn::Idle;
                }
            }
            // A process that parks for the first time registers (so that shutdown can reach it)
            // before anyone may wake and run it.
            // SAFETY: running: the slot is ours.
            let unregistered = unsafe { *header.registry_slot.get() } == 0;
            // SAFETY: alive, unregistered and run by this thread.
            if unregistered && !unsafe { system.registry.insert(this) } {
                // The system shut down meanwhile.
                Self::finish(this, future, End::Cancelled);
                return Turn::Idle;
            }
            // SAFETY: the request is the runs' own.
            let request = unsafe { &mut *header.park.get() };
            if *request > REFUSED {
                let entry = *request as *const ();
                *request = NO_REQUEST;
                match fast_park(header, entry) {
                    FastPark::Parked => return Turn::Idle,
                    FastPark::Repoll => {
                        if !context::take_step() {
                            // Still `RUNNING`, owned by its next run.
                            return Turn::Yield(Self::unhold(header));
                        }
                        continue;
                    }
                    FastPark::Woken => {}
                }
            }
            // AcqRel: Release publishes the poll's effects and the parked runnable to the next run
            // and the waker that schedules it; Acquire sees what a waker published if it notified
            // us. `fetch_sub`, as `fetch_and(!RUNNING)`: RUNNING is set (see the module docs).
            let prev = header.state.fetch_sub(RUNNING, Ordering::AcqRel);
            if prev & NOTIFIED == 0 {
                // Parked: from here on a waker may schedule (and another worker run) the process.
                return Turn::Idle;
            }
            // Woken during the poll: `NOTIFIED` without `RUNNING`, which no waker schedules, so
            // the process (and its slot) is still ours: take it back, consuming the wake-up.
            let prev = header.reclaim();
            if prev & CANCELLED != 0 {
                Self::finish(this, future, End::Cancelled);
                return Turn::Idle;
            }
            if !context::take_step() {
                // Step budget spent: back of the queue, still `RUNNING` (owned by its next run).
                return Turn::Yield(Self::unhold(header));
            }
        }
    }

    /// The runnable `hold` parked, taken back out of the slot: to yield it (the process stays
    /// `RUNNING`, owned by its next run), or to drop it once the process's count is zero.
    #[inline]
    fn unhold(header: &Header) -> Runnable<Header> {
        // SAFETY: this run parked the runnable in `hold` and published no park since, or took the
        // process's count to zero itself (see `finish`): the slot is still this run's.
        unsafe { header.unpark() }
    }

    /// Drops the future, leaves the registry and completes the process, giving up its own
    /// reference: frees it if that was the last one.
    fn finish(this: NonNull<Header>, future: *mut F, end: End) {
        // SAFETY: the process is alive until its count reaches zero below (see `hold`).
        let header = unsafe { this.as_ref() };
        let dropped = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: dropped once, here, by the run that holds the process: it is complete from
            // now on, and never polled again (the cell's private part is a `ManuallyDrop`).
            unsafe { std::ptr::drop_in_place(future) }
        }));
        let system = header.system();
        match end {
            End::Finished | End::Cancelled => {}
            End::Panicked(payload) => system.record_panic(&*payload),
        }
        if let Err(payload) = dropped {
            system.record_panic(&*payload);
        }
        // SAFETY: the process is alive and run by this thread.
        unsafe { system.registry.remove(this) };
        system.process_finished();
        // Acquire: the other holders' uses, which their decrements released, precede the freeing.
        if header.state.load(Ordering::Acquire) & REFS == REF_ONE {
            // The process's own reference is the only one, and no other can appear: a waker is
            // cloned from another one or by a poll, and the wait entries that wake it without a
            // reference lay in the future. Nobody else reaches the process: free it.
            drop(Self::unhold(header));
            return;
        }
        // RUNNING is set and COMPLETE is not, so this adds COMPLETE, clears RUNNING and removes the
        // process's own reference in one step. AcqRel as in `Header::release`: Release also
        // publishes the parked runnable to whoever takes the count to zero.
        let delta = COMPLETE.wrapping_sub(RUNNING).wrapping_sub(REF_ONE);
        let prev = header.state.fetch_add(delta, Ordering::AcqRel);
        if prev & REFS == REF_ONE {
            // That was the last reference after all: the slot is still ours.
            drop(Self::unhold(header));
        }
    }
}

/// Parks the process in the lock word of its pinned channel, as its poll asked, if that channel is
/// still idle and empty and no wake-up is pending.
///
/// The run's runnable lies in the header's slot (see `ProcessTask::hold`): the park's
/// compare-and-swap publishes it to whoever takes the entry out of the word, who may run the
/// process, finish it and free it (and with it the pinned channel) at once. So nothing is read
/// after that compare-and-swap: the pending wake-ups are checked before it, between a read of the
/// word and the compare-and-swap from that very word (see "Other wake-ups" in
/// `channel::fast_park`).
#[inline]
fn fast_park(header: &Header, entry: *const ()) -> FastPark {
    // SAFETY: the receive that asked wrote the pin, and only runs write it.
    let Some((chan, vtable)) = (unsafe { *header.pin.get() }) else {
        unreachable!("a receive asks to park only in the channel it pins")
    };
    let abandon = || {
        // SAFETY: the entry is alive (the poll left it) and parked nowhere.
        unsafe { (vtable.abandon)(entry) }
    };
    // SAFETY: the receive's handle keeps the channel alive (so does the pin).
    let word = unsafe { fast_park::word(chan, vtable) };
    // Acquire: the writes of every lock released before this value was stored, a wake-up's
    // `NOTIFIED` among them (see `channel::fast_park`); so the state word's load below is ordered
    // after this one.
    let empty = word.load(Ordering::Acquire);
    if !fast_park::is_empty(empty) {
        abandon();
        return FastPark::Repoll;
    }
    // Acquire: a pending wake-up's writes.
    let state = header.state.load(Ordering::Acquire);
    if state & (NOTIFIED | CANCELLED | PINNED) != PINNED {
        // SAFETY: the caller's contract.
        if let Err(next) = unsafe { first_park(header, state, chan, vtable) } {
            abandon();
            return next;
        }
    }
    // The word the entry replaces, for the lock that takes it out (`Header::replaced_word`).
    // SAFETY: the request is the runs' own until the park publishes it.
    unsafe { *header.park.get() = empty };
    if fast_park::park(word, empty, entry) {
        // Parked: the process (and the channel) may be gone already.
        FastPark::Parked
    } else {
        // SAFETY: as above: not published.
        unsafe { *header.park.get() = NO_REQUEST };
        abandon();
        FastPark::Repoll
    }
}

/// The part of [`fast_park()`] before the word's compare-and-swap that a process pinned
/// in an earlier run skips: a wake-up already pending, or the first park, which takes the pin the
/// receive wrote (or clears it, if the channel counts no more pins) and sets `PINNED`. `Ok` if the
/// park may go on; otherwise what the run does instead (the entry is to be abandoned).
///
/// # Safety
/// Called by the process's run after a poll that requested a fast park, with `state` loaded from
/// the process's state word and `(chan, vtable)` its pin.
#[cold]
#[inline(never)]
unsafe fn first_park(
    header: &Header,
    state: u32,
    chan: *const (),
    vtable: &'static ParkVTable,
) -> Result<(), FastPark> {
    let pinned = state & PINNED != 0;
    if state & (NOTIFIED | CANCELLED) != 0 {
        if !pinned {
            // The pin was the receive's: not counted, so not kept.
            // SAFETY: written by this process's runs only; no waker reads it before `PINNED`.
            unsafe { *header.pin.get() = None };
        }
        return Err(FastPark::Woken);
    }
    debug_assert!(!pinned);
    // SAFETY: the receive's handle keeps the channel alive.
    if !unsafe { (vtable.pin)(chan) } {
        // SAFETY: as above; the run refuses fast parks from now on.
        unsafe {
            *header.pin.get() = None;
            *header.park.get() = REFUSED;
        }
        return Err(FastPark::Repoll);
    }
    // Release: the pin, for the wakers that see `PINNED`; Acquire: a wake-up that came before.
    let prev = header.state.fetch_or(PINNED, Ordering::AcqRel);
    if prev & (NOTIFIED | CANCELLED) != 0 {
        return Err(FastPark::Woken);
    }
    Ok(())
}
