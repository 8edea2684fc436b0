//! The local actors a node runs: proxies of remote actors, their control companions, the agent
//! that watches exported actors, and small helpers for dead addresses and remote link exits.

use std::marker::PhantomData;
use std::sync::{Arc, Weak};

use motet_actor::{Actor, Addr, AnyAddr, Context, Down, ExitReason, ExitSignal};

use crate::context;
use crate::id::{type_id, NodeId, RemoteMsg};
use crate::node::Inner;
use crate::wire::{self, Body, WireReason};

/// A remote actor seen locally. It is a forwarding actor ([`motet_actor::Spawn::forwarding`]): a
/// message sent to it is encoded on the sending thread (with this node as the current node, so
/// addresses and reply handles inside it are exported) by [`Route::forward`], and queued for the
/// owning node, without a turn of its own. Its mailbox holds only signals: links, monitors, exits.
/// It stops with the remote actor's reason, or [`ExitReason::NodeUnreachable`], when its [`Ctl`]
/// stops.
pub(crate) struct Proxy<M> {
    route: Arc<Route<M>>,
    ctl: Addr<ExitReason>,
}

impl<M: RemoteMsg> Proxy<M> {
    pub(crate) fn new(route: Arc<Route<M>>, ctl: Addr<ExitReason>) -> Self {
        Proxy { route, ctl }
    }
}

/// Where a proxy's messages go: actor `actor` on node `dest`, with the frame header of a `Tell`
/// from this node's incarnation `from` to it, encoded once.
pub(crate) struct Route<M> {
    node: Weak<Inner>,
    dest: NodeId,
    actor: u64,
    from: NodeId,
    header: Vec<u8>,
    _msg: PhantomData<fn(M)>,
}

impl<M: RemoteMsg> Route<M> {
    pub(crate) fn new(node: &Arc<Inner>, dest: NodeId, actor: u64) -> Route<M> {
        let from = node.me();
        Route {
            node: Arc::downgrade(node),
            dest,
            actor,
            from,
            header: Self::tell_header(from, actor),
            _msg: PhantomData,
        }
    }

    fn tell_header(from: NodeId, actor: u64) -> Vec<u8> {
        wire::encode_header(
            from,
            Body::Tell {
                dest: actor,
                type_id: type_id::<M>(),
                version: M::VERSION,
            },
        )
    }

    /// Encodes `msg` and queues the frame, on the calling thread; gives the message back once the
    /// node is gone. A message that does not encode is counted and logged (the send succeeded, as
    /// a local send to an actor that then drops the message does).
    pub(crate) fn forward(&self, msg: M) -> Result<(), M> {
        hop!(ProxyTurn);
        let Some(inner) = self.node.upgrade() else {
            return Err(msg);
        };
        let me = inner.me();
        let header = if me == self.from {
            let mut frame = Vec::with_capacity(self.header.len() + 32);
            frame.extend_from_slice(&self.header);
            frame
        } else {
            // The node rejoined as a new incarnation after this proxy was made (it is stopping).
            Self::tell_header(me, self.actor)
        };
        match context::with(&inner, self.dest, || postcard::to_extend(&msg, header)) {
            Ok(frame) => inner.send_frame(self.dest, frame),
            Err(e) => {
                inner
                    .counters
                    .encode_errors
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tracing::warn!(
                    "motet-remote: a message to {} did not encode: {e}",
                    self.dest
                );
            }
        }
        Ok(())
    }
}

impl<M: RemoteMsg> Actor for Proxy<M> {
    type Msg = M;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        ctx.monitor(&self.ctl);
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: M) {
        // Not reached while the proxy is spawned forwarding (see `Inner::resolve`); kept correct.
        if self.route.forward(msg).is_err() {
            ctx.stop_with(ExitReason::Shutdown);
        }
    }

    fn on_down(&mut self, ctx: &mut Context<'_, Self>, down: Down) {
        if down.id == self.ctl.id() {
            ctx.stop_with(down.reason);
        }
    }

    fn on_exit(&mut self, _ctx: &mut Context<'_, Self>, exit: ExitSignal) {
        // A local actor linked to this proxy stopped: an abnormal reason stops the remote actor.
        if exit.reason.is_normal() {
            return;
        }
        if let Some(inner) = self.route.node.upgrade() {
            inner.send_control(
                self.route.dest,
                Body::LinkExit {
                    target: self.route.actor,
                    reason: WireReason::from(&exit.reason),
                },
            );
        }
    }

    fn stopped(&mut self, ctx: &mut Context<'_, Self>, _reason: &ExitReason) {
        if let Some(inner) = self.route.node.upgrade() {
            inner.proxy_stopped(ctx.id().as_u64());
        }
    }
}

/// A proxy's companion: told a reason, it stops with it, and the proxy (which monitors it) follows.
pub(crate) struct Ctl;

impl Actor for Ctl {
    type Msg = ExitReason;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, reason: ExitReason) {
        ctx.stop_with(reason);
    }
}

/// An address that has already stopped: a reference to a dead or quarantined incarnation.
pub(crate) struct Dead<M> {
    reason: ExitReason,
    _msg: PhantomData<fn(M)>,
}

impl<M> Dead<M> {
    pub(crate) fn new(reason: ExitReason) -> Self {
        Dead {
            reason,
            _msg: PhantomData,
        }
    }
}

impl<M: Send + 'static> Actor for Dead<M> {
    type Msg = M;
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        ctx.stop_with(self.reason.clone());
    }
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: M) {}
}

/// Stands in on the owning node for a remote actor linked to a local one: linked to the target
/// when spawned, then told the reason, it stops with it and the link carries the exit.
pub(crate) struct Standin;

impl Actor for Standin {
    type Msg = ExitReason;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, reason: ExitReason) {
        ctx.stop_with(reason);
    }
}

/// What the agent is told.
pub(crate) enum AgentMsg {
    /// Monitor this exported actor.
    Monitor(AnyAddr),
}

/// Monitors every exported actor; reports each stop to the node (which tells remote watchers).
pub(crate) struct Agent {
    node: Weak<Inner>,
}

impl Agent {
    pub(crate) fn new(node: Weak<Inner>) -> Agent {
        Agent { node }
    }
}

impl Actor for Agent {
    type Msg = AgentMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: AgentMsg) {
        match msg {
            AgentMsg::Monitor(any) => ctx.monitor(any),
        }
    }
    fn on_down(&mut self, _ctx: &mut Context<'_, Self>, down: Down) {
        if let Some(inner) = self.node.upgrade() {
            inner.local_down(down.id.as_u64(), &down.reason);
        }
    }
}
