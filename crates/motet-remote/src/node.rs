//! [`Node`]: one Zenoh session, its identity and liveliness token, the table of actors it exports,
//! the proxies it holds for remote actors, and its pending remote asks.

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use motet_actor::{spawn, Addr, AnyAddr, ExitReason};
use motet_runtime::Handle;
use zenoh::Wait;

use crate::config::NodeConfig;
use crate::id::{type_id, NodeId, RemoteMsg};
use crate::outbound::{self, Outbound, Outgoing};
use crate::proxy::{Agent, AgentMsg, Ctl, Dead, Proxy, Route};
use crate::stats::{Counters, Stats};
use crate::wire::{self, Body, FrameError, WireReason};

/// Why a node could not start.
#[derive(Debug)]
pub struct NodeError(pub String);

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "motet-remote node: {}", self.0)
    }
}

impl std::error::Error for NodeError {}

/// Why a [`Node::lookup`] or [`Node::publish`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// No live actor was published under the name within the timeout.
    Timeout,
    /// The name is published, for another message type or schema version.
    WrongType,
    /// The name is not a single Zenoh key chunk (empty, or contains `/ * $ ? #`).
    BadName,
    /// Zenoh reported an error.
    Zenoh(String),
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Timeout => f.write_str("no actor published under that name in time"),
            LookupError::WrongType => {
                f.write_str("the name is published for another message type or version")
            }
            LookupError::BadName => f.write_str("an actor name is one key chunk without / * $ ? #"),
            LookupError::Zenoh(e) => write!(f, "zenoh: {e}"),
        }
    }
}

impl std::error::Error for LookupError {}

/// Decodes a payload and tells it to an exported actor.
pub(crate) type Deliver = Arc<dyn Fn(&[u8]) -> Result<(), FrameError> + Send + Sync>;
/// Completes a local ask from a reply frame's payload (`None`: the asked side dropped it).
pub(crate) type Complete = Box<dyn FnOnce(Option<&[u8]>) -> Result<(), FrameError> + Send>;

/// An actor of this node that other nodes can address.
pub(crate) struct Exported {
    pub typed: Box<dyn Any + Send + Sync>,
    pub type_id: u64,
    pub version: u32,
    pub deliver: Deliver,
    pub any: AnyAddr,
    /// Nodes holding a proxy of it: they get a `Down` frame when it stops.
    pub watchers: HashSet<NodeId>,
}

/// A proxy this node holds for a remote actor.
pub(crate) struct ProxyEntry {
    pub typed: Box<dyn Any + Send + Sync>,
    pub ctl: Addr<ExitReason>,
}

/// A remote ask waiting for its answer.
pub(crate) struct PendingReply {
    /// The node the request went to; its loss fails the ask.
    pub node: NodeId,
    pub type_id: u64,
    /// Completes the local ask: with the encoded value, or with `None` (dropped).
    pub complete: Complete,
}

struct Published {
    name: String,
    actor: u64,
    type_id: u64,
    version: u32,
}

#[derive(Default)]
pub(crate) struct State {
    pub exported: HashMap<u64, Exported>,
    /// (node, remote actor id, type id) -> proxy.
    pub proxies: HashMap<(NodeId, u64, u64), ProxyEntry>,
    /// local proxy actor id -> (node, remote actor id).
    pub proxy_ids: HashMap<u64, (NodeId, u64)>,
    pub replies: HashMap<u64, PendingReply>,
    pub quarantined: HashSet<NodeId>,
    pub alive: HashSet<NodeId>,
    published: Vec<Published>,
    tokens: Vec<zenoh::liveliness::LivelinessToken>,
    node_token: Option<zenoh::liveliness::LivelinessToken>,
    inbox: Option<zenoh::pubsub::Subscriber<()>>,
    /// Quarantined incarnations already told so (one notice each).
    pub notified: HashSet<NodeId>,
    /// When this node last rejoined as a new incarnation.
    pub resumed_at: Option<Instant>,
}

