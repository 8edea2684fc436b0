//! What can go wrong: when a program is built ([`BuildError`], [`Warning`]) and when it runs
//! ([`RunError`]).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Why a program could not be built. Every variant names the elements involved by their full
/// names (`main.sink.in`, `main.a.reaction 1 "forward"`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The reaction graph has a causality cycle; the reactions on it, in order (the first repeats
    /// at the end).
    Cycle(Vec<String>),
    /// An input marked as required has no connection and no writer.
    UnconnectedInput(String),
    /// A port has more than one source (two connections, or a connection and a writing reaction).
    MultipleSources {
        /// The port.
        port: String,
        /// Its sources.
        sources: Vec<String>,
    },
    /// A connection joins ports that cannot be connected (for example two inputs of siblings).
    InvalidConnection {
        /// Source port.
        from: String,
        /// Destination port.
        to: String,
        /// Why.
        reason: &'static str,
    },
    /// A reaction declares something outside its scope or in a role it cannot have.
    InvalidDeclaration {
        /// The reaction.
        reaction: String,
        /// The element declared.
        element: String,
        /// Why.
        reason: &'static str,
    },
    /// A handle of another program was used.
    ForeignHandle(String),
    /// Ports joined into one chain form a loop.
    PortLoop(String),
    /// A mutation connects lists of ports of different widths (a program's connection only warns,
    /// see [`Warning::WidthMismatch`]; a mutation's is rejected).
    WidthMismatch {
        /// The first source and destination ports, to locate the connection.
        connection: String,
        /// Channels on the left.
        from: usize,
        /// Channels on the right.
        to: usize,
    },
    /// A mutation asks for something mutations do not do; the element and the reason.
    Mutation {
        /// The element (reactor, port, connection).
        element: String,
        /// Why.
        reason: &'static str,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Cycle(path) => {
                write!(
                    f,
                    "causality cycle through the reactions: {}",
                    path.join(" -> ")
                )
            }
            BuildError::UnconnectedInput(p) => {
                write!(f, "required input {p} is not connected")
            }
            BuildError::MultipleSources { port, sources } => {
                write!(
                    f,
                    "port {port} has more than one source: {}",
                    sources.join(", ")
                )
            }
            BuildError::InvalidConnection { from, to, reason } => {
                write!(f, "cannot connect {from} to {to}: {reason}")
            }
            BuildError::InvalidDeclaration {
                reaction,
                element,
                reason,
            } => write!(f, "reaction {reaction} cannot declare {element}: {reason}"),
            BuildError::ForeignHandle(what) => {
                write!(f, "{what} belongs to another program")
            }
            BuildError::PortLoop(p) => write!(f, "port connections form a loop through {p}"),
            BuildError::WidthMismatch {
                connection,
                from,
                to,
            } => write!(
                f,
                "connection {connection}: {from} source channel(s) but {to} destination channel(s)"
            ),
            BuildError::Mutation { element, reason } => {
                write!(f, "mutation rejected at {element}: {reason}")
            }
        }
    }
}

/// Something legal but probably unintended, found while building (as LF's compiler warns).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// The two sides of a connection have different numbers of channels; only the first
    /// `min(from, to)` are connected.
    WidthMismatch {
        /// The first source and destination ports, to locate the connection.
        connection: String,
        /// Channels on the left.
        from: usize,
        /// Channels on the right.
        to: usize,
    },
    /// A broadcast whose destination width is not a multiple of its source width.
    UnevenBroadcast {
        /// The connection.
        connection: String,
        /// Channels on the left.
        from: usize,
        /// Channels on the right.
        to: usize,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::WidthMismatch {
                connection,
                from,
                to,
            } => write!(
                f,
                "connection {connection}: {from} source channel(s) but {to} destination channel(s); {} left unconnected",
                from.abs_diff(*to)
            ),
            Warning::UnevenBroadcast {
                connection,
                from,
                to,
            } => write!(
                f,
                "broadcast {connection}: {to} destination channel(s) is not a multiple of {from} source channel(s)"
            ),
        }
    }
}

/// Why a run stopped with an error. The run stops at the end of the tag in which the error
/// happened (after the reactions already running finish); no shutdown reactions run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// A reaction used a port, action or mode that it did not declare in the needed role.
    Undeclared {
        /// The reaction.
        reaction: String,
        /// What it used, and how (`set main.a.out`, `schedule main.a.tick`).
        access: String,
    },
    /// A handle of another program was used inside a reaction.
    ForeignHandle {
        /// The reaction.
        reaction: String,
    },
    /// A reaction body panicked (std builds only); the panic message.
    Panicked {
        /// The reaction.
        reaction: String,
        /// The panic message.
        message: String,
    },
    /// A physical action received a value of the wrong type or from another program.
    BadPhysicalValue {
        /// The action.
        action: String,
    },
    /// An [`IrqSender`](crate::IrqSender)'s ring was full: values sent to the action were lost.
    PhysicalOverflow {
        /// The action.
        action: String,
        /// How many values were refused (counted since the last time the scheduler looked).
        lost: u32,
    },
    /// The runtime the program ran on shut down before the program finished.
    RuntimeShutDown,
    /// A value sent for an exact tag
    /// ([`PhysicalSender::send_at_tag`](crate::PhysicalSender::send_at_tag)) arrived after the
    /// scheduler had passed that tag.
    LateArrival {
        /// The action.
        action: String,
        /// The tag the value was for.
        tag: crate::Tag,
        /// The tag the scheduler had reached.
        current: crate::Tag,
    },
    /// [`run_table`](crate::run_table) was given a program with ports, actions or modes, which
    /// only [`run_sequential`](crate::run_sequential) and the parallel schedulers run.
    NotTimed,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Undeclared { reaction, access } => write!(
                f,
                "reaction {reaction} did not declare what it used: {access}"
            ),
            RunError::ForeignHandle { reaction } => {
                write!(f, "reaction {reaction} used a handle of another program")
            }
            RunError::Panicked { reaction, message } => {
                write!(f, "reaction {reaction} panicked: {message}")
            }
            RunError::BadPhysicalValue { action } => {
                write!(
                    f,
                    "physical action {action} received a value it cannot take"
                )
            }
            RunError::PhysicalOverflow { action, lost } => write!(
                f,
                "physical action {action}: {lost} values lost to a full interrupt-safe ring"
            ),
            RunError::RuntimeShutDown => f.write_str("the runtime shut down during the run"),
            RunError::LateArrival {
                action,
                tag,
                current,
            } => write!(
                f,
                "action {action} received a value for tag {tag} after the run had reached {current}"
            ),
            RunError::NotTimed => f.write_str(
                "run_table runs programs of timers, startup and shutdown only; this one has ports, actions or modes",
            ),
        }
    }
}

impl core::error::Error for BuildError {}
impl core::error::Error for RunError {}
