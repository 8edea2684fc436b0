//! Scheduling a runnable behaviour, and what a worker keeps for itself instead: the behaviour a
//! closure spawned over free cowns ([`HANDOFF`], run right after its spawner) and a successor set
//! aside for it ([`LATER`]).
//!
//! A runnable behaviour is named by its first request; its runnable stays parked in its block
//! until it is scheduled or run ([`schedule_ready`], or a chain step in [`super::run`]).

use std::cell::Cell;
use std::ptr::NonNull;

use crate::cown::CownHeader;
use crate::protocol::Slot;

use super::block::{runtime_of, unpark};
use super::current::CURRENT;
use super::step::StepFn;

thread_local! {
    /// A behaviour spawned by the closure running on this thread and granted all its cowns at
    /// spawn, kept for this thread to run next (see [`hand_over`]).
    static HANDOFF: Cell<Option<Kept>> = const { Cell::new(None) };
    /// A successor made runnable and set aside for a spawned behaviour to run first (see
    /// [`after_step`]): this thread runs it once that behaviour's chain is done.
    static LATER: Cell<Option<NonNull<Slot>>> = const { Cell::new(None) };
}

/// Schedules the behaviour whose first request is `first`, which has just become runnable: takes
/// its runnable out of its block and gives it to the runtime of the cown it named first (into the
/// current worker's next-task slot when that is a worker of that runtime, so a behaviour that makes
/// exactly one successor runnable hands it over to its own worker).
///
/// The protocol's `runnable` callback: `first` is a behaviour that the caller made runnable.
#[inline]
pub(crate) fn schedule_ready(first: NonNull<Slot>) {
    // SAFETY: the grant (or the spawn) that made the behaviour runnable gave this thread its
    // park, which its spawner filled and published with the enqueue; its first request is not
    // released before it runs, so its cown is alive.
    let (runnable, runtime) = unsafe { (unpark(first), runtime_of(first)) };
    runtime.schedule(runnable);
}

/// A behaviour kept by [`hand_over`]: its first request and its kind's step. Whether it names
/// several cowns is read from its first request's tags (a line the spawn has just written), only
/// where a kept behaviour meets a successor (see [`spawned_or_successor`]).
#[derive(Clone, Copy)]
struct Kept {
    first: NonNull<Slot>,
    step: StepFn,
}

impl Kept {
    /// Whether the kept behaviour names several cowns (distinct ones: a behaviour kept by
    /// [`hand_over`] is single, or names several distinct ones granted at spawn).
    #[inline(always)]
    fn many(self) -> bool {
        // SAFETY: a kept behaviour is runnable and not run yet: its block is alive.
        !unsafe { self.first.as_ref() }.is_single()
    }

    /// The behaviour to run next.
    #[inline(always)]
    fn next(self) -> Next {
        Next {
            first: self.first,
            step: Some(self.step),
        }
    }
}

/// The behaviour a chain runs next: its first request, and its kind's step if the chain knows it
/// (a behaviour kept by [`hand_over`]; the kind of a successor made runnable by a release is known
/// only to the runtime).
#[derive(Clone, Copy)]
pub(super) struct Next {
    pub(super) first: NonNull<Slot>,
    pub(super) step: Option<StepFn>,
}

impl Next {
    #[inline(always)]
    fn successor(first: NonNull<Slot>) -> Next {
        Next { first, step: None }
    }
}

