//! The sequential floor's "actor system": one thread, plain calls, one `VecDeque` mailbox per actor.
//!
//! Every benchmark's `floor` variant runs the same message flow as its actor program (SPEC.md
//! section 3) on this system, so that it does the same work per message that an actor runtime does
//! (enqueue, schedule, dequeue, dispatch by `match`) without any synchronisation. It is meant as a
//! lower bound for any runtime on the same program at one worker (no runtime should run it faster
//! than about 0.95x of the floor); where a runtime does beat it, the floor does some work the
//! runtime avoids, and that is a defect of the floor to find.
//!
//! # Model
//! - An actor is a value of the benchmark's actor type `A` (usually an enum over the actor kinds,
//!   dispatching with `match`); its messages are `A::Msg`. Actors are named by [`ActorId`]s: a slot
//!   and the slot's generation.
//! - [`Context::send`] appends to the receiver's mailbox. An actor that is not scheduled (waiting
//!   or running) becomes ready: into the next-actor slot if that is empty, otherwise to the back of
//!   the wake queue. [`Context::spawn`] schedules the new actor at once, as a runtime schedules a
//!   new actor for its start: into the slot if it is empty, otherwise on top of the spawn stack.
//!   Actors made ready from outside [`System::run`] (by the harness) wait in the injector.
//! - [`System::run`] picks the next actor as motet's runtime's worker does: on one turn in
//!   [`INJECTOR_INTERVAL`](schedule::INJECTOR_INTERVAL), alternately, the oldest spawn or the injector's first; otherwise the
//!   slot's actor, unless [`CHAIN_BOUND`] ran from the slot in a row while others wait (it then
//!   queues behind the woken ones); otherwise the oldest woken actor, then the newest spawned, then
//!   the injector's first. It delivers up to [`BATCH`] messages (or the actor's own
//!   [`Actor::batch`]), one [`Actor::receive`] call each; if messages remain, the actor rejoins the
//!   back of the wake queue. `run` returns when no actor has a message: quiescence.
//!
//! This is motet's runtime's policy on one worker (its next-task slot, its chain bound, its wake
//! queue and spawn stack, an actor's yield to the back of the wake queue, motet-actor's default
//! batch), so that the floor does not lose to the runtime by scheduling worse: a floor with one
//! FIFO queue ran behind motet's actors on programs whose hand-offs the slot keeps in cache
//! (chameneos, logmap), and ran recursive programs (fib, actorcreation) breadth first, with many
//! more actors alive at once than the runtime's depth-first spawn stack keeps.
//! - [`Context::exit`] stops the actor after the current message: it receives nothing more, messages
//!   sent to it later are dropped (as dead letters are), but its state stays readable through
//!   [`System::actor`] so that the harness can validate the result.
//! - A system made with [`System::reclaiming`] reuses an exited actor's slot, and its mailbox's
//!   buffer, for the next actor spawned by an actor, as a runtime frees a stopped actor: memory
//!   then follows the actors alive at once. The generation in [`ActorId`] keeps a message to the
//!   exited actor from reaching the slot's new one. Actors the harness spawned keep their slots.
//!   [`System::new`] keeps every slot, for programs whose harness reads actors that actors spawned.
//! - A dropped system leaves its storage, emptied (its actors' chunks, its slots with their
//!   mailboxes' buffers, its queues), to the next system of the same actor type on the same thread,
//!   as a runtime built once serves every iteration from memory it holds: a benchmark's floor
//!   builds a system per timed iteration, and would otherwise alone pay for fresh memory in each.
//! - [`Context::spawn`] runs the new actor's [`Actor::started`] hook at once, as Akka's
//!   `onPostStart` does.
//!
//! # Files
//! - `schedule.rs`: the run queue (which ready actor runs next);
//! - `context.rs`: [`Context`], what an actor can do (send, spawn, exit), with the slots' mailboxes
//!   and generations;
//! - `chunks.rs`: the storage of the actors, which never moves them as the system grows;
//! - `system.rs`: [`System`], the actors' slots, the run loop and what the harness reads;
//! - `spare.rs`: the storage a dropped system leaves to the next one of the same type;
//! - `program.rs`: how a floor variant becomes a benchmark program.

mod chunks;
mod context;
mod program;
mod schedule;
mod spare;
mod system;
#[cfg(test)]
mod tests;

pub use context::Context;
pub(crate) use program::{program, program_validated};
pub use system::{Actors, System};

/// How many messages an actor handles per scheduling before it yields to the next one: motet-actor's
/// default.
pub const BATCH: usize = motet_actor::DEFAULT_BATCH as usize;

/// How many actors in a row run from the next-actor slot while others wait: motet's runtime's
/// default chain bound.
pub const CHAIN_BOUND: u32 = motet_runtime::DEFAULT_CHAIN_BOUND;

/// The address of an actor in a [`System`]: its slot and the slot's generation, so that a message
/// to an actor that has exited is dropped also after its slot holds another actor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorId {
    index: u32,
    generation: u32,
}

impl ActorId {
    /// The actor's slot: the number of actors spawned before it, unless it took over the slot of an
    /// exited actor (see [`System::reclaiming`]).
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// An actor of the sequential floor.
///
/// Actors and messages own what they hold (`'static`): a system's storage outlives it, for the
/// next system of the same type (see `spare.rs`).
pub trait Actor: Sized + 'static {
    /// The messages the actor type handles.
    type Msg: 'static;

    /// Runs once when the actor is spawned, with `cx.me()` set to the new actor.
    fn started(&mut self, cx: &mut Context<Self>) {
        let _ = cx;
    }

    /// Handles one message.
    fn receive(&mut self, msg: Self::Msg, cx: &mut Context<Self>);

    /// How many messages the actor handles per scheduling: [`BATCH`] unless the program configures
    /// its actor otherwise (as motet's `Spawn::batch` does).
    fn batch(&self) -> usize {
        BATCH
    }
}
