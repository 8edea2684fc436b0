//! A built federated program, and its two ways to run: whole in one process
//! ([`FederatedProgram::run_whole`], the reference run) or as one federate
//! ([`FederatedProgram::run_federate`], whose loop is in `federate.rs`).

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use motet_reactor_core::{
    run_sequential, Clock, Engine, Inbox, LevelQueue, Metrics, Platform, Program, RunOptions, Tag,
};

use crate::error::FederatedError;
use crate::federate::{FederateLoop, Run};
use crate::port_status::PortStatus;
use crate::topology::Topology;
use crate::transport::{FederateEvent, FederateTransport};
use crate::wire::WireTag;

/// Puts a value that arrived on a federated connection into the program at its tag.
pub(crate) type Injector = Box<dyn Fn(Tag, &[u8]) -> Result<(), FederatedError> + Send>;

/// Decodes a value that arrived on a federated connection, for
/// [`Engine::inject_current`](motet_reactor_core::Engine::inject_current).
pub(crate) type Decoder =
    Box<dyn Fn(&[u8]) -> Result<Box<dyn core::any::Any + Send>, FederatedError> + Send>;

/// The generated reactions and action of a federated connection in a federate build: what a
/// federate processing a tag provisionally needs to know of it.
pub(crate) struct LinkEnds {
    /// The sending reaction (its level tells when the connection's content at a tag is known).
    pub(crate) send: u32,
    /// The receiving reaction (its successors' levels tell where to wait for the content).
    pub(crate) deliver: u32,
    /// The receiving physical action.
    pub(crate) action: u32,
    /// Decodes a value for the current tag (logical connections only).
    pub(crate) decode: Option<Decoder>,
}

/// A value a reaction sent on a federated connection, waiting for the end of its tag.
pub(crate) struct Outgoing {
    pub(crate) link: u32,
    pub(crate) tag: WireTag,
    pub(crate) payload: Result<Vec<u8>, FederatedError>,
}

/// Physical time as nanoseconds since the Unix epoch: comparable between processes of one host,
/// so that federates share the start time the coordinator chose.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnixClock;

impl Clock for UnixClock {
    fn now(&self) -> u64 {
        unix_now()
    }
}

/// Nanoseconds since the Unix epoch.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// How a federate runs.
#[derive(Clone, Copy, Debug)]
pub struct FederateOptions {
    /// The run's options (fast mode, timeout); every federate must use the same.
    pub run: RunOptions,
    /// How long to wait for the coordinator's start.
    pub join_timeout: Duration,
}

impl Default for FederateOptions {
    fn default() -> Self {
        FederateOptions {
            run: RunOptions::default(),
            join_timeout: Duration::from_secs(30),
        }
    }
}

/// What a federate's run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FederateReport {
    /// The engine's counters.
    pub metrics: Metrics,
    /// Coordination messages sent to the coordinator (values on connections included).
    pub sent: u64,
    /// Coordination messages received from the coordinator (values included).
    pub received: u64,
    /// The physical time of the start tag (nanoseconds since the Unix epoch).
    pub start_ns: u64,
    /// How long the run took from the coordinator's start message to the federate's end (in
    /// real time, this includes the wait for the start tag's physical time).
    pub run: Duration,
}

/// A federated program, built for the whole program or for one federate.
pub struct FederatedProgram {
    program: Program,
    topology: Topology,
    me: Option<u32>,
    /// Per reactor, its federate (`None` for generated delay reactors of a whole build).
    fed_of: Vec<Option<u32>>,
    injectors: Vec<Option<Injector>>,
    /// Per connection, its generated ends (`None` in a whole build).
    ends: Vec<Option<LinkEnds>>,
    outbox: Arc<Mutex<Vec<Outgoing>>>,
}

impl core::fmt::Debug for FederatedProgram {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FederatedProgram")
            .field("topology", &self.topology)
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

impl FederatedProgram {
    pub(crate) fn new(
        program: Program,
        topology: Topology,
        me: Option<u32>,
        fed_of: Vec<Option<u32>>,
        injectors: Vec<Option<Injector>>,
        ends: Vec<Option<LinkEnds>>,
        outbox: Arc<Mutex<Vec<Outgoing>>>,
    ) -> FederatedProgram {
        FederatedProgram {
            program,
            topology,
            me,
            fed_of,
            injectors,
            ends,
            outbox,
        }
    }

    /// The federation's topology (what the coordinator needs).
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The program (the whole program in every build; a federate runs only its part).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The program, to read reactor state after a run.
    pub fn program_mut(&mut self) -> &mut Program {
        &mut self.program
    }

