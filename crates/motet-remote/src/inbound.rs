//! The receive side of a node: frames from its inbox subscriber, and peer liveliness.
//!
//! Runs on Zenoh's callback threads (never on a runtime worker): decodes and checks each frame,
//! delivers messages into mailboxes by destination actor id, completes remote asks, and turns
//! control frames and liveliness changes into proxy exits.

use std::sync::Arc;

use motet_actor::{ExitReason, Spawn};
use zenoh::sample::{Sample, SampleKind};

use crate::context;
use crate::id::NodeId;
use crate::node::{Deliver, Inner};
use crate::outbound::Outgoing;
use crate::proxy::Standin;
use crate::wire::{self, Body, FrameError};

/// What the frames of one batch share: the sending node, checked against the quarantine (and made
/// the decoding context) once for the whole batch, and the destination the previous frame was
/// delivered to, so that a run of frames for one actor looks it up once.
struct BatchScope {
    from: NodeId,
    last: Option<LastDest>,
}

/// An exported actor a batch delivered to, with what its frames were checked against.
struct LastDest {
    dest: u64,
    type_id: u64,
    version: u32,
    deliver: Deliver,
}

impl Inner {
    /// Handles one received frame; a bad one is counted, logged and dropped.
    pub(crate) fn receive(self: &Arc<Inner>, bytes: &[u8]) {
        hop!(Received);
        self.receive_frame(bytes, None);
        hop!(Delivered);
    }

    /// One frame; `scope` is the batch it came in (a batch inside a batch is rejected).
    fn receive_frame(self: &Arc<Inner>, bytes: &[u8], scope: Option<&mut BatchScope>) {
        self.counters
            .frames_in
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Err(e) = self.dispatch(bytes, scope) {
            self.counters.reject(&e);
            tracing::warn!("motet-remote: {} rejected a frame: {e}", self.me());
        }
    }

    fn dispatch(
        self: &Arc<Inner>,
        bytes: &[u8],
        scope: Option<&mut BatchScope>,
    ) -> Result<(), FrameError> {
        let (header, payload) = wire::decode(bytes, self.config.max_frame)?;
        let from = header.from;
        // The batch's own frame was checked for its sender; a frame inside it from the same sender
        // (every frame a motet node batches) is not checked again.
        let in_scope = scope.as_ref().is_some_and(|s| s.from == from);
        if !in_scope {
            let quarantined = {
                let mut st = self.lock();
                if st.quarantined.contains(&from) {
                    Some(st.notified.insert(from))
                } else {
                    None
                }
            };
            if let Some(first) = quarantined {
                if first && !matches!(header.body, Body::Quarantined { .. }) {
                    self.send_control(from, Body::Quarantined { you: from });
                }
                return Err(FrameError::Quarantined);
            }
        }
        match header.body {
            Body::Batch if scope.is_some() => {
                return Err(FrameError::Malformed("a batch inside a batch".into()));
            }
            Body::Batch => {
                // Each frame is checked and counted on its own, in order.
                let frames = wire::batch_frames(payload)?;
                let mut scope = BatchScope { from, last: None };
                context::with(self, from, || {
                    for frame in frames {
                        self.receive_frame(frame, Some(&mut scope));
                    }
                });
                if scope.last.is_some() {
                    // It delivered a message: once per batch.
                    self.out.expect_frame();
                }
            }
            Body::Tell {
                dest,
                type_id,
                version,
            } => {
                let batched = scope.is_some();
                let fresh;
                let deliver: &Deliver = match scope {
                    // In a batch, a run of frames for one actor looks it up once.
                    Some(s) => {
                        let hit = s.last.as_ref().is_some_and(|l| {
                            l.dest == dest && l.type_id == type_id && l.version == version
                        });
                        if !hit {
                            s.last = Some(LastDest {
                                dest,
                                type_id,
                                version,
                                deliver: self.exported_deliver(dest, type_id, version)?,
                            });
                        }
                        &s.last.as_ref().expect("set above").deliver
                    }
                    None => {
                        fresh = self.exported_deliver(dest, type_id, version)?;
                        &fresh
                    }
                };
                if in_scope {
                    // The batch set this sender as the decoding context.
                    deliver(payload)?;
                } else {
                    context::with(self, from, || deliver(payload))?;
                }
                self.counters
                    .delivered
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if !batched {
                    self.out.expect_frame();
                }
            }
            Body::Reply { reply, type_id, ok } => {
                let pending = {
                    let mut st = self.lock();
                    match st.replies.get(&reply) {
                        None => return Ok(()), // late: the ask was failed already
                        Some(p) if ok && p.type_id != type_id => {
                            return Err(FrameError::WrongType {
                                expected: p.type_id,
                                got: type_id,
                            })
                        }
                        Some(_) => st.replies.remove(&reply).expect("present"),
                    }
                };
                let value = ok.then_some(payload);
                context::with(self, from, || (pending.complete)(value))?;
            }
            Body::Monitor { target } => {
                let known = {
                    let mut st = self.lock();
                    match st.exported.get_mut(&target) {
                        Some(e) => {
                            e.watchers.insert(from);
                            true
                        }
                        None => false,
                    }
                };
                if !known {
                    self.send_control(
                        from,
                        Body::Down {
                            target,
                            reason: (&ExitReason::AlreadyExited).into(),
                        },
                    );
                }
            }
            Body::Down { target, reason } => {
                let ctls: Vec<_> = {
                    let mut st = self.lock();
                    let keys: Vec<_> = st
                        .proxies
                        .keys()
                        .filter(|(n, a, _)| *n == from && *a == target)
                        .copied()
                        .collect();
                    keys.iter()
                        .filter_map(|k| st.proxies.remove(k))
                        .map(|p| p.ctl)
                        .collect()
                };
                let reason = ExitReason::from(reason);
                for ctl in ctls {
                    let _ = ctl.tell(reason.clone());
                }
            }
            Body::LinkExit { target, reason } => {
                let any = self.lock().exported.get(&target).map(|e| e.any.clone());
                if let Some(any) = any {
                    let standin = Spawn::new(Standin).link(any).spawn(&self.runtime);
                    let _ = standin.tell(ExitReason::from(reason));
                }
            }
            Body::Quarantined { you } => {
                if you == self.me() {
                    let inner = self.clone();
                    // Declaring Zenoh entities from a Zenoh callback thread is avoided.
                    std::thread::spawn(move || inner.rejoin(you));
                }
            }
        }
        Ok(())
    }

