//! The envelope: what one Zenoh sample on a node's inbox carries, and its checked decoder.
//!
//! A frame is a postcard-encoded [`Header`] followed by the payload bytes (a postcard-encoded
//! message or reply value). The header names the sending node, and for data the destination actor
//! id (as CAF's BASP `dest_actor`), the message type id and its schema version. The decoder checks
//! the magic and protocol version and the frame size before anything reaches an actor; every
//! rejection is a [`FrameError`], counted by the node and never delivered.

use std::fmt;

use motet_actor::ExitReason;
use serde::{Deserialize, Serialize};

use crate::id::NodeId;

/// First two bytes of every frame header ("mt").
pub(crate) const MAGIC: u16 = 0x6d74;
/// The version of this envelope format.
pub(crate) const PROTOCOL: u8 = 1;

/// The fixed part of a frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Header {
    pub magic: u16,
    pub protocol: u8,
    /// The sending node (its current incarnation).
    pub from: NodeId,
    pub body: Body,
}

/// What a frame is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Body {
    /// A message for actor `dest`; the payload is the postcard-encoded message.
    Tell {
        dest: u64,
        type_id: u64,
        version: u32,
    },
    /// The answer to the ask registered as `reply` on the receiving node; with `ok`, the payload is
    /// the postcard-encoded value, without it the asked side dropped the request unanswered.
    Reply { reply: u64, type_id: u64, ok: bool },
    /// The sender holds a proxy of actor `target`: report its end with a `Down` frame.
    Monitor { target: u64 },
    /// Actor `target` (of the sending node) stopped.
    Down { target: u64, reason: WireReason },
    /// A local actor linked to the proxy of `target` stopped abnormally: stop `target` likewise.
    LinkExit { target: u64, reason: WireReason },
    /// The receiver's incarnation `you` was declared down by the sender: it must rejoin as a new
    /// incarnation.
    Quarantined { you: NodeId },
    /// Consecutive frames for the receiver, in order: the payload is each frame (header and
    /// payload) behind its length as 4 little-endian bytes. A batch never holds a batch.
    Batch,
}

/// [`ExitReason`] as it travels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum WireReason {
    Normal,
    Unreachable,
    Killed,
    Shutdown,
    Panicked(String),
    RestartLimit,
    AlreadyExited,
    Error(String),
    NodeUnreachable,
}

impl From<&ExitReason> for WireReason {
    fn from(r: &ExitReason) -> WireReason {
        match r {
            ExitReason::Normal => WireReason::Normal,
            ExitReason::Unreachable => WireReason::Unreachable,
            ExitReason::Killed => WireReason::Killed,
            ExitReason::Shutdown => WireReason::Shutdown,
            ExitReason::Panicked(m) => WireReason::Panicked(m.to_string()),
            ExitReason::RestartLimit => WireReason::RestartLimit,
            ExitReason::AlreadyExited => WireReason::AlreadyExited,
            ExitReason::Error(m) => WireReason::Error(m.to_string()),
            ExitReason::NodeUnreachable => WireReason::NodeUnreachable,
        }
    }
}

impl From<WireReason> for ExitReason {
    fn from(r: WireReason) -> ExitReason {
        match r {
            WireReason::Normal => ExitReason::Normal,
            WireReason::Unreachable => ExitReason::Unreachable,
            WireReason::Killed => ExitReason::Killed,
            WireReason::Shutdown => ExitReason::Shutdown,
            WireReason::Panicked(m) => ExitReason::Panicked(m.into()),
            WireReason::RestartLimit => ExitReason::RestartLimit,
            WireReason::AlreadyExited => ExitReason::AlreadyExited,
            WireReason::Error(m) => ExitReason::Error(m.into()),
            WireReason::NodeUnreachable => ExitReason::NodeUnreachable,
        }
    }
}

/// Why a received frame was rejected. Each is counted in [`Stats`](crate::Stats) and logged; the
/// frame is dropped and never reaches an actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// Larger than the node's `max_frame` setting (the size given).
    Oversized(usize),
    /// The header could not be decoded: truncated or garbage bytes (postcard's message).
    Malformed(String),
    /// The magic number or protocol version is not this implementation's.
    BadMagic,
    /// The destination actor is not published or exported by this node (any more).
    UnknownActor(u64),
    /// The frame's message type id is not the destination actor's.
    WrongType {
        /// The type id the actor accepts.
        expected: u64,
        /// The type id in the frame.
        got: u64,
    },
    /// Same message type, another schema version.
    WrongVersion {
        /// This node's version of the message type.
        expected: u32,
        /// The version in the frame.
        got: u32,
    },
    /// The payload did not decode as the message type (postcard's message).
    BadPayload(String),
    /// The sending incarnation is quarantined.
    Quarantined,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Oversized(n) => write!(f, "frame of {n} bytes exceeds the maximum"),
            FrameError::Malformed(m) => write!(f, "malformed frame header: {m}"),
            FrameError::BadMagic => f.write_str("not a motet frame (magic or protocol version)"),
            FrameError::UnknownActor(id) => write!(f, "no actor {id} on this node"),
            FrameError::WrongType { expected, got } => write!(
                f,
                "message type id {got:#018x} does not match the actor's {expected:#018x}"
            ),
            FrameError::WrongVersion { expected, got } => write!(
                f,
                "message schema version {got} does not match the actor's {expected}"
            ),
            FrameError::BadPayload(m) => write!(f, "payload does not decode: {m}"),
            FrameError::Quarantined => f.write_str("frame from a quarantined node incarnation"),
        }
    }
}

