//! The floor's actor system: each slot's actor, the run loop that gives the ready actors their
//! turns, and what the harness reads once the system has run.

use std::ops::Index;

use super::chunks::{self, Chunks};
use super::context::Context;
use super::{Actor, ActorId};

/// A sequential actor system: actors, their mailboxes and the run queue.
pub struct System<A: Actor> {
    /// The actors, their mailboxes and the run queue, as an actor's handler sees them.
    cx: Context<A>,
}

impl<A: Actor> Default for System<A> {
    fn default() -> System<A> {
        System::new()
    }
}

impl<A: Actor> System<A> {
    /// An empty system that keeps every actor's state, also after it has exited, so that the
    /// harness can read any actor once the system has run.
    pub fn new() -> System<A> {
        System {
            cx: Context::new(false),
        }
    }

    /// An empty system that reuses the slot of an actor spawned by another actor once it has
    /// exited (its state is dropped when the next actor takes the slot; its mailbox's buffer goes
    /// to that actor), as a runtime frees an actor that has stopped. Memory then follows the
    /// actors alive at once, not all actors ever spawned. Actors spawned from outside (with
    /// [`System::spawn`]) keep their slots, so their state stays readable.
    pub fn reclaiming() -> System<A> {
        System {
            cx: Context::new(true),
        }
    }

    /// Creates `actor` from outside any actor (the benchmark's main thread) and runs its `started`
    /// hook.
    pub fn spawn(&mut self, actor: A) -> ActorId {
        self.cx.spawn_in(actor, true)
    }

    /// Sends `msg` to `to` from outside any actor.
    pub fn send(&mut self, to: ActorId, msg: A::Msg) {
        self.cx.send(to, msg);
    }

    /// Delivers messages until no actor has one left (quiescence).
    pub fn run(&mut self) {
        self.cx.schedule.local = true;
        while let Some(i) = self.cx.schedule.next_ready() {
            self.run_turn(i);
        }
        self.cx.schedule.local = false;
    }

    /// Lets actor `i` handle up to [`Actor::batch`] messages.
    fn run_turn(&mut self, i: usize) {
        let cx = &mut self.cx;
        cx.me = ActorId {
            index: i as u32,
            generation: cx.slots[i].generation,
        };
        let actor = cx.actors.ptr(i);
        // SAFETY: `actor` points to actor `i` in its slot, which never moves (Chunks::ptr), and
        // nothing else refers to it during its turn: the context reaches actors only through
        // Chunks::ptr, for the actors it spawns, which take other slots (new ones, or those of
        // actors that exited after a turn; this one's slot is freed only after its last message).
        let actor = unsafe { &mut *actor };
        for _ in 0..actor.batch() {
            let Some(msg) = cx.slots[i].mailbox.pop_front() else {
                break;
            };
            cx.delivered += 1;
            actor.receive(msg, cx);
            if cx.exit_requested {
                cx.exit_requested = false;
                cx.retire(i, true);
                break;
            }
        }
        let slot = &mut cx.slots[i];
        if slot.mailbox.is_empty() {
            slot.scheduled = false;
        } else {
            // Its turn is over, not its work: it yields to the back of the wake queue.
            cx.schedule.yield_turn(i);
        }
    }

    /// The state of actor `id` (also after it has exited, unless its slot was reused).
    pub fn actor(&self, id: ActorId) -> &A {
        &self.cx.actors[id.index()]
    }

    /// Every slot's actor, in slot order: every actor spawned, in spawn order, unless the system
    /// reclaims slots.
    pub fn actors(&self) -> Actors<'_, A> {
        Actors {
            chunks: &self.cx.actors,
        }
    }

    /// The state of actor `id`, to take what it holds (a result) once the system has run.
    pub fn actor_mut(&mut self, id: ActorId) -> &mut A {
        &mut self.cx.actors[id.index()]
    }

    /// How many actors have exited.
    pub fn exited(&self) -> usize {
        self.cx.exited
    }

    /// How many messages were delivered to an actor.
    pub fn delivered(&self) -> u64 {
        self.cx.delivered
    }

    /// How many messages were dropped because their receiver had exited.
    pub fn dropped(&self) -> u64 {
        self.cx.dropped
    }
}

/// Every slot's actor of a [`System`], in slot order (see [`System::actors`]).
pub struct Actors<'s, A> {
    chunks: &'s Chunks<A>,
}

impl<A> Clone for Actors<'_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for Actors<'_, A> {}

impl<'s, A> Actors<'s, A> {
    /// How many slots the system has.
    pub fn len(self) -> usize {
        self.chunks.len()
    }

    /// Whether the system has no actor.
    pub fn is_empty(self) -> bool {
        self.chunks.len() == 0
    }

    /// The actors in slot order.
    pub fn iter(self) -> chunks::Iter<'s, A> {
        self.chunks.iter()
    }
}

impl<A> Index<usize> for Actors<'_, A> {
    type Output = A;

    /// The actor in slot `i`.
    fn index(&self, i: usize) -> &A {
        &self.chunks[i]
    }
}

impl<'s, A> IntoIterator for Actors<'s, A> {
    type Item = &'s A;
    type IntoIter = chunks::Iter<'s, A>;

    fn into_iter(self) -> chunks::Iter<'s, A> {
        self.chunks.iter()
    }
}
