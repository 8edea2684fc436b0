//! How coordination messages travel: a trait for each end, an in-memory implementation for
//! deterministic tests in one process ([`memory`]), and Zenoh for separate processes
//! ([`zenoh`](mod@crate::transport::zenoh)).
//!
//! Both ends deliver what arrives, in order, into a channel their owner reads; a transport must
//! keep the order of the messages one end sends to another (Zenoh does, per publisher, with
//! reliable delivery and blocking congestion control), since the coordinator relies on a value
//! arriving before the grants sent after it.

pub mod memory;
pub mod zenoh;

use crossbeam_channel::{Receiver, Sender};

use crate::error::FederatedError;
use crate::wire::{FromRti, ToRti};

/// What a federate receives.
#[derive(Debug)]
pub enum FederateEvent {
    /// A message from the coordinator.
    Rti(FromRti),
    /// A value on a physical connection, straight from the sending federate.
    Physical {
        /// The connection's index in the topology.
        link: u32,
        /// The value, postcard-encoded.
        payload: Vec<u8>,
    },
    /// The coordinator vanished.
    RtiLost,
    /// Something arrived in the program's inbox (a physical action from another thread): only
    /// wakes the federate's loop.
    Wake,
}

/// What the coordinator receives.
#[derive(Debug)]
pub enum CoordinatorEvent {
    /// A message from a federate.
    Message(ToRti),
    /// Federate `fed` (index) vanished (its liveliness ended).
    Lost(u32),
}

/// A federate's end of the transport.
pub trait FederateTransport: Send {
    /// Sends `msg` to the coordinator, after everything sent before it.
    ///
    /// # Errors
    /// When the transport cannot send.
    fn send(&self, msg: &ToRti) -> Result<(), FederatedError>;

    /// Sends a value on physical connection `link` straight to federate `to` (peer to peer, not
    /// through the coordinator).
    ///
    /// # Errors
    /// When the transport cannot send.
    fn send_physical(&self, to: u32, link: u32, payload: Vec<u8>) -> Result<(), FederatedError>;

    /// Where arrivals are delivered, in order.
    fn events(&self) -> &Receiver<FederateEvent>;

    /// A sender into [`FederateTransport::events`], for wake-ups from inside the process.
    fn waker(&self) -> Sender<FederateEvent>;

    /// Whether sending repeats lost joins: byte transports may drop a join sent before the
    /// coordinator listens, so the federate repeats it until the start arrives.
    fn repeats_join(&self) -> bool {
        false
    }
}

/// The coordinator's end of the transport.
pub trait CoordinatorTransport: Send {
    /// Sends `msg` to federate `to`, after everything sent to it before.
    ///
    /// # Errors
    /// When the transport cannot send.
    fn send(&self, to: u32, msg: &FromRti) -> Result<(), FederatedError>;

    /// Where arrivals are delivered, in order per federate.
    fn events(&self) -> &Receiver<CoordinatorEvent>;
}
