//! Sending to an actor: the push that schedules an idle actor, and the gate of a bounded or a
//! forwarding actor's mailbox.

use std::ptr::NonNull;

use super::extra::Forward;
use super::header::Header;
use crate::bounded::TrySendError;
use crate::envelope::Envelope;
use crate::mailbox::{Node, Push};

impl<M: Send + 'static> Header<M> {
    /// Pushes an envelope and schedules the actor if it was idle; gives the envelope back if the
    /// actor has stopped. Always inlined (see [`Addr::tell`](crate::Addr::tell)).
    #[inline(always)]
    pub(crate) fn push(&self, env: Envelope<M>) -> Result<(), Envelope<M>> {
        match self.mailbox.push(Node::new(env)) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: clearing the idle mark gave this thread the slot, where the turn
                    // that set the mark parked the runnable.
                    unsafe { self.schedule() };
                }
                Ok(())
            }
            Push::Closed(node) => self.refused(node),
        }
    }

    /// The fast path refused a push: the actor stopped, or its mailbox is gated (bounded or
    /// forwarding).
    #[cold]
    #[inline(never)]
    fn refused(&self, node: Box<Node<Envelope<M>>>) -> Result<(), Envelope<M>> {
        if let Some(forward) = self.forward() {
            return self.push_forwarding(forward, node);
        }
        if self.bound().is_some() {
            self.push_through_gate(node).map_err(Refused::into_envelope)
        } else {
            Err(node.into_value())
        }
    }

    /// A push into a gated (bounded) mailbox: counted, refused when full (user messages only).
    #[inline(never)]
    fn push_through_gate(&self, node: Box<Node<Envelope<M>>>) -> Result<(), Refused<M>> {
        let Some(bound) = self.bound() else {
            unreachable!("only bounded mailboxes are gated")
        };
        if self.mailbox.is_closed() {
            return Err(Refused::Stopped(node.into_value()));
        }
        if matches!(node.value(), Envelope::System(_)) {
            bound.count_signal();
        } else if !bound.reserve() {
            return Err(Refused::Full(node.into_value()));
        }
        self.push_past_gate(node).map_err(|node| {
            bound.unreserve();
            Refused::Stopped(node.into_value())
        })
    }

    /// Pushes into a gated mailbox and schedules the actor if it was idle; gives the node back if
    /// the actor has stopped.
    fn push_past_gate(&self, node: Box<Node<Envelope<M>>>) -> Result<(), Box<Node<Envelope<M>>>> {
        match self.mailbox.push_gated(node) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: as in `push`.
                    unsafe { self.schedule() };
                }
                Ok(())
            }
            Push::Closed(node) => Err(node),
        }
    }

    /// A push to a forwarding actor: a user message goes to `forward` on this thread, a system
    /// signal into the (gated) mailbox.
    #[inline(never)]
    fn push_forwarding(
        &self,
        forward: &Forward<M>,
        node: Box<Node<Envelope<M>>>,
    ) -> Result<(), Envelope<M>> {
        if matches!(node.value(), Envelope::System(_)) {
            return self.push_past_gate(node).map_err(|node| node.into_value());
        }
        if self.mailbox.is_closed() {
            return Err(node.into_value());
        }
        match node.into_value() {
            Envelope::UserWithRef(msg) => {
                // Once the forward has taken the message (returned `Ok`, or panicked with it), the
                // reference it carried is released; a refused message goes back with it.
                let carried = Carried(self);
                match forward(msg) {
                    Ok(()) => {
                        drop(carried);
                        Ok(())
                    }
                    Err(msg) => {
                        std::mem::forget(carried);
                        Err(Envelope::UserWithRef(msg))
                    }
                }
            }
            Envelope::User(msg) => forward(msg).map_err(Envelope::User),
            Envelope::System(_) => unreachable!("signals are pushed above"),
        }
    }

    /// Pushes a user message, telling a full mailbox from a stopped actor.
    pub(crate) fn try_push_user(&self, msg: M) -> Result<(), TrySendError<M>> {
        let refused = match self.mailbox.push(Node::new(Envelope::User(msg))) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: as in `push`.
                    unsafe { self.schedule() };
                }
                return Ok(());
            }
            Push::Closed(node) if self.forward().is_some() => match self.refused(node) {
                Ok(()) => return Ok(()),
                Err(env) => Refused::Stopped(env),
            },
            Push::Closed(node) if self.bound().is_none() => Refused::Stopped(node.into_value()),
            Push::Closed(node) => match self.push_through_gate(node) {
                Ok(()) => return Ok(()),
                Err(refused) => refused,
            },
        };
        Err(match refused {
            Refused::Full(Envelope::User(m)) => TrySendError::Full(m),
            Refused::Stopped(Envelope::User(m)) => TrySendError::Stopped(m),
            _ => unreachable!("pushed a user message"),
        })
    }
}

/// The address reference a forwarded [`Envelope::UserWithRef`] carried: released when dropped.
struct Carried<'a, M: Send + 'static>(&'a Header<M>);

impl<M: Send + 'static> Drop for Carried<'_, M> {
    fn drop(&mut self) {
        // SAFETY: the envelope carried one address reference, which the sender handed over with it
        // and does not touch once the push returned (or unwound); the forward has taken the
        // message, so the reference is released here, last (it may free the cell).
        unsafe { Header::release(NonNull::from(self.0)) };
    }
}

/// Why a push was refused; holds the envelope.
enum Refused<M> {
    Stopped(Envelope<M>),
    Full(Envelope<M>),
}

impl<M> Refused<M> {
    fn into_envelope(self) -> Envelope<M> {
        match self {
            Refused::Stopped(env) | Refused::Full(env) => env,
        }
    }
}
