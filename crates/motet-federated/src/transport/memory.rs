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
    /// Every federate's events, for physical connections.
    peers: Vec<Sender<FederateEvent>>,
    events: Receiver<FederateEvent>,
    waker: Sender<FederateEvent>,
}

/// Makes the coordinator's end and one end per federate, for `n` federates.
pub fn network(n: usize) -> (MemoryCoordinator, Vec<MemoryFederate>) {
    let (to_rti, rti_events) = unbounded();
    let (to_feds, rxs): (Vec<_>, Vec<_>) = (0..n).map(|_| unbounded()).unzip();
    let feds = rxs
        .into_iter()
        .enumerate()
        .map(|(fed, rx)| MemoryFederate {
            fed: fed as u32,
            to_rti: to_rti.clone(),
            peers: to_feds.clone(),
            events: rx,
            waker: to_feds[fed].clone(),
        })
        .collect();
    (
        MemoryCoordinator {
            to_feds,
            events: rti_events,
        },
        feds,
    )
}

impl MemoryCoordinator {
    /// Ends the coordinator's connection as a crash would: every federate is told that it
    /// vanished (its liveliness ended).
    pub fn vanish(self) {
        for tx in &self.to_feds {
            let _ = tx.send(FederateEvent::RtiLost);
        }
    }
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

    fn send_physical(&self, to: u32, link: u32, payload: Vec<u8>) -> Result<(), FederatedError> {
        let tx = self
            .peers
            .get(to as usize)
            .ok_or_else(|| FederatedError::Transport(format!("no federate {to}")))?;
        // A federate that has ended drops its end; a late physical value is not needed.
        let _ = tx.send(FederateEvent::Physical { link, payload });
        Ok(())
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
