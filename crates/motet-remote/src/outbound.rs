//! The per-node outbound queue and the thread that drains it into Zenoh.
//!
//! Proxies (running on runtime workers) and the node's control paths push encoded frames into an
//! unbounded channel, so a send never blocks a worker. One thread per node takes frames in order and
//! puts each on the destination node's inbox key through that destination's Zenoh publishers (a batching and an express one, on one key and priority)
//! (reliable, which is Zenoh's default and whose setter is unstable; `CongestionControl::Block`; one priority for data and control): when Zenoh's
//! transmission queue is full, this thread waits, the channel grows, and
//! [`Node::wait_writable`](crate::Node::wait_writable) makes threads that call it wait. Frames for
//! this node itself are handed to its own receive path, in the same order.

use std::collections::hash_map::{Entry, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crossbeam_channel::Receiver;
use zenoh::qos::{CongestionControl, Priority};
use zenoh::Wait;

use crate::id::NodeId;
use crate::node::Inner;

/// What the drain thread is given.
pub(crate) enum Outgoing {
    /// A frame for node `dest`.
    Frame { dest: NodeId, bytes: Vec<u8> },
    /// Forget the publisher of a node declared down.
    Forget(NodeId),
    /// Stop the thread.
    Stop,
}

/// The drain loop; returns when told to stop or when the node is gone.
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
    while let Ok(item) = queue.recv() {
        match item {
            Outgoing::Stop => break,
            Outgoing::Forget(id) => {
                publishers.remove(&id);
            }
            Outgoing::Frame { dest, bytes } => {
                let Some(inner) = node.upgrade() else { break };
                inner.counters.frames_out.fetch_add(1, Ordering::Relaxed);
                if dest == inner.me() {
                    inner.receive(&bytes);
                    queued.fetch_sub(1, Ordering::Relaxed);
                    continue;
                }
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
                                queued.fetch_sub(1, Ordering::Relaxed);
                                continue;
                            }
                        }
                    }
                };
                // Express (sent at once rather than held for a batch) when nothing else is queued.
                let express = usize::from(queue.is_empty());
                if let Err(e) = publisher[express].put(bytes).wait() {
                    tracing::warn!("motet-remote: put to {dest} failed: {e}");
                }
                queued.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}
