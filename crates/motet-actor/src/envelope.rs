//! What travels through a mailbox: a user message or a system signal.

use std::sync::Arc;

use crate::addr::AnyAddr;
use crate::exit::{ActorId, Down, ExitReason, ExitSignal};
use crate::oneshot::Slot;

/// A mailbox entry. System signals are boxed so that they do not widen every message node.
pub(crate) enum Envelope<M> {
    User(M),
    /// A user message that also carries one address reference of the receiver
    /// ([`Addr::send`](crate::Addr::send)), released when the message is handled or dropped.
    UserWithRef(M),
    System(Box<Signal>),
}

/// The runtime's own messages to an actor, processed in mailbox order with user messages.
pub(crate) enum Signal {
    /// Link with this actor (both directions: the sender already recorded the link).
    Link(AnyAddr),
    /// Remove the link with this actor.
    Unlink(ActorId),
    /// This actor monitors the receiver.
    Monitor(AnyAddr),
    /// This actor no longer monitors the receiver.
    Demonitor(ActorId),
    /// Complete this slot with the exit reason.
    Watch(Arc<Slot<ExitReason>>),
    /// A linked actor stopped.
    Exit(ExitSignal),
    /// A monitored actor stopped.
    Down(Down),
    /// Stop now with this reason.
    Stop(ExitReason),
    /// Restart in place (a one-for-all sibling failed).
    Restart,
    /// A receive-timeout timer of this generation fired.
    IdleCheck(u64),
    /// An urgent message was queued: wakes the actor, which looks at its urgent queue first.
    Urgent,
    /// Nothing: a scoped actor's owner pushes it to take its runnable back after a timed-out wait.
    Wake,
    /// Runs its closure once the actor reaches it in its mailbox, or once it is dropped unread
    /// (the actor stopped): see [`AnyAddr::after_pending`](crate::AnyAddr::after_pending).
    Barrier(Barrier),
}

/// A closure that runs exactly once: when the signal carrying it is handled, or when it is
/// dropped unhandled (a push to a stopped actor, a mailbox closed with it still queued). Either
/// way everything queued before it has been handled or dropped by then.
pub(crate) struct Barrier(Option<Box<dyn FnOnce() + Send>>);

impl Barrier {
    pub(crate) fn new(f: impl FnOnce() + Send + 'static) -> Barrier {
        Barrier(Some(Box::new(f)))
    }
}

impl Drop for Barrier {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            // Dropped on the paths that must not unwind (a stopping actor's mailbox close, a
            // turn's signal handling): a panic in the closure is reported by the panic hook only.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        }
    }
}
