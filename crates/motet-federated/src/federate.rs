//! A federate's loop.
//!
//! The loop is the sequential scheduler's with one more rule: a tag is entered only once the
//! coordinator has granted it. Before each step the loop takes in what arrived (values at exact
//! tags into the program's inbox, grants, stop messages), then asks the engine what comes next:
//!
//! - a tag at or below the last grant: it is processed; the values its reactions sent on
//!   federated connections go to the coordinator, then the latest tag complete (LTC);
//! - a tag granted provisionally (PTAG, a federate on a zero-delay cycle): it is processed
//!   level by level up to the reactions that read network inputs still unknown at it (see
//!   [`port_status`](crate::port_status)). There the loop sends what its reactions sent so far,
//!   and port-absent messages for the outputs that are now known to be absent, then waits for
//!   the inputs: a value at this tag triggers its receiving reaction at once
//!   ([`Engine::inject_current`]), a port-absent message or a later value makes an input known,
//!   a grant in full makes all known. The tag is completed only once every input is known;
//! - a provisional grant for a tag before the engine's next (the coordinator extends a PTAG to
//!   the federates on a zero-delay cycle with its grantee): that tag is processed as above,
//!   with no event of its own, so that its absent outputs are told;
//! - a later tag: the loop reports it as its next event tag (NET) and waits for an arrival (a
//!   grant, or a value that brings an earlier tag);
//! - physical time to wait for: NET for that time, then wait for it or an arrival;
//! - nothing but input to wait for: NET `FOREVER`; once `FOREVER` is granted no value can come
//!   any more, the injectors are dropped and the engine ends the run as a starved one would.
//!
//! At the end the federate resigns. A stop requested by one of its reactions is agreed with the
//! others first (see [`coordinator`](crate::coordinator)): the federate does not enter its own
//! proposed stop tag until the stop is granted.

use std::sync::Mutex;
use std::time::Duration;

use motet_reactor_core::{Engine, LevelQueue, Next, Program, Tag};

use crate::error::FederatedError;
use crate::port_status::PortStatus;
use crate::program::{unix_now, FederateReport, Injector, LinkEnds, Outgoing, UnixClock};
use crate::topology::Topology;
use crate::transport::{FederateEvent, FederateTransport};
use crate::wire::{FromRti, ToRti, WireTag};

/// The state of a federate's loop (see the module docs).
pub(crate) struct FederateLoop<'a> {
    pub(crate) me: u32,
    pub(crate) topology: &'a Topology,
    pub(crate) transport: &'a dyn FederateTransport,
    pub(crate) report: FederateReport,
    pub(crate) granted: Option<Tag>,
    pub(crate) net_sent: Option<WireTag>,
    pub(crate) failures: Vec<String>,
    /// The stop tag this federate proposed and that is not granted yet.
    pub(crate) stop_pending: Option<Tag>,
    /// The engine's stop tag as last seen, to notice a reaction's stop request.
    pub(crate) known_stop: Option<Tag>,
    /// Whether `FOREVER` was granted and the injectors dropped.
    pub(crate) released: bool,
    /// The network ports' status, for tags granted provisionally.
    pub(crate) ports: PortStatus,
    /// The generated ends of each federated connection.
    pub(crate) ends: &'a [Option<LinkEnds>],
    /// The tag being processed provisionally, while its loop waits for inputs.
    pub(crate) current: Option<Tag>,
    /// The last tag processed.
    pub(crate) processed: Option<Tag>,
}

/// What the loop runs on: the program, its engine and ready queue, the injectors of its network
/// inputs and the outbox its reactions' federated sends go to.
pub(crate) struct Run<'r> {
    pub(crate) prog: &'r Program,
    pub(crate) engine: &'r mut Engine,
    pub(crate) ready: &'r mut LevelQueue,
    pub(crate) injectors: &'r mut [Option<Injector>],
    pub(crate) outbox: &'r Mutex<Vec<Outgoing>>,
}