/// The shared core of a node.
pub(crate) struct Inner {
    pub runtime: Handle,
    pub session: zenoh::Session,
    pub config: NodeConfig,
    zid: u128,
    incarnation: AtomicU32,
    pub counters: Counters,
    next_reply: AtomicU64,
    pub(crate) out: Arc<Outbound>,
    state: Mutex<State>,
    agent: Mutex<Option<Addr<AgentMsg>>>,
    closed: AtomicBool,
}

/// A member of a motet cluster: one Zenoh session (peer mode by default), named by its Zenoh id and
/// an incarnation, announced by a liveliness token `motet/<ns>/node/<id>`, receiving every frame for
/// its actors on one subscriber `motet/<ns>/inbox/<id>`.
///
/// ```no_run
/// use std::time::Duration;
/// use motet_remote::{Node, NodeConfig};
///
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let node = Node::start(rt.handle(), NodeConfig::new().connect("tcp/127.0.0.1:7447")).unwrap();
/// let counter = node.lookup::<u64>("counter", Duration::from_secs(5)).unwrap();
/// counter.tell(1).unwrap();
/// ```
pub struct Node {
    inner: Arc<Inner>,
    threads: Vec<std::thread::JoinHandle<()>>,
    /// Dropped to stop the watchdog.
    stop_watchdog: Option<Sender<()>>,
}

impl Node {
    /// Opens the Zenoh session, declares the node's token and inbox, and starts its outbound and
    /// watchdog threads. Actors the node creates (proxies) run on `runtime`.
    pub fn start(runtime: &Handle, config: NodeConfig) -> Result<Node, NodeError> {
        let zconfig = config.to_zenoh().map_err(NodeError)?;
        let session = zenoh::open(zconfig)
            .wait()
            .map_err(|e| NodeError(format!("opening the zenoh session: {e}")))?;
        let zid = u128::from_le_bytes(session.zid().to_le_bytes());
        let (out, rx) = Outbound::new(session.clone(), config.namespace.clone());
        let inner = Arc::new(Inner {
            runtime: runtime.clone(),
            session: session.clone(),
            config: config.clone(),
            zid,
            incarnation: AtomicU32::new(0),
            counters: Counters::default(),
            next_reply: AtomicU64::new(1),
            out: Arc::new(out),
            state: Mutex::new(State::default()),
            agent: Mutex::new(None),
            closed: AtomicBool::new(false),
        });
        let agent = spawn(runtime, Agent::new(Arc::downgrade(&inner)));
        *inner.agent.lock().unwrap_or_else(|e| e.into_inner()) = Some(agent);

        inner.declare().map_err(NodeError)?;
        let weak = Arc::downgrade(&inner);
        let ns = config.namespace.clone();
        session
            .liveliness()
            .declare_subscriber(format!("motet/{ns}/node/*"))
            .history(true)
            .callback(move |sample| {
                if let Some(inner) = weak.upgrade() {
                    inner.on_liveliness(&sample);
                }
            })
            .background()
            .wait()
            .map_err(|e| NodeError(format!("node liveliness subscriber: {e}")))?;

        let mut threads = Vec::new();
        let weak = Arc::downgrade(&inner);
        let out = inner.out.clone();
        threads.push(
            std::thread::Builder::new()
                .name("motet-remote-out".into())
                .spawn(move || outbound::drain(weak, out, rx))
                .map_err(|e| NodeError(format!("outbound thread: {e}")))?,
        );
        let weak = Arc::downgrade(&inner);
        let lease = config.lease;
        let (stop_tx, stop_rx) = crossbeam_channel::bounded(0);
        threads.push(
            std::thread::Builder::new()
                .name("motet-remote-watchdog".into())
                .spawn(move || watchdog(weak, lease, stop_rx))
                .map_err(|e| NodeError(format!("watchdog thread: {e}")))?,
        );
        Ok(Node {
            inner,
            threads,
            stop_watchdog: Some(stop_tx),
        })
    }

    /// This node's identity (its current incarnation).
    pub fn id(&self) -> NodeId {
        self.inner.me()
    }

