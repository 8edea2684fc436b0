//! The Zenoh transport: every process of a federation opens a Zenoh session in peer mode, with
//! multicast scouting off and explicit TCP endpoints (the coordinator's process listens, the
//! federates connect to it).
//!
//! Key space, under `motet/fed/<federation>/`:
//! - `rti`: what federates send to the coordinator (one publisher per federate);
//! - `fed/<name>`: what the coordinator sends to federate `<name>` (one publisher per federate);
//! - `phys/<name>`: values on physical connections into federate `<name>`, straight from the
//!   sending federate (peer to peer: federates that exchange them must reach each other, e.g.
//!   each listening on `tcp/127.0.0.1:0`, found through Zenoh's gossip);
//! - `alive/rti`, `alive/fed/<name>`: liveliness tokens; a token's end is a vanished process
//!   (the coordinator treats a federate's as LF's `FAILED`, a federate the coordinator's as the
//!   end of the federation).
//!
//! Every publisher is reliable (Zenoh's default) with blocking congestion control: a message is
//! never dropped for a full queue, and the messages of one publisher arrive in the order sent.
//! Messages are postcard-encoded [`ToRti`]/[`FromRti`]; a malformed one is dropped and counted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam_channel::{unbounded, Receiver, Sender};
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::{Publisher, Subscriber};
use zenoh::qos::CongestionControl;
use zenoh::sample::SampleKind;
use zenoh::{Session, Wait};

use super::{CoordinatorEvent, CoordinatorTransport, FederateEvent, FederateTransport};
use crate::error::FederatedError;
use crate::topology::Topology;
use crate::wire::{self, FromRti, ToRti};

/// Where a process's Zenoh session listens and connects.
#[derive(Clone, Debug, Default)]
pub struct ZenohOptions {
    /// The federation's name (the key space `motet/fed/<federation>/`).
    pub federation: String,
    /// Endpoints to listen on (`tcp/127.0.0.1:7447`).
    pub listen: Vec<String>,
    /// Endpoints to connect to.
    pub connect: Vec<String>,
}

fn zerr(e: impl core::fmt::Display) -> FederatedError {
    FederatedError::Transport(e.to_string())
}

fn open(opts: &ZenohOptions) -> Result<Session, FederatedError> {
    let mut c = zenoh::Config::default();
    let list = |v: &[String]| {
        let quoted: Vec<String> = v.iter().map(|e| format!("\"{e}\"")).collect();
        format!("[{}]", quoted.join(","))
    };
    c.insert_json5("mode", "\"peer\"").map_err(zerr)?;
    c.insert_json5("scouting/multicast/enabled", "false")
        .map_err(zerr)?;
    c.insert_json5("listen/endpoints", &list(&opts.listen))
        .map_err(zerr)?;
    c.insert_json5("connect/endpoints", &list(&opts.connect))
        .map_err(zerr)?;
    zenoh::open(c).wait().map_err(zerr)
}

fn prefix(opts: &ZenohOptions) -> String {
    format!("motet/fed/{}", opts.federation)
}

/// A federate's end over Zenoh.
pub struct ZenohFederate {
    publisher: Publisher<'static>,
    /// Per federate, the publisher of the physical connections into it from this one.
    peers: Vec<Option<Publisher<'static>>>,
    _phys: Subscriber<()>,
    events: Receiver<FederateEvent>,
    waker: Sender<FederateEvent>,
    malformed: Arc<AtomicU64>,
    _sub: Subscriber<()>,
    _rti_alive: Subscriber<()>,
    _token: LivelinessToken,
    session: Session,
}

impl core::fmt::Debug for ZenohFederate {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ZenohFederate").finish_non_exhaustive()
    }
}

