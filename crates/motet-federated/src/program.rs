//! A built federated program, and its two ways to run: whole in one process
//! ([`FederatedProgram::run_whole`], the reference run) or as one federate
//! ([`FederatedProgram::run_federate`]).
//!
//! # A federate's loop
//!
//! The loop is the sequential scheduler's with one more rule: a tag is entered only once the
//! coordinator has granted it. Before each step the loop takes in what arrived (values at exact
//! tags into the program's inbox, grants, stop messages), then asks the engine what comes next:
//!
//! - a tag at or below the last grant: it is processed; the values its reactions sent on
//!   federated connections go to the coordinator, then the latest tag complete (LTC);
//! - a later tag: the loop reports it as its next event tag (NET) and waits for an arrival (a
//!   grant, or a value that brings an earlier tag);
//! - physical time to wait for: NET for that time, then wait for it or an arrival;
//! - nothing but input to wait for: NET `FOREVER`; once `FOREVER` is granted no value can come
//!   any more, the injectors are dropped and the engine ends the run as a starved one would.
//!
//! At the end the federate resigns. A stop requested by one of its reactions is agreed with the
//! others first (see [`coordinator`](crate::coordinator)): the federate does not enter its own
//! proposed stop tag until the stop is granted.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use motet_reactor_core::{
    run_sequential, Clock, Engine, Inbox, LevelQueue, Metrics, Next, Platform, Program, RunOptions,
    Tag,
};

use crate::error::FederatedError;
use crate::topology::Topology;
use crate::transport::{FederateEvent, FederateTransport};
use crate::wire::{FromRti, ToRti, WireTag};

