//! One step of a runnable behaviour: its closure under `catch_unwind`, then the release of its
//! cowns (or the deferral of the release, under backpressure) and the hand-over of its result.

use std::any::Any;
use std::cell::Cell;
use std::mem::{size_of, ManuallyDrop};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use motet_runtime::hint::prefetch;
use motet_runtime::task::{Erased, Running};
use motet_runtime::Runnable;

use crate::cown::CownHeader;
use crate::error::{panic_message, WhenError};
use crate::protocol::{self, LaterSlot, Slot};
use crate::set::{Shape, SlotView};

use super::block::{block_start, first_of, Gating, Kind, HEADER};
use super::current::{Current, CURRENT};
use super::deferral::{defer, released};
use super::handoff::schedule_ready;

/// What a step left to do: the one successor its release made runnable and kept for this thread,
/// if any, and whether the release of the cown the behaviour named first made it so.
#[derive(Clone, Copy)]
pub(super) enum Step {
    /// Done; the successor kept, if any, made runnable by the release of the cown named first if
    /// there is one.
    Done(Option<NonNull<Slot>>),
    /// Done; the successor kept, made runnable by the release of a cown named later (a variant of
    /// its own rather than a flag, so that a step's outcome stays two registers and a single-cown
    /// behaviour's step never produces it: a flag in `Done` measured dearer per message on
    /// Savina's count; see docs/measurements/2026-11-29-hot-path-choices.md).
    DoneLater(NonNull<Slot>),
}

impl Step {
    /// The outcome of a finished behaviour, of what [`finish`] found.
    #[inline(always)]
    fn done(next: Option<NonNull<Slot>>, from_first: bool) -> Step {
        match next {
            Some(next) if !from_first => Step::DoneLater(next),
            next => Step::Done(next),
        }
    }

    /// The step as one word, for [`Task::call`](motet_runtime::Task::call): 0 for `Done(None)`,
    /// the successor's address for `Done(Some(_))`, and that address with bit 0 set for
    /// `DoneLater` (a slot is aligned to 8).
    #[inline(always)]
    pub(super) fn into_word(self) -> usize {
        match self {
            Step::Done(None) => 0,
            Step::Done(Some(next)) => next.as_ptr().expose_provenance(),
            Step::DoneLater(next) => next.as_ptr().expose_provenance() | 1,
        }
    }

    /// The step [`Step::into_word`] made `word` of.
    ///
    /// # Safety
    /// `word` is what `into_word` returned.
    #[inline(always)]
    pub(super) unsafe fn from_word(word: usize) -> Step {
        const { assert!(std::mem::align_of::<Slot>() >= 2) };
        let slot = |addr: usize| {
            // SAFETY: the caller's contract: the address of a slot, not null, whose provenance
            // `into_word` exposed.
            unsafe { NonNull::new_unchecked(std::ptr::with_exposed_provenance_mut::<Slot>(addr)) }
        };
        match word {
            0 => Step::Done(None),
            w if w & 1 == 0 => Step::Done(Some(slot(w))),
            w => Step::DoneLater(slot(w & !1)),
        }
    }

    /// The kept successor and whether the release of the first cown made it runnable.
    #[inline(always)]
    pub(super) fn next(self) -> (Option<NonNull<Slot>>, bool) {
        match self {
            Step::Done(next) => (next, true),
            Step::DoneLater(next) => (Some(next), false),
        }
    }
}

/// The step of a behaviour of a kind its caller knows, given its erased runnable: what a spawn
/// records beside a behaviour it keeps for its thread (see `handoff::hand_over`), so that running
/// it next is one call, as running a behaviour of the turn's own kind is none.
pub(super) type StepFn = fn(Runnable<Erased>) -> Step;

/// The [`StepFn`] of kind `K`.
#[inline(never)]
pub(super) fn step_as<K: Kind>(runnable: Runnable<Erased>) -> Step {
    match runnable.downcast::<K>() {
        Ok(task) => step(task),
        Err(_) => unreachable!("a behaviour's step function is its kind's"),
    }
}

