//! What can go wrong in a federated run.

use core::fmt;

use motet_reactor_core::{BuildError, RunError};

/// An error of a federated program: building it, joining the federation, or running it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FederatedError {
    /// The program did not build.
    Build(BuildError),
    /// The federation is malformed: a reactor without a federate, an unknown federate name, a
    /// plain connection between federates, a zero-delay cycle between federates.
    Federation(String),
    /// The coordinator refused the federate (a different program, a second federate with the same
    /// name).
    Rejected(String),
    /// The program's run failed.
    Run(RunError),
    /// A federate failed during the run (its process died or lost its connection); the others
    /// finished their runs without it.
    FederateFailed(Vec<String>),
    /// The coordinator vanished during the run.
    CoordinatorLost,
    /// Waiting timed out (joining, or for the coordinator).
    Timeout(&'static str),
    /// A message could not be encoded or decoded.
    Codec(String),
    /// The transport failed (Zenoh).
    Transport(String),
}

impl fmt::Display for FederatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FederatedError::Build(e) => write!(f, "the program did not build: {e}"),
            FederatedError::Federation(why) => write!(f, "malformed federation: {why}"),
            FederatedError::Rejected(why) => write!(f, "the coordinator refused: {why}"),
            FederatedError::Run(e) => write!(f, "the run failed: {e}"),
            FederatedError::FederateFailed(names) => {
                write!(f, "federate(s) failed during the run: {}", names.join(", "))
            }
            FederatedError::CoordinatorLost => f.write_str("the coordinator vanished"),
            FederatedError::Timeout(what) => write!(f, "timed out waiting for {what}"),
            FederatedError::Codec(e) => write!(f, "malformed message: {e}"),
            FederatedError::Transport(e) => write!(f, "transport: {e}"),
        }
    }
}

impl std::error::Error for FederatedError {}