/// Puts a value that arrived on a federated connection into the program at its tag.
pub(crate) type Injector = Box<dyn Fn(Tag, &[u8]) -> Result<(), FederatedError> + Send>;

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
        outbox: Arc<Mutex<Vec<Outgoing>>>,
    ) -> FederatedProgram {
        FederatedProgram {
            program,
            topology,
            me,
            fed_of,
            injectors,
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
    /// end, until the federate's run ends (see the module docs).
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
        let result = fed.run(
            prog,
            &mut engine,
            &mut ready,
            &mut self.injectors,
            &self.outbox,
        );
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

/// The state of a federate's loop (see the module docs).
struct FederateLoop<'a> {
    me: u32,
    topology: &'a Topology,
    transport: &'a dyn FederateTransport,
    report: FederateReport,
    granted: Option<Tag>,
    net_sent: Option<WireTag>,
    failures: Vec<String>,
    /// The stop tag this federate proposed and that is not granted yet.
    stop_pending: Option<Tag>,
    /// The engine's stop tag as last seen, to notice a reaction's stop request.
    known_stop: Option<Tag>,
    /// Whether `FOREVER` was granted and the injectors dropped.
    released: bool,
}

impl FederateLoop<'_> {
    fn send(&mut self, msg: &ToRti) -> Result<(), FederatedError> {
        self.report.sent += 1;
        self.transport.send(msg)
    }

    /// Resigns and waits (boundedly) for the coordinator to take it, so that closing the
    /// connection afterwards is not taken for a failure.
    fn resign(&mut self) {
        if self.send(&ToRti::Resign { fed: self.me }).is_err() {
            return;
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while let Ok(ev) = self.transport.events().recv_deadline(deadline) {
            match ev {
                FederateEvent::Rti(FromRti::Resigned) | FederateEvent::RtiLost => return,
                FederateEvent::Rti(FromRti::Failed(name)) if !self.failures.contains(&name) => {
                    self.failures.push(name);
                }
                _ => {}
            }
        }
    }

    /// Joins and waits for the start; returns the start time.
    fn join(&mut self, program: u64, timeout: Duration) -> Result<u64, FederatedError> {
        let deadline = std::time::Instant::now() + timeout;
        let join = ToRti::Join {
            fed: self.me,
            program,
        };
        self.send(&join)?;
        loop {
            let wait = if self.transport.repeats_join() {
                Duration::from_millis(200)
            } else {
                timeout
            };
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(FederatedError::Timeout("the coordinator's start"));
            }
            match self
                .transport
                .events()
                .recv_timeout(wait.min(deadline - now))
            {
                Ok(FederateEvent::Rti(FromRti::Start { start_ns })) => {
                    self.report.received += 1;
                    return Ok(start_ns);
                }
                Ok(FederateEvent::Rti(FromRti::Reject { reason })) => {
                    return Err(FederatedError::Rejected(reason))
                }
                Ok(FederateEvent::RtiLost) => return Err(FederatedError::CoordinatorLost),
                Ok(_) => {}
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    if self.transport.repeats_join() {
                        self.send(&join)?;
                    }
                }
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                    return Err(FederatedError::CoordinatorLost)
                }
            }
        }
    }

    fn run(
        &mut self,
        prog: &Program,
        engine: &mut Engine,
        ready: &mut LevelQueue,
        injectors: &mut [Option<Injector>],
        outbox: &Mutex<Vec<Outgoing>>,
    ) -> Result<(), FederatedError> {
        let clock = UnixClock;
        loop {
            while let Ok(ev) = self.transport.events().try_recv() {
                self.take(ev, engine, injectors)?;
            }
            let next = engine.next(prog, &clock);
            if self.known_stop != engine.stop_tag() {
                // Set by the engine itself (starvation): this federate's own end.
                self.known_stop = engine.stop_tag();
            }
            let wait_until = match next {
                Next::Done => return Ok(()),
                Next::Tag(t) => {
                    let granted = self.granted.is_some_and(|g| g >= t);
                    let held = self.stop_pending.is_some_and(|s| t >= s);
                    if granted && !held {
                        self.process(prog, engine, ready, t, outbox)?;
                        continue;
                    }
                    self.ask(WireTag::from(t))?;
                    None
                }
                Next::WaitUntil(due) => {
                    let t = Tag::from_nanos(due.saturating_sub(engine.start()), 0);
                    if self.granted.is_none_or(|g| g < t) {
                        self.ask(WireTag::from(t))?;
                    }
                    Some(due)
                }
                Next::WaitForInput => {
                    if self.granted == Some(Tag::from(WireTag::FOREVER)) {
                        if !self.released {
                            // Nothing can arrive any more: let the engine end the run.
                            self.released = true;
                            injectors.iter_mut().for_each(|i| *i = None);
                            continue;
                        }
                    } else {
                        self.ask(WireTag::FOREVER)?;
                    }
                    None
                }
            };
            let ev = match wait_until {
                None => self.transport.events().recv().ok(),
                Some(due) => {
                    let left = Duration::from_nanos(due.saturating_sub(unix_now()));
                    match self.transport.events().recv_timeout(left) {
                        Ok(ev) => Some(ev),
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => None,
                    }
                }
            };
            match ev {
                Some(ev) => self.take(ev, engine, injectors)?,
                None => return Err(FederatedError::CoordinatorLost),
            }
        }
    }

    /// Reports `tag` as the next event tag, once per change.
    fn ask(&mut self, tag: WireTag) -> Result<(), FederatedError> {
        if self.net_sent != Some(tag) {
            self.net_sent = Some(tag);
            let msg = ToRti::NextEventTag { fed: self.me, tag };
            self.send(&msg)?;
        }
        Ok(())
    }

    /// Takes in one arrival.
    fn take(
        &mut self,
        ev: FederateEvent,
        engine: &mut Engine,
        injectors: &[Option<Injector>],
    ) -> Result<(), FederatedError> {
        let msg = match ev {
            FederateEvent::Wake => return Ok(()),
            FederateEvent::RtiLost => return Err(FederatedError::CoordinatorLost),
            FederateEvent::Physical { link, payload } => {
                // After the injectors were released (FOREVER granted) a physical value has
                // nowhere to go: the run is ending.
                if let Some(inject) = injectors.get(link as usize).and_then(|i| i.as_ref()) {
                    inject(Tag::ZERO, &payload)?;
                }
                return Ok(());
            }
            FederateEvent::Rti(msg) => msg,
        };
        self.report.received += 1;
        match msg {
            FromRti::Grant(t) => {
                let t = Tag::from(t);
                self.granted = Some(self.granted.map_or(t, |g| g.max(t)));
            }
            // Zero-delay cycles between federates are refused when building, so a
            // provisional grant never comes.
            FromRti::ProvisionalGrant(_) | FromRti::Start { .. } | FromRti::Resigned => {}
            FromRti::Tagged { link, tag, payload } => {
                let inject = injectors
                    .get(link as usize)
                    .and_then(|i| i.as_ref())
                    .ok_or_else(|| {
                        FederatedError::Federation(format!(
                            "a value on connection {link}, which does not end here"
                        ))
                    })?;
                inject(Tag::from(tag), &payload)?;
                // An earlier tag may be next now: ask again when it is.
                self.net_sent = None;
            }
            FromRti::StopRequest(t) => {
                let t = Tag::from(t);
                let earliest = if engine.metrics().tags > 0 {
                    engine.tag().delay_nanos(0)
                } else {
                    Tag::ZERO
                };
                let mine = t.max(earliest);
                self.stop_pending = Some(mine);
                let msg = ToRti::StopReply {
                    fed: self.me,
                    tag: mine.into(),
                };
                self.send(&msg)?;
            }
            FromRti::StopGranted(t) => {
                engine.set_stop_tag(Tag::from(t));
                self.known_stop = engine.stop_tag();
                self.stop_pending = None;
            }
            FromRti::Failed(name) => {
                if !self.failures.contains(&name) {
                    self.failures.push(name);
                }
            }
            FromRti::Reject { reason } => return Err(FederatedError::Rejected(reason)),
        }
        Ok(())
    }

    /// Processes granted tag `t`, then sends what its reactions sent and the LTC.
    fn process(
        &mut self,
        prog: &Program,
        engine: &mut Engine,
        ready: &mut LevelQueue,
        t: Tag,
        outbox: &Mutex<Vec<Outgoing>>,
    ) -> Result<(), FederatedError> {
        let clock = UnixClock;
        engine.enter_tag(prog, t, &mut |r| ready.push(prog, r));
        engine.run_ready(prog, ready, |r| {
            // SAFETY: reactions run one at a time in level order on this thread, so every
            // predecessor triggered at this tag has completed, and the tag does not change
            // meanwhile.
            unsafe { prog.execute(r as usize, &clock) };
        });
        engine.finish_tag(prog);
        let sent: Vec<Outgoing> = outbox
            .lock()
            .map(|mut q| core::mem::take(&mut *q))
            .unwrap_or_default();
        for o in sent {
            let payload = o.payload?;
            match self.topology.links.get(o.link as usize) {
                Some(l) if l.physical => {
                    self.report.sent += 1;
                    self.transport.send_physical(l.to, o.link, payload)?;
                }
                _ => {
                    let msg = ToRti::Tagged {
                        fed: self.me,
                        link: o.link,
                        tag: o.tag,
                        payload,
                    };
                    self.send(&msg)?;
                }
            }
        }
        if engine.stop_tag() != self.known_stop && self.stop_pending.is_none() {
            // A reaction requested a stop: agree on it with the others.
            self.known_stop = engine.stop_tag();
            if let Some(s) = self.known_stop {
                self.stop_pending = Some(s);
                let msg = ToRti::StopRequest {
                    fed: self.me,
                    tag: s.into(),
                };
                self.send(&msg)?;
            }
        }
        let msg = ToRti::LatestTagComplete {
            fed: self.me,
            tag: t.into(),
        };
        self.send(&msg)
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
