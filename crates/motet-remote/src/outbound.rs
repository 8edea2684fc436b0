//! The per-node outbound queue and the thread that drains it into Zenoh.
//!
//! Proxies (running on runtime workers) and the node's control paths push encoded frames into an
//! unbounded channel, so a send never blocks a worker. One thread per node takes frames in order and
//! puts each on the destination node's inbox key through that destination's Zenoh publishers (a batching and an express one, on one key and priority)
//! (reliable, which is Zenoh's default and whose setter is unstable; `CongestionControl::Block`; one priority for data and control): when Zenoh's
//! transmission queue is full, this thread waits, the channel grows, and
//! [`Node::wait_writable`](crate::Node::wait_writable) makes threads that call it wait. Frames for
//! this node itself are handed to its own receive path, in the same order. Frames for one node that
//! wait behind each other leave as one batch sample.

use std::collections::hash_map::{Entry, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crossbeam_channel::Receiver;
use zenoh::qos::{CongestionControl, Priority};
use zenoh::Wait;

use crate::id::NodeId;
use crate::node::Inner;
use crate::wire;

/// What the drain thread is given.
pub(crate) enum Outgoing {
    /// A frame for node `dest`.
    Frame { dest: NodeId, bytes: Vec<u8> },
    /// Forget the publisher of a node declared down.
    Forget(NodeId),
    /// Stop the thread.
    Stop,
}

/// Most frames one batch holds.
const BATCH_FRAMES: usize = 256;
/// Most bytes one batch holds (it is also kept under the node's own `max_frame`): about one Zenoh
/// transmission batch, so a batch is not split into fragments.
const BATCH_BYTES: usize = 60 * 1024;

/// The drain loop; returns when told to stop or when the node is gone.
///
/// Frames for one destination that are already queued behind each other leave as one
/// [`Body::Batch`](crate::wire::Body::Batch) sample (up to [`BATCH_FRAMES`] and [`BATCH_BYTES`]):
/// the batch keeps their order, and the first item for anything else is handled next, so the
/// queue's order is kept.
pub(crate) fn drain(
    node: Weak<Inner>,
    session: zenoh::Session,
    namespace: String,
    queue: Receiver<Outgoing>,
    queued: Arc<AtomicU64>,
) {
    // Per destination: a batching publisher and an express one, on the same key and priority (so
    // in the same transmission queue of the link, which keeps their frames in order).
    let mut publishers: HashMap<NodeId, [zenoh::pubsub::Publisher<'static>; 2]> = HashMap::new();
    // An item taken off the queue while filling a batch, handled next.
    let mut next: Option<Outgoing> = None;
    loop {
        let item = match next.take() {
            Some(item) => item,
            None => match queue.recv() {
                Ok(item) => item,
                Err(_) => break,
            },
        };
        match item {
            Outgoing::Stop => break,
            Outgoing::Forget(id) => {
                publishers.remove(&id);
            }
            Outgoing::Frame { dest, bytes } => {
                hop!(Drained);
                let Some(inner) = node.upgrade() else { break };
                inner.counters.frames_out.fetch_add(1, Ordering::Relaxed);
                if dest == inner.me() {
                    inner.receive(&bytes);
                    queued.fetch_sub(1, Ordering::Relaxed);
                    continue;
                }
                let limit = BATCH_BYTES.min(inner.config.max_frame.saturating_sub(64));
                let mut frames = vec![bytes];
                let mut size = frames[0].len() + 4;
                while frames.len() < BATCH_FRAMES {
                    match queue.try_recv() {
                        Ok(Outgoing::Frame { dest: d, bytes: b })
                            if d == dest && size + b.len() + 4 <= limit =>
                        {
                            size += b.len() + 4;
                            frames.push(b);
                        }
                        Ok(other) => {
                            next = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                let count = frames.len() as u64;
                let sample = if frames.len() == 1 {
                    frames.pop().expect("one frame")
                } else {
                    inner
                        .counters
                        .frames_out
                        .fetch_add(count - 1, Ordering::Relaxed);
                    wire::encode_batch(inner.me(), &frames)
                };
                drop(inner);
                let publisher = match publishers.entry(dest) {
                    Entry::Occupied(o) => o.into_mut(),
                    Entry::Vacant(v) => {
                        let key = format!("motet/{namespace}/inbox/{}", dest.key_chunk());
                        let declare = |express: bool| {
                            session
                                .declare_publisher(key.clone())
                                .congestion_control(CongestionControl::Block)
                                .priority(Priority::Data)
                                .express(express)
                                .wait()
                        };
                        match (declare(false), declare(true)) {
                            (Ok(batching), Ok(express)) => v.insert([batching, express]),
                            (Err(e), _) | (_, Err(e)) => {
                                tracing::warn!("motet-remote: no publisher for {dest}: {e}");
                                queued.fetch_sub(count, Ordering::Relaxed);
                                continue;
                            }
                        }
                    }
                };
                // Express (sent at once rather than held for a batch) when nothing else is queued.
                let express = usize::from(next.is_none() && queue.is_empty());
                if let Err(e) = publisher[express].put(sample).wait() {
                    tracing::warn!("motet-remote: put to {dest} failed: {e}");
                }
                hop!(Put);
                queued.fetch_sub(count, Ordering::Relaxed);
            }
        }
    }
}