/// Makes runnable a behaviour granted all its cowns at spawn (`header` is its first cown's).
///
/// Spawned by a behaviour's closure running on a worker (not on a deterministic runtime), it is
/// kept for this thread, which runs it as soon as the spawning behaviour is done (see
/// [`super::run`]), as Verona's worker keeps the first behaviour a behaviour makes runnable: no
/// schedule into the runtime and no turn of the worker loop (a measured share of every hop of a
/// ping-pong between two cowns: see docs/measurements/2026-11-29-hot-path-choices.md). One behaviour is kept at a time; others, and
/// behaviours spawned elsewhere, go to the runtime. A kept behaviour cannot be stolen while the
/// spawning closure still runs, so a closure that blocks its thread first gives it to the runtime
/// (see [`flush_handoff`], which [`Promise::wait`](crate::Promise::wait) calls).
///
/// `MANY` says that the behaviour names several cowns: only such a kept behaviour may run before
/// its spawner's own successor (see [`after_step`]). It is read back from the kept behaviour's
/// first request (see [`Kept`]): recording the spawner's first cown instead, and comparing it
/// with the successor's, cost a chain of dependent loads per philosopher's meal (a profile of
/// Savina's philosopher showed it: see docs/measurements/2026-11-29-hot-path-choices.md). `step` is the kept
/// behaviour's kind's step, which the chain calls to run it.
#[inline]
pub(super) fn hand_over<const MANY: bool>(header: &CownHeader, first: NonNull<Slot>, step: StepFn) {
    if !header.deterministic
        && CURRENT.with(Cell::get).is_some()
        && HANDOFF.with(Cell::get).is_none()
    {
        let kept = Kept { first, step };
        debug_assert_eq!(kept.many(), MANY);
        HANDOFF.with(|h| h.set(Some(kept)));
        return;
    }
    schedule_ready(first);
}

/// What a step leaves for this thread to run next, of `next` (the successor its release kept),
/// the behaviour its closure spawned and [`hand_over`] kept, and the successor set aside in
/// [`LATER`]:
///
/// - one of the first two alone runs next; with neither, the one set aside does (if any);
/// - with both, the successor runs next and the spawned behaviour goes to the runtime, unless the
///   spawned behaviour names several cowns, the successor was made runnable by the release of the
///   cown the step's behaviour named first (`from_first`), as a behaviour's continuation spawned
///   on its own cown is, and nothing is set aside yet: then the spawned behaviour runs next and
///   the successor is set aside until that behaviour and the chain it starts are done.
///
/// A philosopher's turn spawns its meal over both forks, granted at once when they are free, and
/// its own next turn: the meal runs right after the turn, then the next turn, and neither goes
/// through the runtime's queue. Run the other way round (the successor first), the turns ran a
/// whole chain ahead of the meals and piled them up, each pending meal a block written at spawn
/// and read back much later, which about doubled Savina's philosopher's peak memory (see
/// docs/measurements/2026-11-29-savina-boc.md).
#[inline(always)]
pub(super) fn after_step(next: Option<NonNull<Slot>>, from_first: bool) -> Option<Next> {
    match HANDOFF.with(Cell::take) {
        None if next.is_some() => next.map(Next::successor),
        None => LATER.with(Cell::take).map(Next::successor),
        Some(kept) => match next {
            None => Some(kept.next()),
            Some(next) => spawned_or_successor(kept, next, from_first),
        },
    }
}

/// [`after_step`] with both a kept spawn and a successor: which runs next (the other waits in
/// [`LATER`] or goes to the runtime). The spawn run first (a philosopher's meal after its turn) is
/// decided inline, without a call: measured cheaper per meal on Savina's philosopher than the whole
/// choice out of line (see docs/measurements/2026-11-29-hot-path-choices.md).
#[inline(always)]
fn spawned_or_successor(kept: Kept, next: NonNull<Slot>, from_first: bool) -> Option<Next> {
    if kept.many() && from_first && LATER.with(|l| l.get().is_none()) {
        LATER.with(|l| l.set(Some(next)));
        Some(kept.next())
    } else {
        successor_first(kept, next)
    }
}

/// The successor runs next and the kept spawn goes to the runtime. Out of line: a chain's steps
/// mostly have one or the other.
#[inline(never)]
fn successor_first(kept: Kept, next: NonNull<Slot>) -> Option<Next> {
    schedule_ready(kept.first);
    Some(Next::successor(next))
}

/// Gives the behaviour kept by [`hand_over`] on this thread, if any, to its runtime: called before
/// the running closure blocks its thread (its own spawn may be what it waits for).
pub(crate) fn flush_handoff() {
    if let Some(kept) = HANDOFF.with(Cell::take) {
        schedule_ready(kept.first);
    }
    flush_later();
}

/// Gives the successor waiting in [`LATER`], if any, to its runtime.
#[inline(never)]
pub(super) fn flush_later() {
    if let Some(first) = LATER.with(Cell::take) {
        schedule_ready(first);
    }
}
