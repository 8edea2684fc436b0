//! [`RemoteReply`]: a reply handle that can travel inside a message to another node.

use std::fmt;
use std::sync::{Arc, Mutex, Weak};

use motet_actor::Reply;
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::context;
use crate::id::{type_id, NodeId, RemoteMsg};
use crate::node::{Inner, PendingReply};
use crate::wire::{self, Body, FrameError};

enum State<R> {
    /// The asker is on this node.
    Local(Reply<R>),
    /// The asker is `to`; the answer goes to its pending ask `id`.
    Remote {
        node: Weak<Inner>,
        to: NodeId,
        id: u64,
    },
    /// Answered, or handed on to another node.
    Done,
}

/// The answering side of an ask, for messages that may cross nodes. Build it from the [`Reply`]
/// that [`Addr::ask`](motet_actor::Addr::ask) hands out (`RemoteReply::from(reply)`); answer with
/// [`RemoteReply::send`]. Sent to another node, it becomes a handle whose answer travels back to
/// the asker; dropped unanswered there, the ask fails with
/// [`AskError::Dropped`](motet_actor::AskError::Dropped), as it does when the asked node is lost.
/// A reply arriving after the ask timed out is dropped.
pub struct RemoteReply<R> {
    state: Mutex<State<R>>,
}

impl<R: RemoteMsg> From<Reply<R>> for RemoteReply<R> {
    fn from(reply: Reply<R>) -> Self {
        RemoteReply {
            state: Mutex::new(State::Local(reply)),
        }
    }
}

impl<R> fmt::Debug for RemoteReply<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RemoteReply(..)")
    }
}

impl<R: RemoteMsg> RemoteReply<R> {
    fn take(&self) -> State<R> {
        std::mem::replace(
            &mut *self.state.lock().unwrap_or_else(|e| e.into_inner()),
            State::Done,
        )
    }

    /// Answers the request. The value comes back if the asker already gave up (a local ask that
    /// timed out), if the answer could not be encoded, or if the handle was answered before.
    pub fn send(self, value: R) -> Result<(), R> {
        match self.take() {
            State::Local(reply) => reply.send(value),
            State::Remote { node, to, id } => {
                let Some(inner) = node.upgrade() else {
                    return Err(value);
                };
                let header = wire::encode_header(
                    inner.me(),
                    Body::Reply {
                        reply: id,
                        type_id: type_id::<R>(),
                        ok: true,
                    },
                );
                match context::with(&inner, to, || postcard::to_extend(&value, header)) {
                    Ok(frame) => {
                        inner.send_frame(to, frame);
                        Ok(())
                    }
                    Err(_) => Err(value),
                }
            }
            State::Done => Err(value),
        }
    }
}

impl<R> Drop for RemoteReply<R> {
    fn drop(&mut self) {
        let state = std::mem::replace(
            &mut *self.state.lock().unwrap_or_else(|e| e.into_inner()),
            State::Done,
        );
        if let State::Remote { node, to, id } = state {
            if let Some(inner) = node.upgrade() {
                inner.send_control(
                    to,
                    Body::Reply {
                        reply: id,
                        type_id: 0,
                        ok: false,
                    },
                );
            }
        }
    }
}

#[derive(Serialize, Deserialize)]
struct WireReply {
    node: NodeId,
    id: u64,
    type_id: u64,
}

impl<R: RemoteMsg> Serialize for RemoteReply<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (inner, peer) = context::current()
            .ok_or_else(|| S::Error::custom("a RemoteReply is only encoded by a motet node"))?;
        let wire = match self.take() {
            State::Local(reply) => {
                let slot = Arc::new(Mutex::new(Some(reply)));
                let id = inner.add_reply(PendingReply {
                    node: peer,
                    type_id: type_id::<R>(),
                    complete: Box::new(move |payload| {
                        let reply = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                        let Some(reply) = reply else { return Ok(()) };
                        match payload {
                            // Dropping the reply fails the ask with `Dropped`.
                            None => Ok(()),
                            Some(bytes) => {
                                let value: R = postcard::from_bytes(bytes)
                                    .map_err(|e| FrameError::BadPayload(e.to_string()))?;
                                let _ = reply.send(value);
                                Ok(())
                            }
                        }
                    }),
                });
                WireReply {
                    node: inner.me(),
                    id,
                    type_id: type_id::<R>(),
                }
            }
            State::Remote { to, id, .. } => WireReply {
                node: to,
                id,
                type_id: type_id::<R>(),
            },
            State::Done => return Err(S::Error::custom("a RemoteReply was encoded twice")),
        };
        wire.serialize(s)
    }
}

impl<'de, R: RemoteMsg> Deserialize<'de> for RemoteReply<R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = WireReply::deserialize(d)?;
        if wire.type_id != type_id::<R>() {
            return Err(D::Error::custom("a RemoteReply for another value type"));
        }
        let (inner, _) = context::current()
            .ok_or_else(|| D::Error::custom("a RemoteReply is only decoded by a motet node"))?;
        Ok(RemoteReply {
            state: Mutex::new(State::Remote {
                node: Arc::downgrade(&inner),
                to: wire.node,
                id: wire.id,
            }),
        })
    }
}