    /// Runs the whole program in this process, single-threaded (a
    /// [`Role::Whole`](crate::Role::Whole) build; a federate build runs its federate with
    /// [`FederatedProgram::run_federate`]).
    ///
    /// # Errors
    /// [`FederatedError::Federation`] for a federate build, [`FederatedError::Run`] when the run
    /// fails.
    pub fn run_whole(&mut self, options: &RunOptions) -> Result<Metrics, FederatedError> {
        if self.me.is_some() {
            return Err(FederatedError::Federation(
                "a federate build runs with run_federate".into(),
            ));
        }
        let mut platform = StdPlatform::new(&self.program);
        run_sequential(&mut self.program, &mut platform, options, &mut ())
            .map_err(FederatedError::Run)
    }

    /// Runs this process's federate over `transport`, coordinated by the coordinator at its other
    /// end, until the federate's run ends (see the loop in `federate.rs`).
    ///
    /// # Errors
    /// [`FederatedError::Rejected`] or [`FederatedError::Timeout`] when joining fails;
    /// [`FederatedError::Run`] when the program's run fails; [`FederatedError::CoordinatorLost`]
    /// when the coordinator vanishes; [`FederatedError::FederateFailed`] when another federate
    /// failed during the run (this one ran to its end without it).
    pub fn run_federate(
        &mut self,
        transport: &dyn FederateTransport,
        options: &FederateOptions,
    ) -> Result<FederateReport, FederatedError> {
        let Some(me) = self.me else {
            return Err(FederatedError::Federation(
                "a whole build runs with run_whole".into(),
            ));
        };
        let ports = PortStatus::new(me, &self.topology, &self.program, &self.ends);
        let mut fed = FederateLoop {
            me,
            topology: &self.topology,
            transport,
            report: FederateReport::default(),
            granted: None,
            net_sent: None,
            failures: Vec::new(),
            stop_pending: None,
            known_stop: None,
            released: false,
            ports,
            ends: &self.ends,
            current: None,
            processed: None,
        };
        let start = fed.join(self.topology.fingerprint(), options.join_timeout)?;
        let began = std::time::Instant::now();
        fed.report.start_ns = start;
        // Keep only the injectors of connections into this federate: the others' keep-alive
        // would hold the run open for values that never come.
        for (k, inj) in self.injectors.iter_mut().enumerate() {
            if self.topology.links[k].to != me {
                *inj = None;
            }
        }
        let waker = transport.waker();
        self.program.inbox().set_notify(Box::new(move || {
            let _ = waker.send(FederateEvent::Wake);
        }));
        let fed_of = &self.fed_of;
        let prog: &Program = &self.program;
        let mut ready = LevelQueue::new(prog);
        let mut engine = Engine::new(prog, start, &options.run);
        engine.exclude(prog, |r| fed_of[r as usize] != Some(me));
        fed.known_stop = engine.stop_tag();
        let result = fed.run(&mut Run {
            prog,
            engine: &mut engine,
            ready: &mut ready,
            injectors: &mut self.injectors,
            outbox: &self.outbox,
        });
        // Resign even after an error, so that the others do not wait for this federate.
        fed.resign();
        result?;
        fed.report.metrics = engine.metrics();
        fed.report.run = began.elapsed();
        engine.finish().map_err(FederatedError::Run)?;
        if !fed.failures.is_empty() {
            return Err(FederatedError::FederateFailed(fed.failures));
        }
        Ok(fed.report)
    }
}

/// A platform for whole runs: the Unix clock, and a sleep that values in the inbox interrupt.
struct StdPlatform {
    signal: Arc<(Mutex<bool>, Condvar)>,
}

impl StdPlatform {
    fn new(program: &Program) -> StdPlatform {
        let signal = Arc::new((Mutex::new(false), Condvar::new()));
        let s = signal.clone();
        program.inbox().set_notify(Box::new(move || {
            if let Ok(mut woken) = s.0.lock() {
                *woken = true;
                s.1.notify_all();
            }
        }));
        StdPlatform { signal }
    }
}

impl Clock for StdPlatform {
    fn now(&self) -> u64 {
        unix_now()
    }
}

impl Platform for StdPlatform {
    fn wait(&mut self, inbox: &Inbox, deadline: Option<u64>) {
        let (lock, cvar) = &*self.signal;
        let Ok(mut woken) = lock.lock() else { return };
        loop {
            if *woken || !inbox.is_empty() {
                *woken = false;
                return;
            }
            let timeout = match deadline {
                None => Duration::from_millis(100),
                Some(d) => {
                    let now = unix_now();
                    if now >= d {
                        return;
                    }
                    Duration::from_nanos(d - now)
                }
            };
            match cvar.wait_timeout(woken, timeout) {
                Ok((w, _)) => woken = w,
                Err(_) => return,
            }
            if deadline.is_none() && !*woken {
                // Keep-alive ended or a spurious wake-up: let the scheduler look again.
                return;
            }
        }
    }
}
