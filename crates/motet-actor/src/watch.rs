//! [`ExitWatch`]: waiting, from outside the actor system, for an actor to stop.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use motet_runtime::Handle;

use crate::exit::ExitReason;
use crate::oneshot::{Slot, SlotFuture};

/// Completes with an actor's exit reason. From [`Addr::watch`](crate::Addr::watch).
pub struct ExitWatch {
    slot: Arc<Slot<ExitReason>>,
    runtime: Handle,
}

impl ExitWatch {
    pub(crate) fn new(slot: Arc<Slot<ExitReason>>, runtime: Handle) -> ExitWatch {
        ExitWatch { slot, runtime }
    }

    /// Blocks until the actor stops. On a deterministic runtime, runs it on the calling thread; if it
    /// becomes quiescent with the actor still alive, this would never return, so it panics instead.
    pub fn wait(self) -> ExitReason {
        if self.runtime.seed().is_some() && !self.runtime.drive_until(|| self.slot.is_done()) {
            panic!("the runtime is quiescent but the watched actor has not stopped");
        }
        self.slot
            .wait(&self.runtime, None)
            .expect("no timeout given")
    }

    /// Blocks until the actor stops or `timeout` passes (then `None`).
    pub fn wait_timeout(self, timeout: Duration) -> Option<ExitReason> {
        self.slot.wait(&self.runtime, Some(timeout))
    }

    /// Whether the actor has stopped.
    pub fn is_done(&self) -> bool {
        self.slot.is_done()
    }
}

impl Future for ExitWatch {
    type Output = ExitReason;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ExitReason> {
        Pin::new(&mut SlotFuture(self.slot.clone())).poll(cx)
    }
}
