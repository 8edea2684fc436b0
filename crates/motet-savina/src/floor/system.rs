//! The floor's actor system: each slot's actor, the run loop that gives the ready actors their
//! turns, and what the harness reads once the system has run.

use super::context::Context;
use super::{Actor, ActorId};

/// A sequential actor system: actors, their mailboxes and the run queue.
pub struct System<A: Actor> {
    /// Each slot's actor; an exited actor's state stays until another actor takes over its slot.
    actors: Vec<A>,
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
            actors: Vec::new(),
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
            actors: Vec::new(),
            cx: Context::new(true),
        }
    }

    /// Creates `actor` from outside any actor (the benchmark's main thread) and runs its `started`
    /// hook.
    pub fn spawn(&mut self, actor: A) -> ActorId {
        let id = self.cx.spawn_in(actor, true);
        self.adopt_spawned();
        id
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
        self.cx.me = ActorId {
            index: i as u32,
            generation: self.cx.generations[i],
        };
        for _ in 0..self.actors[i].batch() {
            let Some(msg) = self.cx.mailboxes[i].pop_front() else {
                break;
            };
            self.cx.delivered += 1;
            self.actors[i].receive(msg, &mut self.cx);
            self.adopt_spawned();
            if self.cx.exit_requested {
                self.cx.exit_requested = false;
                self.cx.retire(i, true);
                break;
            }
        }
        if self.cx.mailboxes[i].is_empty() {
            self.cx.scheduled[i] = false;
        } else {
            // Its turn is over, not its work: it yields to the back of the wake queue.
            self.cx.schedule.yield_turn(i);
        }
    }

    /// Moves the actors spawned during the last call into their slots.
    #[inline]
    fn adopt_spawned(&mut self) {
        if self.cx.spawned.is_empty() {
            return;
        }
        self.adopt_spawned_slow();
    }

    /// [`System::adopt_spawned`]'s work, out of line: most messages spawn nothing.
    #[inline(never)]
    fn adopt_spawned_slow(&mut self) {
        for (i, actor) in self.cx.spawned.drain(..) {
            let actor = actor.expect("a spawned actor's start hook has returned");
            // New slots come in increasing order, each the next one; reused slots are below.
            if i < self.actors.len() {
                self.actors[i] = actor;
            } else {
                self.actors.push(actor);
            }
        }
    }

    /// The state of actor `id` (also after it has exited, unless its slot was reused).
    pub fn actor(&self, id: ActorId) -> &A {
        &self.actors[id.index()]
    }

    /// Every slot's actor, in slot order: every actor spawned, in spawn order, unless the system
    /// reclaims slots.
    pub fn actors(&self) -> &[A] {
        &self.actors
    }

    /// The state of actor `id`, to take what it holds (a result) once the system has run.
    pub fn actor_mut(&mut self, id: ActorId) -> &mut A {
        &mut self.actors[id.index()]
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
