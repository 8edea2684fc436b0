//! Why actors stop, and the notifications their links and monitors receive.

use std::fmt;
use std::sync::Arc;

/// A process-unique actor identity, reported in [`Down`] and [`ExitSignal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorId(pub(crate) u64);

impl ActorId {
    /// The numeric value.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ActorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "actor#{}", self.0)
    }
}

/// Why an actor stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitReason {
    /// It stopped itself ([`Context::stop`](crate::Context::stop)).
    Normal,
    /// No address to it remained and its mailbox was empty.
    Unreachable,
    /// Someone called [`Addr::kill`](crate::Addr::kill).
    Killed,
    /// Its runtime shut down, or its supervisor stopped it.
    Shutdown,
    /// A handler panicked (the panic message).
    Panicked(Arc<str>),
    /// A supervisor gave up: its children failed more often than its restart intensity allows.
    RestartLimit,
    /// Reported when linking to or monitoring an actor that had already stopped.
    AlreadyExited,
    /// An application-defined reason ([`Context::stop_with`](crate::Context::stop_with)).
    Error(Arc<str>),
    /// The actor lives on another node (a remote proxy) and that node was lost: it crashed, hung
    /// past its lease, or was declared down and quarantined. Abnormal: it propagates over links.
    NodeUnreachable,
}

impl ExitReason {
    /// Whether the reason is a normal one, which does not propagate over links: [`Normal`] and
    /// [`Unreachable`].
    ///
    /// [`Normal`]: ExitReason::Normal
    /// [`Unreachable`]: ExitReason::Unreachable
    pub fn is_normal(&self) -> bool {
        matches!(self, ExitReason::Normal | ExitReason::Unreachable)
    }
}

impl fmt::Display for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitReason::Normal => f.write_str("normal"),
            ExitReason::Unreachable => f.write_str("unreachable"),
            ExitReason::Killed => f.write_str("killed"),
            ExitReason::Shutdown => f.write_str("shutdown"),
            ExitReason::Panicked(m) => write!(f, "panicked: {m}"),
            ExitReason::RestartLimit => f.write_str("restart intensity exceeded"),
            ExitReason::AlreadyExited => f.write_str("already exited"),
            ExitReason::Error(m) => write!(f, "error: {m}"),
            ExitReason::NodeUnreachable => f.write_str("node unreachable"),
        }
    }
}

/// Delivered to a monitoring actor ([`Actor::on_down`](crate::Actor::on_down)) when the actor it
/// monitors stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Down {
    /// The actor that stopped.
    pub id: ActorId,
    /// Why.
    pub reason: ExitReason,
}

/// Delivered to a linked actor when its peer stops. Unless the receiver traps exits
/// ([`Context::trap_exit`](crate::Context::trap_exit)), an abnormal reason makes it stop with the same
/// reason; trapped, it goes to [`Actor::on_exit`](crate::Actor::on_exit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitSignal {
    /// The linked actor that stopped.
    pub from: ActorId,
    /// Why.
    pub reason: ExitReason,
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> Arc<str> {
    if let Some(s) = payload.downcast_ref::<&str>() {
        Arc::from(*s)
    } else if let Some(s) = payload.downcast_ref::<String>() {
        Arc::from(s.as_str())
    } else {
        Arc::from("non-string panic payload")
    }
}
