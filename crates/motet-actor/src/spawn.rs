//! Spawning actors.

use motet_runtime::Handle;

use crate::actor::Actor;
use crate::addr::{Addr, AnyAddr};
use crate::cell::{ActorTask, Relations};
use crate::envelope::Signal;
use crate::exit::{ExitReason, ExitSignal};

/// Messages an actor processes per turn before it yields to others, unless configured otherwise.
pub const DEFAULT_BATCH: u32 = 128;

/// Spawns `actor` on `runtime` and returns its address. The actor's `started` runs promptly on a
/// worker, then its handler runs for each message.
pub fn spawn<A: Actor>(runtime: &Handle, actor: A) -> Addr<A::Msg> {
    ActorTask::spawn(runtime, actor, DEFAULT_BATCH, None, None)
}

/// Spawns with options: `Spawn::new(actor).batch(16).link(&other).spawn(&handle)`.
pub struct Spawn<A: Actor> {
    actor: A,
    batch: u32,
    link: Vec<AnyAddr>,
    trap_exit: bool,
}

impl<A: Actor> Spawn<A> {
    /// Options for spawning `actor`.
    pub fn new(actor: A) -> Spawn<A> {
        Spawn {
            actor,
            batch: DEFAULT_BATCH,
            link: Vec::new(),
            trap_exit: false,
        }
    }

    /// Messages per turn (at least 1; default [`DEFAULT_BATCH`]).
    pub fn batch(mut self, n: u32) -> Spawn<A> {
        self.batch = n.max(1);
        self
    }

    /// Links the new actor with `other` from its first instant (no window in which one could stop
    /// unnoticed by the other).
    pub fn link(mut self, other: impl Into<AnyAddr>) -> Spawn<A> {
        self.link.push(other.into());
        self
    }

    /// Starts the actor trapping exits (see [`Context::trap_exit`](crate::Context::trap_exit)).
    pub fn trap_exit(mut self, trap: bool) -> Spawn<A> {
        self.trap_exit = trap;
        self
    }

    /// Spawns the actor.
    pub fn spawn(self, runtime: &Handle) -> Addr<A::Msg> {
        // The new actor holds its links before it can run: one that stops at once (in `started`, on
        // another worker, before the loop below has run) still tells the actors it is linked to.
        let relations = if self.link.is_empty() && !self.trap_exit {
            None
        } else {
            Some(Box::new(Relations {
                links: self.link.clone(),
                trap_exit: self.trap_exit,
                ..Relations::default()
            }))
        };
        let addr = ActorTask::spawn(runtime, self.actor, self.batch, None, relations);
        for other in self.link {
            if !other.signal(Signal::Link(addr.to_any())) {
                // `other` had already stopped; this signal also drops it from the new actor's links.
                addr.to_any().signal(Signal::Exit(ExitSignal {
                    from: other.id(),
                    reason: ExitReason::AlreadyExited,
                }));
            }
        }
        addr
    }
}