/// Runs a runnable behaviour: its closure, then its release (or the deferral of its release, under
/// backpressure).
#[inline(always)]
pub(super) fn step<K: Kind>(mut task: Running<K>) -> Step {
    let first = first_of::<K::Shared>(&task);
    prefetch_successors::<K>(first);
    // SAFETY: the closure is taken once, by the one run of the behaviour (a behaviour that never
    // runs has its closure dropped instead, see `cancel`).
    let f = unsafe { ManuallyDrop::take(task.private()) };
    let later = K::later(&task);
    // `CURRENT` names this behaviour while its closure runs. After the closure, a step that
    // nothing can unwind from (a detached behaviour whose result needs no `drop`: the common
    // fire-and-forget `when`; the release and the scheduling do not unwind, see `cancel`) leaves
    // it so, and `run` puts back what it held before once the chain is over: one thread-local
    // read and a copy kept across the closure less per step (measured on Savina's philosopher;
    // see docs/measurements/2026-11-29-hot-path-choices.md). Any other step stores `NONE` there before
    // what may unwind (a result's `drop`, a promise's waker), which is what `CURRENT` holds
    // between tasks on a worker (a nested run puts back its own, see `run`).
    Current::set_running(first, later, !<K::G as Gating>::SINGLE);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: every slot is granted and the behaviour runs: the views are exclusive (shared
        // with readers only, for read slots) until the closure returns; the first request is
        // live while the runnable is held.
        let view = SlotView::new(unsafe { first.as_ref() }, later);
        // SAFETY: the slots are those the cown set of the behaviour's shape requested.
        f(unsafe { <K::Sh as Shape>::view(view, 0) })
    }));
    let running =
        if <K::H as super::block::Head<K::R>>::UNWIND_FREE && !std::mem::needs_drop::<K::R>() {
            CURRENT.with(Cell::get)
        } else {
            CURRENT.with(|cur| cur.replace(Current::NONE))
        };
    let result = outcome.map_err(|payload| panicked(running.first, payload));
    K::store(&task, result);
    if let Some(bounded) = running.deferred_on {
        defer(task, bounded);
        return Step::Done(None);
    }
    finish(task, <K::Sh as Shape>::WRITERS)
}

/// The error of a behaviour whose closure panicked with `payload`, once the panic is counted and
/// handed to the program's hook (see `panics`); `first` is what [`CURRENT`] named after the
/// closure, this behaviour's first request. Out of line and not generic, and given values rather
/// than the task, so that the step of a behaviour that returns carries none of it.
#[cold]
#[inline(never)]
fn panicked(first: Option<NonNull<Slot>>, payload: Box<dyn Any + Send>) -> Box<WhenError> {
    let message = panic_message(&*payload);
    crate::panics::report(&message, &*payload, first);
    Box::new(WhenError::Panicked(message))
}

/// Asks the processor to fetch the behaviours that will run after the behaviour whose first
/// request is `first` on its first cown, if they are already queued there, while its closure runs:
/// the next one and the one after it.
///
/// The next one is the behaviour this worker most likely runs next (it is handed over to the same
/// worker, see [`super::run`]), and its block was written when it was spawned, often long ago and
/// far away: when the pending chains of several cowns interleave (one `when` per receiver,
/// round-robin, as fjthrput does), each block in a chain is a cache miss on its first request (read
/// by the release) and on the rest of its block (read to run it). Fetching two ahead gives the
/// lines the time of two behaviours to arrive; the second one's address is read from the first
/// one's request, fetched by the previous behaviour.
///
/// Only the address of a successor's request is known; it is assumed to be that successor's first,
/// in a block of `K`'s layout, the common case of a chain of one kind of behaviour. Otherwise the
/// hint fetches a line it will not use, and nothing else happens: a prefetch reads nothing and
/// cannot fault.
#[inline(always)]
fn prefetch_successors<K: Kind>(first: NonNull<Slot>) {
    // SAFETY: the behaviour runs, so its first request is live.
    let Some(next) = unsafe { first.as_ref() }.successor() else {
        return;
    };
    prefetch_block::<K>(next);
    // SAFETY: the behaviour runs, so its first slot is granted and not released: its writer
    // successor `next` waits for that release and stays allocated (see `Slot::successor`).
    if let Some(after) = unsafe { next.as_ref() }.successor() {
        prefetch_block::<K>(after);
    }
}

