//! motet-remote: actors across processes and hosts, on Eclipse Zenoh.
//!
//! A [`Node`] is one Zenoh session (peer mode, multicast scouting off, explicit endpoints). A node
//! [`publish`](Node::publish)es local actors under names and [`lookup`](Node::lookup)s names
//! published anywhere in its namespace; a remote actor comes back as a plain
//! [`Addr<M>`](motet_actor::Addr) of a local *proxy*, so `tell`, `ask`, links and monitors work
//! unchanged, and local sends do not change at all. Messages are serde values ([`RemoteMsg`]: a
//! wire name and a schema version), encoded with postcard into an envelope that carries the
//! destination actor id; each node has one inbox subscriber.
//!
//! Failure semantics follow CAF and Akka: an actor's stop reaches remote monitors and links with
//! its reason; a lost node (crash, hang past the lease) turns every proxy of it into an exit with
//! [`ExitReason::NodeUnreachable`](motet_actor::ExitReason::NodeUnreachable) and fails the asks
//! waiting on it; a node declared down is quarantined, and a suspended process that resumes rejoins
//! as a new incarnation. See the crate README for guarantees, settings and detection times.
#![warn(missing_docs)]

/// Marks the end of a hop for the `hop-trace` feature (nothing without it).
macro_rules! hop {
    ($point:ident) => {
        #[cfg(feature = "hop-trace")]
        $crate::trace::mark($crate::trace::Point::$point);
    };
}

pub mod addr;
mod config;
mod context;
mod id;
mod inbound;
mod node;
mod outbound;
mod proxy;
mod reply;
mod stats;
#[doc(hidden)]
pub mod testing;
#[cfg(feature = "hop-trace")]
pub mod trace;
mod wire;

pub use config::{NodeConfig, TlsConfig};
pub use id::{type_id_of, NodeId, RemoteMsg};
pub use node::{LookupError, Node, NodeError};
pub use reply::RemoteReply;
pub use stats::Stats;
pub use wire::FrameError;

/// Decodes a frame header as a node's inbox does (for fuzzing and tests): `Ok` with the payload
/// length, or the error the node would count.
#[doc(hidden)]
pub fn check_frame(bytes: &[u8], max_frame: usize) -> Result<usize, FrameError> {
    wire::decode(bytes, max_frame).map(|(_, rest)| rest.len())
}
