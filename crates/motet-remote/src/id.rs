//! Node identities and message type identities.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A node's identity: its Zenoh session id plus an incarnation counter. A node that was declared
/// down and comes back (a resumed process) rejoins under a new incarnation, so addresses of its
/// former incarnation stay dead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId {
    /// The Zenoh session id (random per session).
    pub zid: u128,
    /// Starts at 0; incremented each time the node rejoins after being declared down.
    pub incarnation: u32,
}

impl NodeId {
    /// The key chunk naming this node: `<zid hex>.<incarnation>`.
    pub fn key_chunk(&self) -> String {
        format!("{:032x}.{}", self.zid, self.incarnation)
    }

    /// Parses a key chunk made by [`NodeId::key_chunk`].
    pub fn parse_chunk(s: &str) -> Option<NodeId> {
        let (zid, inc) = s.split_once('.')?;
        Some(NodeId {
            zid: u128::from_str_radix(zid, 16).ok()?,
            incarnation: inc.parse().ok()?,
        })
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {:x}#{}", self.zid, self.incarnation)
    }
}

/// A message type that can cross nodes: serde-serialisable, with a stable wire name and a schema
/// version. Both ends must agree on both; a mismatch is rejected as a clear error
/// ([`FrameError::WrongType`](crate::FrameError::WrongType) /
/// [`FrameError::WrongVersion`](crate::FrameError::WrongVersion)), counted and never delivered.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use motet_remote::RemoteMsg;
///
/// #[derive(Serialize, Deserialize)]
/// enum Counter { Add(u64), Reset }
///
/// impl RemoteMsg for Counter {
///     const NAME: &'static str = "example.Counter";
///     const VERSION: u32 = 1;
/// }
/// ```
pub trait RemoteMsg: Serialize + DeserializeOwned + Send + 'static {
    /// The wire name of the type; its hash is the type id in every envelope. Keep it stable
    /// across builds (a crate path plus the type name is a good choice).
    const NAME: &'static str;
    /// The schema version; change it when the serialised form changes.
    const VERSION: u32 = 1;
}

/// The 64-bit type id of a wire name (FNV-1a).
pub fn type_id_of(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The type id of `M`.
pub(crate) fn type_id<M: RemoteMsg>() -> u64 {
    type_id_of(M::NAME)
}

macro_rules! remote_primitive {
    ($($t:ty),*) => {$(
        impl RemoteMsg for $t {
            const NAME: &'static str = stringify!($t);
        }
    )*};
}
remote_primitive!(u8, u16, u32, u64, i8, i16, i32, i64, bool, String, ());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_chunk_round_trips() {
        let id = NodeId {
            zid: 0xdead_beef,
            incarnation: 4,
        };
        assert_eq!(NodeId::parse_chunk(&id.key_chunk()), Some(id));
        assert_eq!(NodeId::parse_chunk("zz.1"), None);
        assert_eq!(NodeId::parse_chunk("12"), None);
    }

    #[test]
    fn type_ids_differ() {
        assert_ne!(type_id::<u64>(), type_id::<String>());
    }
}
