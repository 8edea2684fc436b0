//! Why a behaviour produced no result.

use std::fmt;

/// Why a [`Promise`](crate::Promise) holds no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhenError {
    /// The behaviour panicked; its cowns were released and the behaviours after it ran as usual.
    /// Holds the panic message.
    Panicked(String),
    /// The runtime shut down before the behaviour ran; its closure was dropped unrun.
    Cancelled,
    /// The `when` named one cown more than once with write access (see [`when`](crate::when)):
    /// nothing was spawned and the closure was dropped.
    DuplicateCown,
    /// The `when` named no cown (an empty dynamic set): nothing was spawned.
    NoCowns,
}

impl fmt::Display for WhenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhenError::Panicked(msg) => write!(f, "the behaviour panicked: {msg}"),
            WhenError::Cancelled => f.write_str("the runtime shut down before the behaviour ran"),
            WhenError::DuplicateCown => {
                f.write_str("a cown was named twice in one `when` with write access")
            }
            WhenError::NoCowns => f.write_str("a `when` named no cown"),
        }
    }
}

impl std::error::Error for WhenError {}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}