impl ZenohFederate {
    /// Opens a session for federate `name` of `topology` and declares its subscribers,
    /// publishers and liveliness token. When the federate sends on physical connections, it
    /// waits (at most 30 s) until each receiving federate's subscriber is reachable, as LF sets
    /// up its peer-to-peer sockets before the start: a value put before would be dropped.
    ///
    /// # Errors
    /// [`FederatedError::Transport`] when Zenoh fails; [`FederatedError::Federation`] for an
    /// unknown name; [`FederatedError::Timeout`] when a receiving federate stays unreachable.
    pub fn connect(
        opts: &ZenohOptions,
        topology: &Topology,
        name: &str,
    ) -> Result<ZenohFederate, FederatedError> {
        let Some(me) = topology.index(name) else {
            return Err(FederatedError::Federation(format!(
                "no federate is named {name}"
            )));
        };
        let session = open(opts)?;
        let p = prefix(opts);
        let (tx, events) = unbounded();
        let malformed = Arc::new(AtomicU64::new(0));
        let (t, m) = (tx.clone(), malformed.clone());
        let sub = session
            .declare_subscriber(format!("{p}/fed/{name}"))
            .callback(
                move |s| match wire::decode::<FromRti>(&s.payload().to_bytes()) {
                    Ok(msg) => {
                        let _ = t.send(FederateEvent::Rti(msg));
                    }
                    Err(_) => {
                        m.fetch_add(1, Ordering::Relaxed);
                    }
                },
            )
            .wait()
            .map_err(zerr)?;
        let (t, m) = (tx.clone(), malformed.clone());
        let phys = session
            .declare_subscriber(format!("{p}/phys/{name}"))
            .callback(
                move |s| match wire::decode::<(u32, Vec<u8>)>(&s.payload().to_bytes()) {
                    Ok((link, payload)) => {
                        let _ = t.send(FederateEvent::Physical { link, payload });
                    }
                    Err(_) => {
                        m.fetch_add(1, Ordering::Relaxed);
                    }
                },
            )
            .wait()
            .map_err(zerr)?;
        let t = tx.clone();
        let rti_alive = session
            .liveliness()
            .declare_subscriber(format!("{p}/alive/rti"))
            // With the current token, so that its end is seen whenever the subscriber came.
            .history(true)
            .callback(move |s| {
                if s.kind() == SampleKind::Delete {
                    let _ = t.send(FederateEvent::RtiLost);
                }
            })
            .wait()
            .map_err(zerr)?;
        let token = session
            .liveliness()
            .declare_token(format!("{p}/alive/fed/{name}"))
            .wait()
            .map_err(zerr)?;
        let publisher = session
            .declare_publisher(format!("{p}/rti"))
            .congestion_control(CongestionControl::Block)
            .wait()
            .map_err(zerr)?;
        let mut peers: Vec<Option<Publisher<'static>>> =
            (0..topology.federates.len()).map(|_| None).collect();
        for l in topology.links.iter().filter(|l| l.physical && l.from == me) {
            let to = l.to as usize;
            if peers[to].is_none() {
                peers[to] = Some(
                    session
                        .declare_publisher(format!("{p}/phys/{}", topology.federates[to]))
                        .congestion_control(CongestionControl::Block)
                        .wait()
                        .map_err(zerr)?,
                );
            }
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        for peer in peers.iter().flatten() {
            while !peer.matching_status().wait().map_err(zerr)?.matching() {
                if std::time::Instant::now() > deadline {
                    return Err(FederatedError::Timeout("peer-to-peer connections"));
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        Ok(ZenohFederate {
            publisher,
            peers,
            _phys: phys,
            events,
            waker: tx,
            malformed,
            _sub: sub,
            _rti_alive: rti_alive,
            _token: token,
            session,
        })
    }

    /// Malformed messages received and dropped so far.
    pub fn malformed(&self) -> u64 {
        self.malformed.load(Ordering::Relaxed)
    }

    /// Closes the session (its liveliness token ends).
    pub fn close(self) {
        let _ = self.session.close().wait();
    }
}

impl FederateTransport for ZenohFederate {
    fn send(&self, msg: &ToRti) -> Result<(), FederatedError> {
        let bytes = wire::encode(msg)?;
        self.publisher.put(bytes).wait().map_err(zerr)
    }

    fn send_physical(&self, to: u32, link: u32, payload: Vec<u8>) -> Result<(), FederatedError> {
        let peer = self
            .peers
            .get(to as usize)
            .and_then(|p| p.as_ref())
            .ok_or_else(|| {
                FederatedError::Transport(format!("no physical connection to federate {to}"))
            })?;
        let bytes = wire::encode(&(link, payload))?;
        peer.put(bytes).wait().map_err(zerr)
    }

    fn events(&self) -> &Receiver<FederateEvent> {
        &self.events
    }

    fn waker(&self) -> Sender<FederateEvent> {
        self.waker.clone()
    }

    fn repeats_join(&self) -> bool {
        true
    }
}

/// The coordinator's end over Zenoh.
pub struct ZenohCoordinator {
    publishers: Vec<Publisher<'static>>,
    events: Receiver<CoordinatorEvent>,
    malformed: Arc<AtomicU64>,
    _sub: Subscriber<()>,
    _alive: Subscriber<()>,
    _token: LivelinessToken,
    session: Session,
}

impl core::fmt::Debug for ZenohCoordinator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ZenohCoordinator").finish_non_exhaustive()
    }
}

impl ZenohCoordinator {
    /// Opens the coordinator's session for `topology` and declares its subscriber, publishers
    /// and liveliness token.
    ///
    /// # Errors
    /// [`FederatedError::Transport`] when Zenoh fails.
    pub fn open(
        opts: &ZenohOptions,
        topology: &Topology,
    ) -> Result<ZenohCoordinator, FederatedError> {
        let session = open(opts)?;
        let p = prefix(opts);
        let (tx, events) = unbounded();
        let malformed = Arc::new(AtomicU64::new(0));
        let (t, m) = (tx.clone(), malformed.clone());
        let sub = session
            .declare_subscriber(format!("{p}/rti"))
            .callback(
                move |s| match wire::decode::<ToRti>(&s.payload().to_bytes()) {
                    Ok(msg) => {
                        let _ = t.send(CoordinatorEvent::Message(msg));
                    }
                    Err(_) => {
                        m.fetch_add(1, Ordering::Relaxed);
                    }
                },
            )
            .wait()
            .map_err(zerr)?;
        let names = topology.federates.clone();
        let t = tx;
        let alive_prefix = format!("{p}/alive/fed/");
        let alive = session
            .liveliness()
            .declare_subscriber(format!("{p}/alive/fed/*"))
            .history(true)
            .callback(move |s| {
                if s.kind() != SampleKind::Delete {
                    return;
                }
                let key = s.key_expr().as_str();
                if let Some(i) = key
                    .strip_prefix(&alive_prefix)
                    .and_then(|n| names.iter().position(|x| x == n))
                {
                    let _ = t.send(CoordinatorEvent::Lost(i as u32));
                }
            })
            .wait()
            .map_err(zerr)?;
        let token = session
            .liveliness()
            .declare_token(format!("{p}/alive/rti"))
            .wait()
            .map_err(zerr)?;
        let mut publishers = Vec::new();
        for name in &topology.federates {
            publishers.push(
                session
                    .declare_publisher(format!("{p}/fed/{name}"))
                    .congestion_control(CongestionControl::Block)
                    .wait()
                    .map_err(zerr)?,
            );
        }
        Ok(ZenohCoordinator {
            publishers,
            events,
            malformed,
            _sub: sub,
            _alive: alive,
            _token: token,
            session,
        })
    }

    /// Malformed messages received and dropped so far.
    pub fn malformed(&self) -> u64 {
        self.malformed.load(Ordering::Relaxed)
    }

    /// Closes the session (its liveliness token ends).
    pub fn close(self) {
        let _ = self.session.close().wait();
    }
}

impl CoordinatorTransport for ZenohCoordinator {
    fn send(&self, to: u32, msg: &FromRti) -> Result<(), FederatedError> {
        let p = self
            .publishers
            .get(to as usize)
            .ok_or_else(|| FederatedError::Transport(format!("no federate {to}")))?;
        let bytes = wire::encode(msg)?;
        p.put(bytes).wait().map_err(zerr)
    }

    fn events(&self) -> &Receiver<CoordinatorEvent> {
        &self.events
    }
}