    /// The delivery function of exported actor `dest`, checked against a frame's type and version.
    fn exported_deliver(
        &self,
        dest: u64,
        type_id: u64,
        version: u32,
    ) -> Result<Deliver, FrameError> {
        let st = self.lock();
        let e = st
            .exported
            .get(&dest)
            .ok_or(FrameError::UnknownActor(dest))?;
        if e.type_id != type_id {
            return Err(FrameError::WrongType {
                expected: e.type_id,
                got: type_id,
            });
        }
        if e.version != version {
            return Err(FrameError::WrongVersion {
                expected: e.version,
                got: version,
            });
        }
        Ok(e.deliver.clone())
    }

    /// A node token appeared or disappeared.
    pub(crate) fn on_liveliness(self: &Arc<Inner>, sample: &Sample) {
        let key = sample.key_expr().as_str();
        let Some(node) = key.rsplit('/').next().and_then(NodeId::parse_chunk) else {
            return;
        };
        if node.zid == self.me().zid {
            return;
        }
        match sample.kind() {
            SampleKind::Put => {
                let quarantined = {
                    let mut st = self.lock();
                    if st.quarantined.contains(&node) {
                        true
                    } else {
                        st.alive.insert(node);
                        false
                    }
                };
                if quarantined {
                    self.send_control(node, Body::Quarantined { you: node });
                }
            }
            SampleKind::Delete => self.node_lost(node),
        }
    }

    /// Declares `node` down: it is quarantined, its proxies exit with
    /// [`ExitReason::NodeUnreachable`], asks waiting on it fail.
    pub(crate) fn node_lost(self: &Arc<Inner>, node: NodeId) {
        let (ctls, replies) = {
            let mut st = self.lock();
            if let Some(t) = st.resumed_at {
                // Right after this process resumed from a suspension, the peers it sees go are
                // the links its own suspension broke; it has rejoined already.
                if t.elapsed() < self.config.lease * 2 {
                    st.alive.remove(&node);
                    return;
                }
            }
            if !st.quarantined.insert(node) {
                return;
            }
            st.alive.remove(&node);
            let keys: Vec<_> = st.proxies.keys().filter(|k| k.0 == node).copied().collect();
            let ctls: Vec<_> = keys
                .iter()
                .filter_map(|k| st.proxies.remove(k))
                .map(|p| p.ctl)
                .collect();
            let ids: Vec<u64> = st
                .replies
                .iter()
                .filter(|(_, r)| r.node == node)
                .map(|(id, _)| *id)
                .collect();
            let replies: Vec<_> = ids.iter().filter_map(|id| st.replies.remove(id)).collect();
            for e in st.exported.values_mut() {
                e.watchers.remove(&node);
            }
            (ctls, replies)
        };
        self.counters
            .nodes_lost
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!("motet-remote: {} declared {node} down", self.me());
        let _ = self.out_send(Outgoing::Forget(node));
        for ctl in ctls {
            let _ = ctl.tell(ExitReason::NodeUnreachable);
        }
        for r in replies {
            let _ = (r.complete)(None);
        }
    }
}