/// Prefetches the block whose first request is assumed to be at `first`, from its start to the
/// end of the closure: the first line, the second if the block is longer, and the last (a block of
/// 64 bytes or less, whatever its place in the lines, is two prefetches).
#[inline(always)]
fn prefetch_block<K: Kind>(first: NonNull<Slot>) {
    let start = block_start(first);
    let len = HEADER + size_of::<K::Shared>() + size_of::<K::Private>();
    prefetch(start);
    if len > 64 {
        prefetch(start.wrapping_add(64));
    }
    prefetch(start.wrapping_add(len - 1));
}

/// Releases every cown, hands the result over and ends the task (or leaves its end to the
/// promise). Returns the first behaviour the releases made runnable, for the caller to run or
/// schedule (the others are scheduled).
///
/// Generic over the behaviour's kind so that, on the hot path (inlined into [`step`]), a
/// single-cown behaviour releases its one slot without the loop and its duplicate check (one
/// request is never a duplicate), measured cheaper per behaviour on a chain of single-cown
/// `when`s (see docs/measurements/2026-11-29-hot-path-choices.md).
///
/// `writers`, if not 0, says that the behaviour is known, from its type, to name that many cowns,
/// all with write access (a constant where `finish` is inlined): its release then skips the
/// checks for a reader and for a duplicate, and the loop over the slots unrolls (measured on
/// Savina's banking, with the same checks skipped in the enqueue; see docs/measurements/2026-11-29-hot-path-choices.md).
#[must_use]
#[inline(always)]
pub(super) fn finish<K: Kind>(task: Running<K>, writers: usize) -> Step {
    let first = first_of::<K::Shared>(&task);
    let later: *const [LaterSlot] = K::later(&task);
    // A cell, so that `from_first` can read it between the releases.
    let kept: Cell<Option<NonNull<Slot>>> = Cell::new(None);
    let mut runnable = |f: NonNull<Slot>| match kept.get() {
        None => kept.set(Some(f)),
        Some(_) => schedule_ready(f),
    };
    // SAFETY: the runnable keeps the later requests alive until the task ends below.
    let later = unsafe { &*later };
    // Whether the first slot's release made `kept` runnable (it is released first, and is never a
    // duplicate: a duplicate is the later naming of a cown).
    let from_first;
    if writers != 0 {
        debug_assert_eq!(writers, 1 + later.len());
        // SAFETY: the behaviour's `writers` requests are all write requests, none a duplicate,
        // granted, finished with, and not used again.
        unsafe { release_slot(first, true, &mut runnable) };
        from_first = kept.get().is_some();
        for slot in &later[..writers - 1] {
            // SAFETY: as above.
            unsafe { release_slot(slot.as_ptr(), true, &mut runnable) };
        }
    } else {
        // SAFETY: granted, finished with, and not used again; the first is never a duplicate.
        unsafe { release_slot(first, false, &mut runnable) };
        from_first = kept.get().is_some();
        for slot in later {
            if slot.slot().is_duplicate() {
                continue;
            }
            // SAFETY: as above.
            unsafe { release_slot(slot.as_ptr(), false, &mut runnable) };
        }
    }
    // Read before the task ends: the end may call out (the runtime frees the block), which would
    // make the compiler read the cell again afterwards.
    let next = kept.get();
    K::complete(task);
    Step::done(next, from_first)
}

/// Releases one granted slot (not a duplicate): counts the release on a bounded cown (out of
/// line, see `deferral::released`), then hands the cown on.
///
/// # Safety
/// `slot` is granted, finished with, not a duplicate, and not used again; a write request if
/// `writer`.
#[inline(always)]
unsafe fn release_slot(
    slot: NonNull<Slot>,
    writer: bool,
    runnable: &mut impl FnMut(NonNull<Slot>),
) {
    // SAFETY: the slot is still granted, so its cown is alive.
    let header = unsafe { CownHeader::from_queue(slot.as_ref().queue()) };
    if let Some(bound) = header.bound.as_deref() {
        // SAFETY: as above: the slot is live.
        released(bound, unsafe { slot.as_ref() });
    }
    // SAFETY: the caller's contract.
    unsafe {
        if writer {
            protocol::release_writer(slot, runnable)
        } else {
            protocol::release_distinct(slot, runnable)
        }
    };
}
