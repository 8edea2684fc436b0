//! The coordinator's loop: the [`Coordinator`] state machine over a [`CoordinatorTransport`],
//! until every federate has resigned or failed.

use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;

use crate::coordinator::Coordinator;
use crate::error::FederatedError;
use crate::program::unix_now;
use crate::topology::Topology;
use crate::transport::{CoordinatorEvent, CoordinatorTransport};

/// How the coordinator runs.
#[derive(Clone, Copy, Debug)]
pub struct CoordinatorOptions {
    /// The start tag lies this long after the last federate joined (LF's `DELAY_START`), so that
    /// every federate has the start message before it is due.
    pub start_delay: Duration,
    /// How long to wait for every federate to join.
    pub join_timeout: Duration,
}

impl Default for CoordinatorOptions {
    fn default() -> Self {
        CoordinatorOptions {
            start_delay: Duration::from_millis(100),
            join_timeout: Duration::from_secs(30),
        }
    }
}

/// What the coordinator did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CoordinatorReport {
    /// Messages received from federates.
    pub received: u64,
    /// Messages sent to federates.
    pub sent: u64,
}

/// Coordinates the federation of `topology` over `transport` until every federate has ended.
///
/// # Errors
/// [`FederatedError::Timeout`] when not every federate joins in time;
/// [`FederatedError::FederateFailed`] when federates failed during the run (the others were
/// coordinated to their end).
pub fn run_coordinator(
    topology: Topology,
    transport: &dyn CoordinatorTransport,
    options: &CoordinatorOptions,
) -> Result<CoordinatorReport, FederatedError> {
    let start_delay = u64::try_from(options.start_delay.as_nanos()).unwrap_or(u64::MAX);
    let mut c = Coordinator::new(topology, start_delay);
    let mut report = CoordinatorReport::default();
    let join_deadline = Instant::now() + options.join_timeout;
    while !c.finished() {
        let ev = if c.started() {
            transport
                .events()
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            transport.events().recv_deadline(join_deadline)
        };
        let out = match ev {
            Ok(CoordinatorEvent::Message(m)) => {
                report.received += 1;
                c.handle(m, unix_now())
            }
            Ok(CoordinatorEvent::Lost(f)) => c.federate_failed(f),
            Err(RecvTimeoutError::Timeout) => {
                return Err(FederatedError::Timeout("every federate to join"))
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(FederatedError::Transport("the transport closed".into()))
            }
        };
        for (to, msg) in out {
            report.sent += 1;
            // A federate that cannot be reached is found out through its liveliness.
            let _ = transport.send(to, &msg);
        }
    }
    if !c.failures().is_empty() {
        return Err(FederatedError::FederateFailed(c.failures().to_vec()));
    }
    Ok(report)
}
