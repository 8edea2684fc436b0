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
}
