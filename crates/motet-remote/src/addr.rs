//! Addresses inside messages: a serde `with` module that makes an [`Addr<M>`] field travel as a
//! working remote address.
//!
//! While a node encodes a message, a local address is exported (entered in the node's table, so
//! frames can reach it) and written as (node, actor id, type id); a proxy is written as the remote
//! actor it stands for. While a node decodes, the triple becomes the local actor (if it is this
//! node's), a proxy (created once per remote actor and message type), or, for a dead or
//! quarantined incarnation, an address that has already stopped.
//!
//! ```
//! use motet_actor::Addr;
//! use motet_remote::RemoteMsg;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Subscribe {
//!     #[serde(with = "motet_remote::addr")]
//!     to: Addr<String>,
//! }
//! impl RemoteMsg for Subscribe {
//!     const NAME: &'static str = "example.Subscribe";
//! }
//! ```

use motet_actor::Addr;
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::context;
use crate::id::{type_id, NodeId, RemoteMsg};

#[derive(Serialize, Deserialize)]
struct WireAddr {
    node: NodeId,
    actor: u64,
    type_id: u64,
}

/// Encodes `addr` (only while a node encodes a message; otherwise an error).
pub fn serialize<M: RemoteMsg, S: Serializer>(addr: &Addr<M>, s: S) -> Result<S::Ok, S::Error> {
    let (inner, _) = context::current()
        .ok_or_else(|| S::Error::custom("an Addr is only encoded by a motet node"))?;
    let remote = inner.lock().proxy_ids.get(&addr.id().as_u64()).copied();
    let (node, actor) = match remote {
        Some(r) => r,
        None => {
            inner.export(addr);
            (inner.me(), addr.id().as_u64())
        }
    };
    WireAddr {
        node,
        actor,
        type_id: type_id::<M>(),
    }
    .serialize(s)
}

/// Decodes an address (only while a node decodes a message; otherwise an error).
pub fn deserialize<'de, M: RemoteMsg, D: Deserializer<'de>>(d: D) -> Result<Addr<M>, D::Error> {
    let wire = WireAddr::deserialize(d)?;
    if wire.type_id != type_id::<M>() {
        return Err(D::Error::custom("an Addr of another message type"));
    }
    let (inner, _) = context::current()
        .ok_or_else(|| D::Error::custom("an Addr is only decoded by a motet node"))?;
    inner
        .resolve::<M>(wire.node, wire.actor, false)
        .ok_or_else(|| D::Error::custom("unresolvable address"))
}
