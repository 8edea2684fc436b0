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
//! run with [`Runnable::run_now`], which calls its kind's turn: that turn finds itself *relayed*
//! ([`RELAY`]) and does one step only, leaving what the step left for the chain here to go on
//! with.

use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::ptr;

use motet_runtime::task::{Erased, Running};
use motet_runtime::{Handle, Runnable};

use crate::cown::CownHeader;

use super::block::{first_cown, unpark, Kind};
use super::current::{Current, RestoreCurrent, CURRENT};
use super::handoff::{after_step, flush_later, schedule_ready, Next};
use super::step::{step, step_as, Step, StepFn};

/// How many behaviours a worker runs in a row inside one task turn, each made runnable by the
/// previous one: as many as an actor handles messages in one turn by default (motet-actor's
/// `DEFAULT_BATCH`). Measured with callgrind, 16 instead cost about 5 instructions more per
/// behaviour on a chain of single-cown `when`s (the worker loop's turns between chains).
const INLINE_CHAIN: u32 = 128;

/// A chain's request to a behaviour of another kind, and that behaviour's answer.
#[derive(Clone, Copy)]
enum Relay {
    /// No chain waits for a step.
    Off,
    /// A chain runs the behaviour with `run_now`: its turn takes one step only.
    Asked,
    /// What that step left.
    Stepped(Step),
}

thread_local! {
    /// See [`Relay`].
    static RELAY: Cell<Relay> = const { Cell::new(Relay::Off) };
}

/// The turn of a behaviour of kind `K` (its task's `run`): a relayed step, or a turn. Both out of
/// line, so that entering a relayed step does not pay for the registers of a whole chain.
#[inline(always)]
pub(super) fn run<K: Kind>(task: Running<K>) {
    if let Relay::Asked = RELAY.with(Cell::get) {
        relayed(task);
    } else {
        turn_of(task);
    }
}

/// A relayed step (see [`relay`]).
#[inline(never)]
fn relayed<K: Kind>(task: Running<K>) {
    // Off before the step, in case it unwinds (into the chain's turn and out of it).
    RELAY.with(|r| r.set(Relay::Off));
    let stepped = step(task);
    RELAY.with(|r| r.set(Relay::Stepped(stepped)));
}

/// A behaviour's turn from the runtime: its step and the chain it starts.
#[inline(never)]
fn turn_of<K: Kind>(task: Running<K>) {
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
    // alternating between two cowns as a turn and the meal it spawned do, saved 8 instructions
    // per meal on Savina's philosopher but cost 7 per behaviour on Counting, measured with
    // callgrind: the loop's code came out worse.)
    let mut checked: *const CownHeader = ptr::null();
    // That cown's runtime, once a check has found it: a step on another cown of the same runtime
    // (a meal after its philosopher's turn, a Teller's reply after a transfer) compares one
    // address instead of asking the runtime again. (Comparing runtimes alone, without `checked`,
    // loads the cown's handle at every step of a chain on one cown: logmap and pingpong came out
    // 8 to 15% slower on one worker, interleaved runs.) A bitwise copy of the cown's handle, never
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
                // This turn's own kind: the step is inlined here. Measured with callgrind, about
                // 30 instructions less per behaviour than the call through the runtime on a chain
                // of single-cown `when`s.
                Ok(task) => step(task),
                Err(runnable) => relay(runnable),
            },
        };
    }
}

/// Runs one step of a runnable behaviour of another kind: its kind's turn, relayed.
#[inline(never)]
fn relay(runnable: Runnable<Erased>) -> Step {
    RELAY.with(|r| r.set(Relay::Asked));
    if let Some(yielded) = runnable.run_now() {
        // A behaviour's turn never yields its runnable (its task's `run` returns `Idle`).
        std::mem::forget(yielded);
        unreachable!("a behaviour's turn yielded");
    }
    match RELAY.with(|r| r.replace(Relay::Off)) {
        Relay::Stepped(stepped) => stepped,
        _ => unreachable!("a relayed turn steps its behaviour"),
    }
}