impl std::error::Error for FrameError {}

/// Encodes a header into a fresh buffer; the payload is appended by the caller.
pub(crate) fn encode_header(from: NodeId, body: Body) -> Vec<u8> {
    let header = Header {
        magic: MAGIC,
        protocol: PROTOCOL,
        from,
        body,
    };
    postcard::to_extend(&header, Vec::with_capacity(64)).expect("a header always encodes")
}

/// Decodes and checks a frame's header; returns it with the payload bytes that follow it.
pub(crate) fn decode(frame: &[u8], max_frame: usize) -> Result<(Header, &[u8]), FrameError> {
    if frame.len() > max_frame {
        return Err(FrameError::Oversized(frame.len()));
    }
    let (header, rest): (Header, &[u8]) =
        postcard::take_from_bytes(frame).map_err(|e| FrameError::Malformed(e.to_string()))?;
    if header.magic != MAGIC || header.protocol != PROTOCOL {
        return Err(FrameError::BadMagic);
    }
    Ok((header, rest))
}

/// Encodes consecutive frames for one destination as one [`Body::Batch`] frame.
pub(crate) fn encode_batch(from: NodeId, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = encode_header(from, Body::Batch);
    out.reserve(frames.iter().map(|f| f.len() + 4).sum());
    for f in frames {
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}

/// Splits a batch's payload into its frames; a length that runs past the end (or an empty batch)
/// rejects the whole batch before any of it is delivered.
pub(crate) fn batch_frames(mut payload: &[u8]) -> Result<Vec<&[u8]>, FrameError> {
    let mut frames = Vec::new();
    while !payload.is_empty() {
        let Some((len, rest)) = payload.split_first_chunk::<4>() else {
            return Err(FrameError::Malformed("truncated batch length".into()));
        };
        let len = u32::from_le_bytes(*len) as usize;
        if len > rest.len() {
            return Err(FrameError::Malformed(format!(
                "batch entry of {len} bytes, {} left",
                rest.len()
            )));
        }
        let (frame, rest) = rest.split_at(len);
        frames.push(frame);
        payload = rest;
    }
    if frames.is_empty() {
        return Err(FrameError::Malformed("empty batch".into()));
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> NodeId {
        NodeId {
            zid: 0x1234_5678_9abc_def0,
            incarnation: 3,
        }
    }

    #[test]
    fn round_trip() {
        let body = Body::Tell {
            dest: 7,
            type_id: 99,
            version: 2,
        };
        let mut frame = encode_header(node(), body.clone());
        frame.extend_from_slice(b"payload");
        let (h, rest) = decode(&frame, 1 << 20).unwrap();
        assert_eq!(h.from, node());
        assert_eq!(h.body, body);
        assert_eq!(rest, b"payload");
    }

    #[test]
    fn truncated_garbage_and_oversized_are_rejected() {
        let frame = encode_header(
            node(),
            Body::Down {
                target: 1,
                reason: WireReason::Error("x".into()),
            },
        );
        for cut in 0..frame.len() {
            assert!(decode(&frame[..cut], 1 << 20).is_err(), "cut at {cut}");
        }
        assert!(matches!(
            decode(&[0xff; 40], 1 << 20),
            Err(FrameError::Malformed(_)) | Err(FrameError::BadMagic)
        ));
        assert_eq!(decode(&frame, 4), Err(FrameError::Oversized(frame.len())));
        let mut wrong = frame.clone();
        wrong[0] ^= 1;
        assert!(decode(&wrong, 1 << 20).is_err());
    }

    #[test]
    fn a_batch_splits_into_its_frames_in_order() {
        let frames: Vec<Vec<u8>> = (0..5u64)
            .map(|i| {
                let mut f = encode_header(
                    node(),
                    Body::Tell {
                        dest: i,
                        type_id: 1,
                        version: 1,
                    },
                );
                f.extend_from_slice(&i.to_le_bytes()[..(i as usize)]);
                f
            })
            .collect();
        let batch = encode_batch(node(), &frames);
        let (h, payload) = decode(&batch, 1 << 20).unwrap();
        assert_eq!(h.body, Body::Batch);
        let got = batch_frames(payload).unwrap();
        assert_eq!(got, frames.iter().map(|f| f.as_slice()).collect::<Vec<_>>());
    }

    #[test]
    fn a_truncated_or_empty_batch_is_rejected_whole() {
        let frames = vec![vec![1u8, 2, 3], vec![4u8; 10]];
        let batch = encode_batch(node(), &frames);
        let (_, payload) = decode(&batch, 1 << 20).unwrap();
        // A cut at the end of the first entry leaves a whole batch of one frame.
        let boundary = 4 + frames[0].len();
        assert_eq!(batch_frames(&payload[..boundary]), Ok(vec![&frames[0][..]]));
        for cut in (0..payload.len()).filter(|&c| c != boundary) {
            assert!(
                matches!(batch_frames(&payload[..cut]), Err(FrameError::Malformed(_))),
                "cut at {cut}"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            let _ = decode(&bytes, 128);
            let _ = batch_frames(&bytes);
        }
    }
}