impl FederateLoop<'_> {
    fn send(&mut self, msg: &ToRti) -> Result<(), FederatedError> {
        self.report.sent += 1;
        self.transport.send(msg)
    }

    /// Resigns and waits (boundedly) for the coordinator to take it, so that closing the
    /// connection afterwards is not taken for a failure.
    pub(crate) fn resign(&mut self) {
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
    pub(crate) fn join(&mut self, program: u64, timeout: Duration) -> Result<u64, FederatedError> {
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

    pub(crate) fn run(&mut self, run: &mut Run<'_>) -> Result<(), FederatedError> {
        let clock = UnixClock;
        loop {
            while let Ok(ev) = self.transport.events().try_recv() {
                self.take(ev, run)?;
            }
            let next = run.engine.next(run.prog, &clock);
            if self.known_stop != run.engine.stop_tag() {
                // Set by the engine itself (starvation): this federate's own end.
                self.known_stop = run.engine.stop_tag();
            }
            if let Some(p) = self.empty_tag_due(next, run.engine) {
                self.process(run, p)?;
                continue;
            }
            let wait_until = match next {
                Next::Done => return Ok(()),
                Next::Tag(t) => {
                    let granted = self.ports.may_enter(t, self.granted);
                    let held = self.stop_pending.is_some_and(|s| t >= s);
                    if granted && !held {
                        self.process(run, t)?;
                        continue;
                    }
                    self.ask(WireTag::from(t))?;
                    None
                }
                Next::WaitUntil(due) => {
                    let t = Tag::from_nanos(due.saturating_sub(run.engine.start()), 0);
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
                            run.injectors.iter_mut().for_each(|i| *i = None);
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
                Some(ev) => self.take(ev, run)?,
                None => return Err(FederatedError::CoordinatorLost),
            }
        }
    }

    /// A provisional grant for a tag before the engine's next: the federates on a zero-delay
    /// cycle with this one wait for its outputs at that tag (see
    /// [`coordinator`](crate::coordinator)), so it processes the tag, with no event of its own;
    /// inputs may still come at it.
    fn empty_tag_due(&self, next: Next, engine: &Engine) -> Option<Tag> {
        let p = self.ports.provisional?;
        if self.processed.is_some_and(|d| d >= p)
            || engine.stop_tag().is_some_and(|s| p > s)
            || self.stop_pending.is_some_and(|s| p >= s)
        {
            return None;
        }
        let before = match next {
            Next::Tag(t) => p < t,
            Next::WaitUntil(due) => p < Tag::from_nanos(due.saturating_sub(engine.start()), 0),
            Next::WaitForInput => true,
            Next::Done => false,
        };
        before.then_some(p)
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

    /// Takes in one arrival. While a tag is being processed provisionally (`current`), a value
    /// for it is taken in at once.
    fn take(&mut self, ev: FederateEvent, run: &mut Run<'_>) -> Result<(), FederatedError> {
        let Run {
            prog,
            engine,
            ready,
            injectors,
            ..
        } = run;
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
            FromRti::ProvisionalGrant(t) => {
                let t = Tag::from(t);
                self.ports.provisional = Some(self.ports.provisional.map_or(t, |p| p.max(t)));
            }
            FromRti::Start { .. } | FromRti::Resigned => {}
            FromRti::PortAbsent { link, tag } => self.ports.heard(link, Tag::from(tag), false),
            FromRti::Tagged { link, tag, payload } => {
                let tag = Tag::from(tag);
                self.ports.heard(link, tag, true);
                // The coordinator lowered this federate's NET to the value's tag: ask again
                // for the next tag, even if it is the one asked for before.
                self.net_sent = None;
                if self.current == Some(tag) {
                    // A value for the tag being processed: its receiving reaction has not run
                    // (it lies at or above the level the loop stopped at).
                    let ends = self.ends.get(link as usize).and_then(|e| e.as_ref());
                    let Some((action, decode)) =
                        ends.and_then(|e| e.decode.as_ref().map(|d| (e.action, d)))
                    else {
                        return Err(FederatedError::Federation(format!(
                            "a value on connection {link}, which does not end here"
                        )));
                    };
                    let value = decode(&payload)?;
                    engine.inject_current(prog, action, value, &mut |r| ready.push(prog, r));
                    return Ok(());
                }
                let inject = injectors
                    .get(link as usize)
                    .and_then(|i| i.as_ref())
                    .ok_or_else(|| {
                        FederatedError::Federation(format!(
                            "a value on connection {link}, which does not end here"
                        ))
                    })?;
                inject(tag, &payload)?;
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

    /// Processes tag `t`, granted in full or provisionally, then sends what its reactions sent,
    /// the port-absent messages due, and the LTC.
    fn process(&mut self, run: &mut Run<'_>, t: Tag) -> Result<(), FederatedError> {
        self.processed = Some(t);
        let clock = UnixClock;
        let prog = run.prog;
        let exec = |r: u32| {
            // SAFETY: reactions run one at a time in level order on this thread, so every
            // predecessor triggered at this tag has completed, and the tag does not change
            // meanwhile.
            unsafe { prog.execute(r as usize, &clock) };
        };
        let ready = &mut *run.ready;
        run.engine.enter_tag(prog, t, &mut |r| ready.push(prog, r));
        if self.ports.granted_in_full(t, self.granted) {
            run.engine.run_ready(prog, run.ready, exec);
        } else {
            self.current = Some(t);
            let done = self.run_provisionally(run, t, exec);
            self.current = None;
            done?;
        }
        run.engine.finish_tag(prog);
        self.flush(t, run.outbox)?;
        self.send_absent(t, u32::MAX)?;
        if run.engine.stop_tag() != self.known_stop && self.stop_pending.is_none() {
            // A reaction requested a stop: agree on it with the others.
            self.known_stop = run.engine.stop_tag();
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

    /// Runs provisionally granted tag `t` level by level, waiting for unknown inputs at the
    /// levels of their readers (see the module docs), until every input is known and nothing is
    /// left to run.
    fn run_provisionally(
        &mut self,
        run: &mut Run<'_>,
        t: Tag,
        exec: impl FnMut(u32) + Copy,
    ) -> Result<(), FederatedError> {
        loop {
            let limit = self.ports.limit(t, self.granted);
            let drained = run.engine.run_ready_below(run.prog, run.ready, limit, exec);
            // What the others may be waiting for: the values sent so far, and the outputs
            // whose sending reactions lie below the level reached.
            self.flush(t, run.outbox)?;
            self.send_absent(t, limit)?;
            if drained && self.ports.all_known(t, self.granted) {
                return Ok(());
            }
            let ev = self
                .transport
                .events()
                .recv()
                .map_err(|_| FederatedError::CoordinatorLost)?;
            self.take(ev, run)?;
        }
    }

    /// Sends the values the reactions of tag `t` put on federated connections so far.
    fn flush(&mut self, t: Tag, outbox: &Mutex<Vec<Outgoing>>) -> Result<(), FederatedError> {
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
                    self.ports.sent(o.link, t);
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
        Ok(())
    }

    /// Sends a port-absent message for each output found absent at `t` below level `passed`.
    fn send_absent(&mut self, t: Tag, passed: u32) -> Result<(), FederatedError> {
        for (link, tag) in self.ports.absent(t, passed) {
            let msg = ToRti::PortAbsent {
                fed: self.me,
                link,
                tag,
            };
            self.send(&msg)?;
        }
        Ok(())
    }
}
