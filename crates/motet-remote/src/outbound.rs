//! The per-node outbound path: a queue, the thread that drains it into Zenoh, and the direct put
//! of a thread that may wait.
//!
//! Sends to proxies (encoded on the sending thread, a runtime worker or any other) and the node's
//! control paths push encoded frames into an unbounded channel, so a send never blocks a worker.
//! One thread per node takes frames in order and puts each on the destination node's inbox key
//! through that destination's Zenoh publishers (a batching and an express one, on one key and
//! priority; reliable, which is Zenoh's default and whose setter is unstable;
//! `CongestionControl::Block`; one priority for data and control): when Zenoh's transmission queue
//! is full, this thread waits, the channel grows, and
//! [`Node::wait_writable`](crate::Node::wait_writable) makes threads that call it wait. Frames for
//! this node itself are handed to its own receive path, in the same order. Frames for one node that
//! wait behind each other leave as one batch sample.
//!
//! A thread that may wait (see [`may_wait_here`]) puts its frame itself, sparing the drain thread's
//! wake-up, when nothing is queued and nothing was put for [`DIRECT_IDLE`]: a lone message (a
//! request, a ping) leaves at once, while a burst goes through the queue and leaves in batches.
//! Both paths put under one lock, the [`Wire`], and the queue's count covers a frame until its put
//! has returned, so a direct put never overtakes a queued frame: FIFO per sender holds.
//!
//! When the node delivers a message to one of its actors, an answer is likely to follow from a
//! worker: a blocked drain thread is sent [`Outgoing::Poll`] ([`Outbound::expect_frame`]) and looks
//! for a frame for [`POLL`], yielding its core between looks, so that the answer is taken without a
//! wake-up.

use std::collections::hash_map::{Entry, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use zenoh::qos::{CongestionControl, Priority};
use zenoh::Wait;

use crate::context;
use crate::id::NodeId;
use crate::node::Inner;
use crate::wire;

/// What the drain thread is given.
pub(crate) enum Outgoing {
    /// A frame for node `dest`.
    Frame { dest: NodeId, bytes: Vec<u8> },
    /// Forget the publisher of a node declared down.
    Forget(NodeId),
    /// A frame is likely soon (the node just delivered a message): look for one a while before
    /// blocking again.
    Poll,
    /// Stop the thread.
    Stop,
}

/// Most frames one batch holds.
const BATCH_FRAMES: usize = 256;
/// Most bytes one batch holds (it is also kept under the node's own `max_frame`): about one Zenoh
/// transmission batch, so a batch is not split into fragments.
const BATCH_BYTES: usize = 60 * 1024;
/// How long nothing must have been put before a thread puts a frame itself: shorter gaps are a
/// burst, which the drain thread batches.
pub(crate) const DIRECT_IDLE: Duration = Duration::from_micros(50);
/// How long the drain thread looks for a frame, yielding its core between looks, after the node
/// delivered a message (see [`Outbound::expect_frame`]).
const POLL: Duration = Duration::from_micros(100);

/// Zenoh's side of the outbound path: the publishers, per destination node.
pub(crate) struct Wire {
    session: zenoh::Session,
    namespace: String,
    /// Per destination: a batching publisher and an express one, on the same key and priority (so
    /// in the same transmission queue of the link, which keeps their frames in order).
    publishers: HashMap<NodeId, [zenoh::pubsub::Publisher<'static>; 2]>,
}

impl Wire {
    /// Puts one sample for `dest` (express: sent at once rather than held for a batch). A put that
    /// fails is logged: Zenoh gives no other way to act on it.
    fn put(&mut self, dest: NodeId, sample: Vec<u8>, express: bool) {
        let publisher = match self.publishers.entry(dest) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => {
                let key = format!("motet/{}/inbox/{}", self.namespace, dest.key_chunk());
                let declare = |express: bool| {
                    self.session
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
                        return;
                    }
                }
            }
        };
        if let Err(e) = publisher[usize::from(express)].put(sample).wait() {
            tracing::warn!("motet-remote: put to {dest} failed: {e}");
        }
        hop!(Put);
    }
}

/// A node's outbound path: the queue the drain thread takes from, and the [`Wire`].
pub(crate) struct Outbound {
    queue: Sender<Outgoing>,
    /// Frames queued and not yet put (a frame the drain thread took counts until its put returned).
    len: AtomicU64,
    wire: Mutex<Wire>,
    epoch: Instant,
    /// When the last put returned, in nanoseconds since `epoch`.
    last_put: AtomicU64,
    /// Set while the drain thread blocks on an empty queue.
    parked: AtomicBool,
}

impl Outbound {
    /// The outbound path of a node on `session`, with the receiving end of its queue.
    pub(crate) fn new(
        session: zenoh::Session,
        namespace: String,
    ) -> (Outbound, Receiver<Outgoing>) {
        let (queue, rx) = crossbeam_channel::unbounded();
        let out = Outbound {
            queue,
            len: AtomicU64::new(0),
            wire: Mutex::new(Wire {
                session,
                namespace,
                publishers: HashMap::new(),
            }),
            epoch: Instant::now(),
            last_put: AtomicU64::new(0),
            parked: AtomicBool::new(false),
        };
        (out, rx)
    }

