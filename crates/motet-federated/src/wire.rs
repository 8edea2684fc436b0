//! The coordination messages, after Lingua Franca's RTI protocol (reactor-c
//! `net_common.h`), and their encoding (serde + postcard) for transports that carry bytes.
//!
//! Federates send [`ToRti`] to the coordinator; the coordinator sends [`FromRti`] to each
//! federate. Tagged messages (values on logical connections) travel through the coordinator, as
//! reactor-c routes them: it forwards each one before any grant it computes afterwards, on the
//! same ordered channel, so no grant overtakes the data it covers. Port-absent messages take the
//! same route, so that on each connection values and absences arrive in tag order.

use motet_reactor_core::Tag;
use serde::{Deserialize, Serialize};

use crate::error::FederatedError;

/// A tag on the wire: nanoseconds since the start tag, and microstep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WireTag {
    /// Nanoseconds since the start tag.
    pub time: u64,
    /// The microstep.
    pub microstep: u32,
}

impl WireTag {
    /// The tag after every other: a federate with nothing left to do reports it (LF's `FOREVER`).
    pub const FOREVER: WireTag = WireTag {
        time: u64::MAX,
        microstep: u32::MAX,
    };

    /// The start tag.
    pub const ZERO: WireTag = WireTag {
        time: 0,
        microstep: 0,
    };
}

impl From<Tag> for WireTag {
    fn from(t: Tag) -> WireTag {
        WireTag {
            time: t.nanos(),
            microstep: t.microstep(),
        }
    }
}

impl From<WireTag> for Tag {
    fn from(t: WireTag) -> Tag {
        Tag::from_nanos(t.time, t.microstep)
    }
}

/// A message from a federate to the coordinator. The federate is named by its index in the
/// federation's [`Topology`](crate::Topology).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToRti {
    /// The federate is ready (LF's `FED_IDS`); `program` fingerprints the federation's topology,
    /// so that federates built from different programs are refused.
    Join {
        /// The federate.
        fed: u32,
        /// [`Topology::fingerprint`](crate::Topology::fingerprint) as the federate computed it.
        program: u64,
    },
    /// Next event tag (NET): the earliest tag at which the federate has an event.
    NextEventTag {
        /// The federate.
        fed: u32,
        /// The tag.
        tag: WireTag,
    },
    /// Latest tag completed (LTC).
    LatestTagComplete {
        /// The federate.
        fed: u32,
        /// The tag.
        tag: WireTag,
    },
    /// A value sent on a logical connection (LF's `TAGGED_MESSAGE`), for the connection's
    /// destination, at `tag` (the source's tag plus the connection's delay).
    Tagged {
        /// The sending federate.
        fed: u32,
        /// The connection's index in the topology.
        link: u32,
        /// The tag the value arrives at.
        tag: WireTag,
        /// The value, postcard-encoded.
        payload: Vec<u8>,
    },
    /// The federate will send nothing on a logical connection at `tag` (the source's tag plus
    /// the connection's delay): LF's `PORT_ABSENT`. Sent for connections into federates that
    /// process tags provisionally, once the reactions that could have sent have run.
    PortAbsent {
        /// The sending federate.
        fed: u32,
        /// The connection's index in the topology.
        link: u32,
        /// The tag at which nothing arrives.
        tag: WireTag,
    },
    /// A reaction of the federate requested a stop at `tag` (LF's `STOP_REQUEST`).
    StopRequest {
        /// The federate.
        fed: u32,
        /// The proposed stop tag.
        tag: WireTag,
    },
    /// The federate's answer to a stop request (LF's `STOP_REQUEST_REPLY`): the earliest tag it
    /// can stop at.
    StopReply {
        /// The federate.
        fed: u32,
        /// The tag.
        tag: WireTag,
    },
    /// The federate finished its run normally (LF's `RESIGN`).
    Resign {
        /// The federate.
        fed: u32,
    },
}

/// A message from the coordinator to one federate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FromRti {
    /// Every federate has joined: start, with the start tag at this physical time (nanoseconds
    /// since the Unix epoch).
    Start {
        /// Physical time of the start tag.
        start_ns: u64,
    },
    /// The federate was refused (a different program, an unknown index, a second join).
    Reject {
        /// Why.
        reason: String,
    },
    /// Tag advance grant (TAG): the federate may process every tag up to and including `tag`.
    Grant(WireTag),
    /// Provisional tag advance grant (PTAG): the federate may start `tag` but not complete it for
    /// inputs whose values are not known yet.
    ProvisionalGrant(WireTag),
    /// A value on a logical connection into this federate (forwarded [`ToRti::Tagged`]).
    Tagged {
        /// The connection's index in the topology.
        link: u32,
        /// The tag it arrives at.
        tag: WireTag,
        /// The value, postcard-encoded.
        payload: Vec<u8>,
    },
    /// Nothing arrives on a logical connection into this federate at `tag` (forwarded
    /// [`ToRti::PortAbsent`]).
    PortAbsent {
        /// The connection's index in the topology.
        link: u32,
        /// The tag at which nothing arrives.
        tag: WireTag,
    },
    /// Another federate requested a stop at `tag`: answer with [`ToRti::StopReply`].
    StopRequest(WireTag),
    /// Every federate stops at this tag (LF's `STOP_GRANTED`).
    StopGranted(WireTag),
    /// The coordinator took the federate's resignation: it may close its connection now without
    /// being taken for failed.
    Resigned,
    /// A federate failed (LF's `FAILED`): its name. The run goes on without it and ends with an
    /// error.
    Failed(String),
}

/// Encodes a message for a byte transport.
pub fn encode<T: Serialize>(msg: &T) -> Result<Vec<u8>, FederatedError> {
    postcard::to_stdvec(msg).map_err(|e| FederatedError::Codec(e.to_string()))
}

/// Decodes a message from a byte transport; malformed bytes are an error, never a panic.
pub fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, FederatedError> {
    postcard::from_bytes(bytes).map_err(|e| FederatedError::Codec(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let m = ToRti::Tagged {
            fed: 2,
            link: 1,
            tag: WireTag {
                time: 5,
                microstep: 1,
            },
            payload: vec![1, 2, 3],
        };
        assert_eq!(decode::<ToRti>(&encode(&m).unwrap()).unwrap(), m);
        let a = ToRti::PortAbsent {
            fed: 1,
            link: 0,
            tag: WireTag::ZERO,
        };
        assert_eq!(decode::<ToRti>(&encode(&a).unwrap()).unwrap(), a);
        let g = FromRti::Grant(WireTag::FOREVER);
        assert_eq!(decode::<FromRti>(&encode(&g).unwrap()).unwrap(), g);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode::<ToRti>(&[250, 250, 250]).is_err());
        assert!(decode::<FromRti>(&[]).is_err());
    }
}
