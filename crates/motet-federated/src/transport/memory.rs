//! An in-memory transport: crossbeam channels between threads of one process, for deterministic
//! tests of the coordination without a network. Dropping a federate's end tells the coordinator
//! that the federate vanished (unless it resigned first), as a Zenoh liveliness token would.

use crossbeam_channel::{unbounded, Receiver, Sender};

use super::{CoordinatorEvent, CoordinatorTransport, FederateEvent, FederateTransport};
use crate::error::FederatedError;
use crate::wire::{FromRti, ToRti};

/// The coordinator's end.
#[derive(Debug)]
pub struct MemoryCoordinator {
    to_feds: Vec<Sender<FederateEvent>>,
    events: Receiver<CoordinatorEvent>,
}

/// A federate's end.
#[derive(Debug)]
pub struct MemoryFederate {
    fed: u32,
    to_rti: Sender<CoordinatorEvent>,
    events: Receiver<FederateEvent>,
    waker: Sender<FederateEvent>,
}

/// Makes the coordinator's end and one end per federate, for `n` federates.
pub fn network(n: usize) -> (MemoryCoordinator, Vec<MemoryFederate>) {
    let (to_rti, rti_events) = unbounded();
    let mut to_feds = Vec::new();
    let mut feds = Vec::new();
    for fed in 0..n {
        let (tx, rx) = unbounded();
        to_feds.push(tx.clone());
        feds.push(MemoryFederate {
            fed: fed as u32,
            to_rti: to_rti.clone(),
            events: rx,
            waker: tx,
        });
    }
    (
        MemoryCoordinator {
            to_feds,
            events: rti_events,
        },
        feds,
    )
}

impl CoordinatorTransport for MemoryCoordinator {
    fn send(&self, to: u32, msg: &FromRti) -> Result<(), FederatedError> {
        let tx = self
            .to_feds
            .get(to as usize)
            .ok_or_else(|| FederatedError::Transport(format!("no federate {to}")))?;
        // A federate that has ended drops its end; what is sent to it then is not needed.
        let _ = tx.send(FederateEvent::Rti(msg.clone()));
        Ok(())
    }

    fn events(&self) -> &Receiver<CoordinatorEvent> {
        &self.events
    }
}

impl FederateTransport for MemoryFederate {
    fn send(&self, msg: &ToRti) -> Result<(), FederatedError> {
        self.to_rti
            .send(CoordinatorEvent::Message(msg.clone()))
            .map_err(|_| FederatedError::CoordinatorLost)
    }

    fn events(&self) -> &Receiver<FederateEvent> {
        &self.events
    }

    fn waker(&self) -> Sender<FederateEvent> {
        self.waker.clone()
    }
}

impl MemoryFederate {
    /// Ends this federate's connection as a crash would: the coordinator is told that it
    /// vanished (its liveliness ended).
    pub fn vanish(self) {
        let _ = self.to_rti.send(CoordinatorEvent::Lost(self.fed));
    }
}