    /// Frames queued and not yet put.
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed) as usize
    }

    /// Queues a frame for `dest` (dropped once the drain thread has stopped: the node is closing).
    pub(crate) fn queue(&self, dest: NodeId, bytes: Vec<u8>) {
        self.len.fetch_add(1, Ordering::Relaxed);
        if self.queue.send(Outgoing::Frame { dest, bytes }).is_err() {
            self.len.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Hands an item to the drain thread; false once it has stopped.
    pub(crate) fn send(&self, item: Outgoing) -> bool {
        self.queue.send(item).is_ok()
    }

    /// Puts `bytes` for `dest` on this thread if nothing is queued, the thread may wait (the put
    /// waits while Zenoh's transmission queue is full: see [`may_wait_here`]) and the wire has been
    /// idle for [`DIRECT_IDLE`]; otherwise gives the frame back, to be queued.
    pub(crate) fn put_if_idle(&self, dest: NodeId, bytes: Vec<u8>) -> Result<(), Vec<u8>> {
        // The queue's length first: in a burst it is not empty, and it is the cheapest test.
        if self.len.load(Ordering::Relaxed) != 0 || !may_wait_here() {
            return Err(bytes);
        }
        let now = self.now();
        if now.saturating_sub(self.last_put.load(Ordering::Relaxed)) < DIRECT_IDLE.as_nanos() as u64
        {
            return Err(bytes);
        }
        let Ok(mut wire) = self.wire.try_lock() else {
            return Err(bytes);
        };
        // Under the wire lock: nothing queued or being put, so this frame overtakes nothing.
        if self.len.load(Ordering::Acquire) != 0 {
            return Err(bytes);
        }
        wire.put(dest, bytes, true);
        self.last_put.store(self.now(), Ordering::Relaxed);
        Ok(())
    }

    /// Wakes a blocked drain thread to poll for a while: a delivered message's answer is likely to
    /// be queued soon, and a thread already looking takes it without a wake-up.
    pub(crate) fn expect_frame(&self) {
        if self.parked.load(Ordering::Relaxed) && self.parked.swap(false, Ordering::AcqRel) {
            let _ = self.queue.send(Outgoing::Poll);
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn lock_wire(&self) -> MutexGuard<'_, Wire> {
        self.wire.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether the calling thread may wait in a put: not a runtime worker (of any motet runtime), not
/// a thread decoding for a node (Zenoh's receive callbacks, where a node delivers), and not a
/// thread of a tokio runtime (Zenoh's own, or an async task's executor).
fn may_wait_here() -> bool {
    !motet_runtime::on_worker_thread()
        && !context::is_set()
        && tokio::runtime::Handle::try_current().is_err()
}

/// The drain loop; returns when told to stop or when the node is gone.
///
/// Frames for one destination that are already queued behind each other leave as one
/// [`Body::Batch`](crate::wire::Body::Batch) sample (up to [`BATCH_FRAMES`] and [`BATCH_BYTES`]):
/// the batch keeps their order, and the first item for anything else is handled next, so the
/// queue's order is kept.
pub(crate) fn drain(node: Weak<Inner>, out: Arc<Outbound>, queue: Receiver<Outgoing>) {
    // An item taken off the queue while filling a batch, handled next.
    let mut next: Option<Outgoing> = None;
    loop {
        let item = match next.take() {
            Some(item) => item,
            None => match queue.try_recv() {
                Ok(item) => item,
                Err(_) => {
                    out.parked.store(true, Ordering::Release);
                    let item = queue.recv();
                    out.parked.store(false, Ordering::Release);
                    match item {
                        Ok(item) => item,
                        Err(_) => break,
                    }
                }
            },
        };
        match item {
            Outgoing::Stop => break,
            Outgoing::Poll => {
                let deadline = Instant::now() + POLL;
                loop {
                    if let Ok(item) = queue.try_recv() {
                        next = Some(item);
                        break;
                    }
                    if Instant::now() >= deadline {
                        break;
                    }
                    std::thread::yield_now();
                }
            }
            Outgoing::Forget(id) => {
                out.lock_wire().publishers.remove(&id);
            }
            Outgoing::Frame { dest, bytes } => {
                hop!(Drained);
                let Some(inner) = node.upgrade() else { break };
                inner.counters.frames_out.fetch_add(1, Ordering::Relaxed);
                if dest == inner.me() {
                    inner.receive(&bytes);
                    out.len.fetch_sub(1, Ordering::Relaxed);
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
                // Express (sent at once rather than held for a batch) when nothing else is queued.
                let express = next.is_none() && queue.is_empty();
                let mut wire = out.lock_wire();
                wire.put(dest, sample, express);
                out.last_put.store(out.now(), Ordering::Relaxed);
                // Still under the wire lock: a direct put sees these frames counted until now.
                out.len.fetch_sub(count, Ordering::Release);
            }
        }
    }
}
