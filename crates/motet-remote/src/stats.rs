//! Counters a node keeps: frames in and out, and every rejected frame by cause.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::wire::FrameError;

/// A snapshot of a node's counters ([`Node::stats`](crate::Node::stats)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Frames handed to Zenoh (or delivered to this node itself).
    pub frames_out: u64,
    /// Of `frames_out`, those the sending thread put itself, the queue being empty and the wire
    /// idle (see the README's design notes).
    pub frames_put_direct: u64,
    /// Frames received on this node's inbox.
    pub frames_in: u64,
    /// Messages delivered to a local actor's mailbox.
    pub delivered: u64,
    /// Frames rejected: larger than `max_frame`.
    pub rejected_oversized: u64,
    /// Frames rejected: truncated, garbage, or not a motet frame.
    pub rejected_malformed: u64,
    /// Frames rejected: addressed to an actor this node does not have.
    pub rejected_unknown_actor: u64,
    /// Frames rejected: wrong message type id or schema version.
    pub rejected_type: u64,
    /// Frames rejected: the payload did not decode.
    pub rejected_payload: u64,
    /// Frames rejected: sent by a quarantined incarnation.
    pub rejected_quarantined: u64,
    /// Messages a proxy could not encode (dropped, logged).
    pub encode_errors: u64,
    /// Peer incarnations declared down.
    pub nodes_lost: u64,
    /// Times this node rejoined as a new incarnation.
    pub rejoins: u64,
}

impl Stats {
    /// All rejected frames together.
    pub fn rejected(&self) -> u64 {
        self.rejected_oversized
            + self.rejected_malformed
            + self.rejected_unknown_actor
            + self.rejected_type
            + self.rejected_payload
            + self.rejected_quarantined
    }
}

#[derive(Default)]
pub(crate) struct Counters {
    pub frames_out: AtomicU64,
    pub frames_put_direct: AtomicU64,
    pub frames_in: AtomicU64,
    pub delivered: AtomicU64,
    oversized: AtomicU64,
    malformed: AtomicU64,
    unknown_actor: AtomicU64,
    wrong_type: AtomicU64,
    payload: AtomicU64,
    quarantined: AtomicU64,
    pub encode_errors: AtomicU64,
    pub nodes_lost: AtomicU64,
    pub rejoins: AtomicU64,
}

impl Counters {
    pub fn reject(&self, e: &FrameError) {
        let c = match e {
            FrameError::Oversized(_) => &self.oversized,
            FrameError::Malformed(_) | FrameError::BadMagic => &self.malformed,
            FrameError::UnknownActor(_) => &self.unknown_actor,
            FrameError::WrongType { .. } | FrameError::WrongVersion { .. } => &self.wrong_type,
            FrameError::BadPayload(_) => &self.payload,
            FrameError::Quarantined => &self.quarantined,
        };
        c.fetch_add(1, Relaxed);
    }

    pub fn snapshot(&self) -> Stats {
        Stats {
            frames_out: self.frames_out.load(Relaxed),
            frames_put_direct: self.frames_put_direct.load(Relaxed),
            frames_in: self.frames_in.load(Relaxed),
            delivered: self.delivered.load(Relaxed),
            rejected_oversized: self.oversized.load(Relaxed),
            rejected_malformed: self.malformed.load(Relaxed),
            rejected_unknown_actor: self.unknown_actor.load(Relaxed),
            rejected_type: self.wrong_type.load(Relaxed),
            rejected_payload: self.payload.load(Relaxed),
            rejected_quarantined: self.quarantined.load(Relaxed),
            encode_errors: self.encode_errors.load(Relaxed),
            nodes_lost: self.nodes_lost.load(Relaxed),
            rejoins: self.rejoins.load(Relaxed),
        }
    }
}