    /// The runtime proxies run on.
    pub fn runtime(&self) -> &Handle {
        &self.inner.runtime
    }

    /// Publishes `addr` under `name` in this node's namespace: a liveliness token
    /// `motet/<ns>/name/<name>/<node>/<actor>/<type>`, which disappears with the node. The actor is
    /// exported: this node holds an address of it until it stops.
    pub fn publish<M: RemoteMsg>(&self, name: &str, addr: &Addr<M>) -> Result<(), LookupError> {
        if !valid_name(name) {
            return Err(LookupError::BadName);
        }
        self.inner.export(addr);
        let p = Published {
            name: name.to_owned(),
            actor: addr.id().as_u64(),
            type_id: type_id::<M>(),
            version: M::VERSION,
        };
        let token = self
            .inner
            .session
            .liveliness()
            .declare_token(self.inner.name_key(&p, self.inner.me()))
            .wait()
            .map_err(|e| LookupError::Zenoh(e.to_string()))?;
        let mut st = self.inner.lock();
        st.published.push(p);
        st.tokens.push(token);
        Ok(())
    }

    /// Finds an actor published under `name` on any live node of the namespace (this one included),
    /// waiting up to `timeout` for one to appear. A remote actor comes back as a plain [`Addr<M>`]
    /// of a local proxy: `tell`, `ask`, `watch`, links and monitors work as for a local actor.
    pub fn lookup<M: RemoteMsg>(
        &self,
        name: &str,
        timeout: Duration,
    ) -> Result<Addr<M>, LookupError> {
        if !valid_name(name) {
            return Err(LookupError::BadName);
        }
        let deadline = Instant::now() + timeout;
        let ns = &self.inner.config.namespace;
        let mut wrong_type = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let replies = self
                .inner
                .session
                .liveliness()
                .get(format!("motet/{ns}/name/{name}/*/*/*"))
                .timeout(
                    left.min(Duration::from_millis(500))
                        .max(Duration::from_millis(10)),
                )
                .wait()
                .map_err(|e| LookupError::Zenoh(e.to_string()))?;
            while let Ok(reply) = replies.recv() {
                let Ok(sample) = reply.result() else { continue };
                let key = sample.key_expr().as_str();
                let mut parts = key.rsplitn(4, '/');
                let (Some(ty), Some(actor), Some(node)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    continue;
                };
                let (Some(node), Ok(actor)) = (NodeId::parse_chunk(node), actor.parse::<u64>())
                else {
                    continue;
                };
                if ty != format!("{:016x}.{}", type_id::<M>(), M::VERSION) {
                    wrong_type = true;
                    continue;
                }
                if let Some(addr) = self.inner.resolve::<M>(node, actor, true) {
                    return Ok(addr);
                }
            }
            if Instant::now() >= deadline {
                return Err(if wrong_type {
                    LookupError::WrongType
                } else {
                    LookupError::Timeout
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The node and remote actor id a proxy address stands for; `None` for a local actor.
    pub fn remote_of<M: Send + 'static>(&self, addr: &Addr<M>) -> Option<(NodeId, u64)> {
        self.inner
            .lock()
            .proxy_ids
            .get(&addr.id().as_u64())
            .copied()
    }

    /// The peer incarnations this node currently sees alive.
    pub fn peers(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.inner.lock().alive.iter().copied().collect();
        v.sort();
        v
    }

    /// Whether `node` was declared down here (it is never talked to again).
    pub fn is_quarantined(&self, node: NodeId) -> bool {
        self.inner.lock().quarantined.contains(&node)
    }

    /// A snapshot of the node's counters.
    pub fn stats(&self) -> Stats {
        self.inner.counters.snapshot()
    }

    /// Frames queued for Zenoh and not yet handed over.
    pub fn outbound_len(&self) -> usize {
        self.inner.out.len()
    }

    /// For threads and async tasks that produce many remote messages: waits until the outbound queue
    /// is below the configured high-water mark (or `timeout` passes; returns whether it is). Never
    /// call it from an actor: a worker must not wait.
    pub fn wait_writable(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while self.outbound_len() >= self.inner.config.outbound_high_water {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        true
    }

    /// Waits until every queued frame was handed to Zenoh (or `timeout` passes).
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while self.outbound_len() > 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        true
    }

    /// Leaves the cluster: proxies stop, exported actors are released, the session closes.
    pub fn close(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if self.inner.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = self.inner.out.send(Outgoing::Stop);
        self.stop_watchdog = None;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let (proxies, replies, exported, agent) = {
            let mut st = self.inner.lock();
            st.tokens.clear();
            st.node_token = None;
            st.inbox = None;
            let agent = self
                .inner
                .agent
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            (
                std::mem::take(&mut st.proxies),
                std::mem::take(&mut st.replies),
                std::mem::take(&mut st.exported),
                agent,
            )
        };
        for (_, p) in proxies {
            let _ = p.ctl.tell(ExitReason::Shutdown);
        }
        for (_, r) in replies {
            let _ = (r.complete)(None);
        }
        drop(exported);
        if let Some(agent) = agent {
            agent.kill();
        }
        let _ = self.inner.session.close().wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '*', '$', '?', '#'])
}

/// Detects that this process was suspended (SIGSTOP, a debugger) for longer than the lease: its
/// peers have then declared it down, so it rejoins as a new incarnation.
fn watchdog(node: Weak<Inner>, lease: Duration, stop: crossbeam_channel::Receiver<()>) {
    let tick = (lease / 4).max(Duration::from_millis(5));
    let mut last = Instant::now();
    // The incarnation seen at the last tick: the one that was suspended, if the next tick is late.
    let mut seen: Option<NodeId> = None;
    loop {
        if !matches!(
            stop.recv_timeout(tick),
            Err(crossbeam_channel::RecvTimeoutError::Timeout)
        ) {
            return;
        }
        let Some(inner) = node.upgrade() else { return };
        if inner.closed.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        let suspended = seen.unwrap_or_else(|| inner.me());
        if now.duration_since(last) > lease {
            tracing::warn!(
                "motet-remote: {suspended} was suspended for {:?}; rejoining as a new incarnation",
                now.duration_since(last)
            );
            // A peer's `Quarantined` notice may have made it rejoin already: then this does
            // nothing.
            inner.rejoin(suspended);
        }
        seen = Some(inner.me());
        last = now;
    }
}

impl Inner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This node's current identity.
    pub(crate) fn me(&self) -> NodeId {
        NodeId {
            zid: self.zid,
            incarnation: self.incarnation.load(Ordering::Acquire),
        }
    }

    fn name_key(&self, p: &Published, me: NodeId) -> String {
        format!(
            "motet/{}/name/{}/{}/{}/{:016x}.{}",
            self.config.namespace,
            p.name,
            me.key_chunk(),
            p.actor,
            p.type_id,
            p.version
        )
    }

    /// Declares the node token, the inbox subscriber and the name tokens for the current incarnation.
    fn declare(self: &Arc<Inner>) -> Result<(), String> {
        let me = self.me();
        let ns = &self.config.namespace;
        let weak = Arc::downgrade(self);
        let inbox = self
            .session
            .declare_subscriber(format!("motet/{ns}/inbox/{}", me.key_chunk()))
            .callback(move |sample| {
                if let Some(inner) = weak.upgrade() {
                    let bytes = sample.payload().to_bytes();
                    inner.receive(&bytes);
                }
            })
            .wait()
            .map_err(|e| format!("inbox subscriber: {e}"))?;
        let token = self
            .session
            .liveliness()
            .declare_token(format!("motet/{ns}/node/{}", me.key_chunk()))
            .wait()
            .map_err(|e| format!("node token: {e}"))?;
        let mut st = self.lock();
        st.inbox = Some(inbox);
        st.node_token = Some(token);
        let mut tokens = Vec::new();
        for p in &st.published {
            match self
                .session
                .liveliness()
                .declare_token(self.name_key(p, me))
                .wait()
            {
                Ok(t) => tokens.push(t),
                Err(e) => tracing::warn!("motet-remote: re-publishing {}: {e}", p.name),
            }
        }
        st.tokens = tokens;
        Ok(())
    }

    /// Becomes a new incarnation if this node is still incarnation `from` (the one its peers
    /// declared down): every proxy and pending ask of the former one fails with
    /// [`ExitReason::NodeUnreachable`], the quarantine list is cleared, tokens and inbox are
    /// declared anew. A second notice about `from` (the watchdog and a peer's `Quarantined` frame
    /// both see one suspension) does nothing: a node that rejoined twice would leave its peers a
    /// short-lived incarnation to find and ask.
    pub(crate) fn rejoin(self: &Arc<Inner>, from: NodeId) {
        let (proxies, replies) = {
            let mut st = self.lock();
            // The incarnation only changes below, under this lock.
            if self.me() != from {
                return;
            }
            st.tokens.clear();
            st.node_token = None;
            st.inbox = None;
            st.quarantined.clear();
            st.notified.clear();
            st.alive.clear();
            st.proxy_ids.clear();
            for e in st.exported.values_mut() {
                e.watchers.clear();
            }
            st.resumed_at = Some(Instant::now());
            self.incarnation.fetch_add(1, Ordering::AcqRel);
            (
                std::mem::take(&mut st.proxies),
                std::mem::take(&mut st.replies),
            )
        };
        self.counters.rejoins.fetch_add(1, Ordering::Relaxed);
        for (_, p) in proxies {
            let _ = p.ctl.tell(ExitReason::NodeUnreachable);
        }
        for (_, r) in replies {
            let _ = (r.complete)(None);
        }
        if let Err(e) = self.declare() {
            tracing::error!("motet-remote: rejoining: {e}");
        }
    }

    /// Sends a frame to `dest`: put on this thread when it may wait and the wire is idle (see
    /// [`outbound`]), queued for the drain thread otherwise.
    pub(crate) fn send_frame(&self, dest: NodeId, bytes: Vec<u8>) {
        hop!(Queued);
        let bytes = if dest != self.me() {
            match self.out.put_if_idle(dest, bytes) {
                Ok(()) => {
                    self.counters.frames_out.fetch_add(1, Ordering::Relaxed);
                    self.counters
                        .frames_put_direct
                        .fetch_add(1, Ordering::Relaxed);
                    return;
                }
                Err(bytes) => bytes,
            }
        } else {
            bytes
        };
        self.out.queue(dest, bytes);
    }

    /// Hands an item to the drain thread; false once it has stopped.
    pub(crate) fn out_send(&self, item: Outgoing) -> bool {
        self.out.send(item)
    }

    /// Sends a control frame (no payload).
    pub(crate) fn send_control(&self, dest: NodeId, body: Body) {
        let frame = wire::encode_header(self.me(), body);
        self.send_frame(dest, frame);
    }

    /// A fresh id for a pending remote ask.
    pub(crate) fn next_reply_id(&self) -> u64 {
        self.next_reply.fetch_add(1, Ordering::Relaxed)
    }

    /// Makes `addr` addressable from other nodes (idempotent); its stop is reported to watchers.
    pub(crate) fn export<M: RemoteMsg>(&self, addr: &Addr<M>) {
        let id = addr.id().as_u64();
        {
            let mut st = self.lock();
            if st.exported.contains_key(&id) {
                return;
            }
            let target = addr.clone();
            let deliver: Deliver = Arc::new(move |payload: &[u8]| {
                let msg: M = postcard::from_bytes(payload)
                    .map_err(|e| FrameError::BadPayload(e.to_string()))?;
                // A stopped actor: the message is dropped, as a local tell to it would be.
                let _ = target.tell(msg);
                Ok(())
            });
            st.exported.insert(
                id,
                Exported {
                    typed: Box::new(addr.clone()),
                    type_id: type_id::<M>(),
                    version: M::VERSION,
                    deliver,
                    any: addr.to_any(),
                    watchers: HashSet::new(),
                },
            );
        }
        let agent = self.agent.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(agent) = agent {
            let _ = agent.tell(AgentMsg::Monitor(addr.to_any()));
        }
    }

    /// An exported actor stopped: forget it and tell the nodes that hold proxies of it.
    ///
    /// The `Down` cannot overtake what the actor sent to remote actors before it stopped: proxies
    /// forward on the sending thread, so those frames were on the outbound queue before the actor's
    /// turn ended, hence before the agent saw it stop, and the queue and a Zenoh publisher are
    /// FIFO.
    pub(crate) fn local_down(self: &Arc<Inner>, id: u64, reason: &ExitReason) {
        let watchers = {
            let mut st = self.lock();
            let Some(e) = st.exported.remove(&id) else {
                return;
            };
            st.published.retain(|p| p.actor != id);
            e.watchers
        };
        let body = Body::Down {
            target: id,
            reason: WireReason::from(reason),
        };
        for w in watchers {
            self.send_control(w, body.clone());
        }
    }

    /// The address of actor `actor` on `node` as an `Addr<M>`: the local actor itself, a (new or
    /// cached) proxy, or, for a dead or quarantined incarnation, an address that has already stopped
    /// (`None` instead when `live_only`).
    pub(crate) fn resolve<M: RemoteMsg>(
        self: &Arc<Inner>,
        node: NodeId,
        actor: u64,
        live_only: bool,
    ) -> Option<Addr<M>> {
        let me = self.me();
        let tid = type_id::<M>();
        let mut st = self.lock();
        if node == me {
            let found = st
                .exported
                .get(&actor)
                .and_then(|e| e.typed.downcast_ref::<Addr<M>>())
                .cloned();
            drop(st);
            return found.or_else(|| {
                (!live_only)
                    .then(|| spawn(&self.runtime, Dead::<M>::new(ExitReason::AlreadyExited)))
            });
        }
        if node.zid == me.zid || st.quarantined.contains(&node) {
            drop(st);
            return (!live_only)
                .then(|| spawn(&self.runtime, Dead::<M>::new(ExitReason::NodeUnreachable)));
        }
        if let Some(p) = st.proxies.get(&(node, actor, tid)) {
            if let Some(a) = p.typed.downcast_ref::<Addr<M>>() {
                return Some(a.clone());
            }
        }
        let ctl = spawn(&self.runtime, Ctl);
        let route = Arc::new(Route::<M>::new(self, node, actor));
        let proxy = motet_actor::Spawn::new(Proxy::new(route.clone(), ctl.clone()))
            .trap_exit(true)
            .forwarding(move |msg| route.forward(msg))
            .spawn(&self.runtime);
        st.proxy_ids.insert(proxy.id().as_u64(), (node, actor));
        st.proxies.insert(
            (node, actor, tid),
            ProxyEntry {
                typed: Box::new(proxy.clone()),
                ctl,
            },
        );
        drop(st);
        self.send_control(node, Body::Monitor { target: actor });
        Some(proxy)
    }

    /// A proxy stopped (its remote actor stopped, or its node was lost): forget it.
    pub(crate) fn proxy_stopped(&self, local_id: u64) {
        let mut st = self.lock();
        if let Some((node, actor)) = st.proxy_ids.remove(&local_id) {
            st.proxies
                .retain(|&(n, a, _), _| !(n == node && a == actor));
        }
    }

    /// Registers a pending remote ask and returns its id.
    ///
    /// An ask of a node already declared down fails at once (`node_lost` failed the asks it found;
    /// this one came after it, through a proxy that had not yet stopped).
    pub(crate) fn add_reply(&self, reply: PendingReply) -> u64 {
        let id = self.next_reply_id();
        let mut st = self.lock();
        if st.quarantined.contains(&reply.node) {
            drop(st);
            let _ = (reply.complete)(None);
        } else {
            st.replies.insert(id, reply);
        }
        id
    }
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
