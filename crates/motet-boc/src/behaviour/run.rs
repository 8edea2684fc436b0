//! A behaviour's turn: the behaviour, then the chain of successors it makes runnable, run one at
//! a time on this thread, up to [`INLINE_CHAIN`] behaviours.
//!
//! A behaviour whose release makes exactly one successor runnable (a chain of behaviours on one
//! cown, a ping-pong between two) hands it to its own worker. Going through the runtime, that is
//! a schedule into the worker's next-task slot and a turn of the worker loop; running it here
//! directly saves both, as Verona's worker runs its `next_work` and an actor runs a batch of
//! messages per turn. The chain is bounded so that a worker still serves its queues and the
//! runtime's fairness rules; on a deterministic runtime there is no chaining, so that the seeded
//! scheduler chooses every step.
//!
//! A successor of the turn's own kind (the task itself, or a chain of one kind of behaviour, a
//! mailbox drained) is stepped right here, its step inlined into the loop. One of another kind is
//! stepped with [`Runnable::call`](motet_runtime::Runnable::call), which calls its kind's step through the task's vtable and
//! returns what the step left, as one word, for the chain here to go on with.

use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::ptr;

use motet_runtime::task::Running;
use motet_runtime::Handle;

use crate::cown::CownHeader;

use super::block::{first_cown, unpark, Kind};
use super::current::{Current, RestoreCurrent, CURRENT};
use super::handoff::{after_step, flush_later, schedule_ready, Next};
use super::step::{step, step_as, Step, StepFn};

/// How many behaviours a worker runs in a row inside one task turn, each made runnable by the
/// previous one: as many as an actor handles messages in one turn by default (motet-actor's
/// `DEFAULT_BATCH`). A shorter chain measured dearer per behaviour on a chain of single-cown
/// `when`s, through the worker loop's turns between chains (see docs/measurements/2026-11-29-hot-path-choices.md).
const INLINE_CHAIN: u32 = 128;

/// A behaviour's turn from the runtime (its task's `run`): its step and the chain it starts.
#[inline(always)]
pub(super) fn run<K: Kind>(task: Running<K>) {
    turn::<K>(|| step(task));
}

/// A turn that starts with `first_step` (a behaviour's step, or a deferred release) and goes on
/// with the chain it starts.
#[inline(always)]
pub(super) fn turn<K: Kind>(first_step: impl FnOnce() -> Step) {
    // What `CURRENT` holds between tasks: `NONE` on a worker, and the waiting behaviour when a
    // closure that waits for a promise runs tasks on its thread (a deterministic runtime). A
    // step may leave its own behaviour there (see `step`), so it is put back once the chain is
    // over; where it is not `NONE`, also if a step unwinds (the guard, out of line).
    if CURRENT.with(Cell::get).is_some() {
        return nested_turn::<K>(first_step);
    }
    run_chain::<K>(first_step());
    CURRENT.with(|cur| cur.set(Current::NONE));
}

/// [`turn`] inside a running behaviour's closure: puts back what [`CURRENT`] held once the turn is
/// over, or when a step unwinds (a panic in a result's `drop` or in a waker).
#[inline(never)]
fn nested_turn<K: Kind>(first_step: impl FnOnce() -> Step) {
    let _restore = RestoreCurrent::replace(Current::NONE);
    run_chain::<K>(first_step());
}

/// The chain of [`turn`], from what its first step left.
#[inline(always)]
fn run_chain<K: Kind>(mut stepped: Step) {
    let mut budget = INLINE_CHAIN;
    // The last cown found to belong to a thread-pool runtime this thread is a worker of: a chain
    // of behaviours on one cown (a mailbox drained) checks it once. (Remembering two, for a chain
    // alternating between two cowns as a turn and the meal it spawned do, was measured cheaper
    // per meal on Savina's philosopher but dearer per behaviour on Counting: the loop's code came
    // out worse; see docs/measurements/2026-11-29-hot-path-choices.md.)
    let mut checked: *const CownHeader = ptr::null();
    // That cown's runtime, once a check has found it: a step on another cown of the same runtime
    // (a meal after its philosopher's turn, a Teller's reply after a transfer) compares one
    // address instead of asking the runtime again. (Comparing runtimes alone, without `checked`,
    // loads the cown's handle at every step of a chain on one cown: logmap and pingpong measured
    // slower on one worker; see docs/measurements/2026-11-29-hot-path-choices.md.) A bitwise copy of the cown's handle, never
    // dropped and only compared by address (`same_runtime`): this thread stays that runtime's
    // worker until this task's turn is over, so the runtime stays alive and its address cannot be
    // reused meanwhile.
    let mut home: Option<ManuallyDrop<Handle>> = None;
    loop {
        let next = match stepped {
            Step::Done(next) => after_step(next, true),
            Step::DoneLater(next) => after_step(Some(next), false),
        };
        let Some(Next {
            first: next,
            step: next_step,
        }) = next
        else {
            return;
        };
        // SAFETY: a runnable behaviour's first request is not released before it runs, so its
        // first cown is alive.
        let first = unsafe { first_cown(next) };
        if budget == 0 {
            schedule_ready(next);
            flush_later();
            return;
        }
        if !ptr::eq(first, checked) {
            let known = home
                .as_ref()
                .is_some_and(|home| home.same_runtime(&first.runtime));
            if !known {
                if first.deterministic || !first.runtime.on_worker() {
                    schedule_ready(next);
                    flush_later();
                    return;
                }
                // SAFETY: a bitwise copy of a live handle, never dropped and only compared by
                // address (see `home`).
                home = Some(ManuallyDrop::new(unsafe { ptr::read(&first.runtime) }));
            }
            checked = first;
        }
        budget -= 1;
        // SAFETY: `after_step` handed this thread a runnable behaviour to run: its park is ours,
        // filled by its spawner and published with the enqueue.
        let runnable = unsafe { unpark(next) };
        stepped = match next_step {
            // A behaviour kept by its spawner, whose kind's step it recorded (unless that is this
            // turn's own kind, whose step is inlined below).
            Some(step_of_kind) if !std::ptr::fn_addr_eq(step_of_kind, step_as::<K> as StepFn) => {
                step_of_kind(runnable)
            }
            _ => match runnable.downcast::<K>() {
                // This turn's own kind: the step is inlined here, which measured cheaper per
                // behaviour than the call through the runtime on a chain of single-cown `when`s
                // (see docs/measurements/2026-11-29-hot-path-choices.md).
                Ok(task) => step(task),
                // SAFETY: a behaviour's `call` returns its step's word (see `Kind`'s `call`).
                Err(runnable) => unsafe { Step::from_word(runnable.call(0)) },
            },
        };
    }
}
