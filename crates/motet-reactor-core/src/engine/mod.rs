//! The tag loop shared by every scheduler: the event queue, entering a tag (which events are
//! present, which reactions they trigger), completing a reaction (what its outputs trigger, what it
//! scheduled), finishing a tag (clearing values, switching modes) and deciding what comes next
//! (the next tag, waiting for physical time or input, or the end).
//!
//! Only one thread at a time touches the [`Engine`]: the sequential scheduler's, or whichever worker
//! plays the scheduler in a parallel one. What reactions read while they run (port values, action
//! values, timer presence, the tag) lives in the [`Program`]'s cells and changes only between tags.
//!
//! # Stop and shutdown
//!
//! The run ends at a *stop tag*: the timeout (T0 + timeout, 0), one microstep after a
//! [`request_stop`](crate::Ctx::request_stop), or one microstep after the event queue runs dry with
//! nothing keeping the program alive. Events at the stop tag still happen, together with the
//! shutdown reactions; nothing after it does.
//!
//! # Files
//!
//! This file holds the engine's state, the event queue and the decision of what comes next
//! ([`Engine::next`]); the tag loop's three steps have a file each: [`enter`] (a tag's events
//! trigger their reactions), [`complete`] (a finished reaction's effects are taken in) and
//! [`finish`] (a tag's values are cleared and its mode switches applied).

mod complete;
mod enter;
mod finish;
mod mode_life;
mod mutate;
mod part;
mod watchdog;

pub(crate) use complete::fault_error;

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;
use core::time::Duration;

use crate::ctx::Transition;
use crate::error::RunError;
use crate::next_microstep::NextMicrostep;
use crate::program::{Clock, Program, TagInfo};
use crate::time::{nanos, Tag};

/// What kind of event; the order only breaks ties between events of one tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Startup,
    Timer,
    Action,
    /// Reset entry into a mode.
    ModeEnter,
    /// A watchdog's expiry, if it still stands when its tag comes (see `watchdog`).
    Watchdog,
    /// The first entry into a mode, which triggers its startup reactions (see `mode_life`).
    ModeStartup,
    /// The startup of reactors created by a mutation (`ix`: their list in the engine's
    /// `mutation` record).
    Created,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    tag: Tag,
    kind: Kind,
    ix: u32,
}

/// The trigger number of a reaction whose mode is inactive: above every tag's sequence number.
const BLOCKED: u64 = u64::MAX;

/// What the scheduler should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Process this tag now.
    Tag(Tag),
    /// Sleep until this platform time (or until a physical action arrives), then ask again.
    WaitUntil(u64),
    /// Nothing is scheduled but senders may still send: sleep until a physical action arrives.
    WaitForInput,
    /// The run is over.
    Done,
}

/// How a run is configured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Do not wait for physical time to reach a tag's time (LF's fast mode).
    pub fast: bool,
    /// Stop at (T0 + timeout, 0).
    pub timeout: Option<Duration>,
}

/// The figures of LF's Table 1 for one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metrics {
    /// Reactors declared.
    pub reactors: usize,
    /// Reactions declared.
    pub reactions: usize,
    /// Actions declared.
    pub actions: usize,
    /// Ports declared (multiport channels counted one by one).
    pub ports: usize,
    /// Connections (channel pairs).
    pub connections: usize,
    /// Tags processed.
    pub tags: u64,
    /// Reactions executed (generated ones included).
    pub reactions_executed: u64,
    /// Ports set (first set per port and tag).
    pub ports_set: u64,
    /// Actions scheduled (events created).
    pub actions_scheduled: u64,
    /// Reactors created by mutations (generated ones not counted).
    pub reactors_created: u64,
    /// Reactors deleted by mutations (generated ones not counted).
    pub reactors_deleted: u64,
    /// Mutations rejected at their tag boundary (see `Program::mutation_errors`).
    pub mutations_rejected: u64,
    /// Pending events of deleted reactors' actions and timers, dropped with them.
    pub events_dropped: u64,
}

/// The scheduler's state (see the module docs).
pub struct Engine {
    /// The id of the program this engine runs: every method that takes a tag's events or a
    /// reaction's completion in checks it once, and the per-reaction, per-port and per-action
    /// look-ups behind it rely on it (program ids are unique, and a program's tables never change
    /// after it is built).
    prog_id: u32,
    queue: BinaryHeap<Reverse<Event>>,
    /// Events for the next microstep of the current tag (zero-delay actions, the most common kind
    /// in message-passing programs), kept out of the heap: no tag can come earlier, so they need
    /// no ordering.
    next_microstep: NextMicrostep,
    info: TagInfo,
    stop_tag: Option<Tag>,
    done: bool,
    fast: bool,
    /// `fast && !done`: whether [`Engine::enter_next_microstep`] may enter a tag at all (one
    /// test on every tag of a message-passing program instead of two).
    stepping: bool,
    /// Slots set at this tag whose values need dropping at its end.
    set_slots: Vec<u32>,
    /// Actions present at this tag whose values need dropping at its end.
    present_actions: Vec<u32>,
    dirty_multiports: Vec<u32>,
    /// Per reaction, the tag sequence number at which it was last triggered, or [`BLOCKED`] while
    /// its enclosing mode is inactive: triggering tests one number (`>=` the current tag's).
    triggered: Vec<u64>,
    /// The reactions that lie in a mode, with their mode: whose `triggered` entries a mode
    /// switch refreshes.
    modal: Vec<(u32, u32)>,
    /// Per reactor, its current mode (`u32::MAX` if it has none).
    current_mode: Vec<u32>,
    /// Per mode, the logical time it was last left.
    left_at: Vec<u64>,
    /// (reaction, mode, transition) requested at this tag.
    mode_requests: Vec<(u32, u32, Transition)>,
    /// Events of inactive modes, held until their mode is entered again.
    suspended: Vec<Event>,
    /// Per mode, whether it has been active (see `mode_life`); empty without modes.
    mode_entered: Vec<bool>,
    /// Per mode, its startup reactions (see `mode_life`); empty without modes.
    mode_startup: Vec<Vec<u32>>,
    /// Per watchdog, the tag it is due to expire at, if armed (see `watchdog`).
    watchdogs: Vec<Option<Tag>>,
    /// Per action, the last tag given to a value from the inbox.
    last_physical: Vec<Tag>,
    /// Whether the current tag has work for `finish_tag` beyond the common case: values to drop,
    /// present-channel lists to clear, mode requests, the stop tag, an error. Set wherever one of
    /// those arises, so that a quiet tag ends with one test.
    extras: bool,
    metrics: Metrics,
    error: Option<RunError>,
    /// Mutations requested and not yet applied, and the startups of created reactors.
    mutation: mutate::Pending,
}

impl Engine {
    /// An engine for `prog`, starting at platform time `now`: schedules startup, the timers and the
    /// timeout.
    ///
    /// # Panics
    /// If `prog` has run already: a program runs once (its state and pending values are not reset).
    pub fn new(prog: &Program, now: u64, options: &RunOptions) -> Engine {
        let again = prog
            .started
            .swap(true, core::sync::atomic::Ordering::Relaxed);
        assert!(
            !again,
            "a program runs once: build a new one for another run"
        );
        let g = &prog.graph;
        let mut e = Engine {
            prog_id: prog.id,
            queue: BinaryHeap::new(),
            next_microstep: NextMicrostep::new(),
            info: TagInfo {
                start: now,
                ..TagInfo::default()
            },
            stop_tag: options.timeout.map(|t| Tag::from_nanos(nanos(t), 0)),
            done: false,
            fast: options.fast,
            stepping: options.fast,
            set_slots: Vec::new(),
            present_actions: Vec::new(),
            dirty_multiports: Vec::new(),
            triggered: alloc::vec![0; g.reaction_mode.len()],
            modal: g
                .reaction_mode
                .iter()
                .enumerate()
                .filter(|&(_, &m)| m != u32::MAX)
                .map(|(r, &m)| (r as u32, m))
                .collect(),
            current_mode: g
                .reactors
                .iter()
                .map(|r| r.modes.first().copied().unwrap_or(u32::MAX))
                .collect(),
            left_at: alloc::vec![0; g.modes.len()],
            mode_requests: Vec::new(),
            suspended: Vec::new(),
            mode_entered: Vec::new(),
            mode_startup: Vec::new(),
            watchdogs: alloc::vec![None; g.watchdogs.len()],
            last_physical: alloc::vec![Tag::ZERO; g.actions.len()],
            extras: false,
            metrics: Metrics {
                reactors: g.declared_reactors(),
                reactions: g.declared_reactions(),
                actions: g.actions.iter().filter(|a| !a.hidden).count(),
                ports: g.ports.len(),
                connections: g.connections.len(),
                ..Metrics::default()
            },
            error: None,
            mutation: mutate::Pending::default(),
        };
        e.block_inactive(prog);
        e.init_mode_life(prog);
        e.push(Tag::ZERO, Kind::Startup, 0);
        for (i, t) in g.timers.iter().enumerate() {
            let tag = Tag::from_nanos(t.offset, 0);
            e.push(tag, Kind::Timer, i as u32);
        }
        e
    }

    /// Panics unless `prog` is the program this engine was made for (see `prog_id`).
    #[inline(always)]
    fn check_program(&self, prog: &Program) {
        if prog.id != self.prog_id {
            another_program();
        }
    }

    fn push(&mut self, tag: Tag, kind: Kind, ix: u32) {
        self.queue.push(Reverse(Event { tag, kind, ix }));
    }

    /// The current (or last) tag.
    pub fn tag(&self) -> Tag {
        self.info.tag
    }

    /// The platform time of the start tag.
    pub fn start(&self) -> u64 {
        self.info.start
    }

    /// The counters so far.
    pub fn metrics(&self) -> Metrics {
        self.metrics
    }

    /// Adds `n` executed reactions to the metrics (for schedulers that count in bulk).
    pub fn count_executed(&mut self, n: u64) {
        self.metrics.reactions_executed += n;
    }

    /// The outcome of the run: the metrics, or the first error.
    pub fn finish(self) -> Result<Metrics, RunError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.metrics),
        }
    }

    /// Stops the run with `error` at the end of the current tag (keeps the first error).
    pub fn fail(&mut self, error: RunError) {
        if self.error.is_none() {
            self.error = Some(error);
        }
        self.extras = true;
    }

    /// Whether the run has failed.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Moves what arrived in the inbox into the event queue, tagged from its send time (or the
    /// clock's now, for values sent without a stamp).
    #[inline]
    pub fn drain_inbox(&mut self, prog: &Program, clock: &dyn Clock) {
        if !prog.inbox.is_empty() {
            self.drain_arrivals(prog, clock);
        }
    }

    #[cold]
    fn drain_arrivals(&mut self, prog: &Program, clock: &dyn Clock) {
        let now = clock.now();
        for arrival in prog.inbox.take_all() {
            if let Some(tag) = arrival.at {
                self.accept_at(prog, arrival.action, arrival.program, tag, arrival.value);
                continue;
            }
            self.accept(
                prog,
                now,
                arrival.action,
                arrival.program,
                arrival.sent_at,
                arrival.value,
            );
        }
        let mut lost = Vec::new();
        prog.inbox.drain_rings(
            &mut |action, program, sent_at, value| {
                self.accept(prog, now, action, program, sent_at, value)
            },
            &mut |action, n| lost.push((action, n)),
        );
        for (a, n) in lost {
            let action = prog
                .graph
                .actions
                .get(a as usize)
                .map_or_else(|| alloc::format!("#{a}"), |m| m.name.clone());
            self.fail(RunError::PhysicalOverflow { action, lost: n });
        }
    }

    /// Puts one value from the inbox into the event queue (see [`Engine::drain_inbox`]).
    fn accept(
        &mut self,
        prog: &Program,
        now: u64,
        a: u32,
        program: u32,
        sent_at: Option<u64>,
        value: alloc::boxed::Box<dyn core::any::Any + Send>,
    ) {
        let Some(meta) = prog
            .graph
            .actions
            .get(a as usize)
            .filter(|_| program == prog.id)
        else {
            self.fail(RunError::BadPhysicalValue {
                action: alloc::format!("#{a} of another program"),
            });
            return;
        };
        let sent = sent_at.unwrap_or(now);
        let time = sent
            .saturating_sub(self.info.start)
            .saturating_add(meta.min_delay);
        let mut tag = Tag::from_nanos(time, 0);
        if self.info.seq > 0 && tag <= self.info.tag {
            tag = self.info.tag.delay_nanos(0);
        }
        // Values that land on a tag already given to this action take the next microstep:
        // none is lost, and each sender's values stay in order.
        let last = &mut self.last_physical[a as usize];
        if tag <= *last {
            tag = last.delay_nanos(0);
        }
        *last = tag;
        // SAFETY: between tags: no reaction runs.
        if unsafe { prog.actions[a as usize].push_boxed(tag, value) } {
            self.push(tag, Kind::Action, a);
        } else {
            self.fail(RunError::BadPhysicalValue {
                action: meta.name.clone(),
            });
        }
    }

    /// Puts one value sent for an exact tag into the event queue (see
    /// [`PhysicalSender::send_at_tag`](crate::PhysicalSender::send_at_tag)); a tag the run has
    /// passed fails it.
    fn accept_at(
        &mut self,
        prog: &Program,
        a: u32,
        program: u32,
        tag: Tag,
        value: alloc::boxed::Box<dyn core::any::Any + Send>,
    ) {
        let Some(meta) = prog
            .graph
            .actions
            .get(a as usize)
            .filter(|_| program == prog.id)
        else {
            self.fail(RunError::BadPhysicalValue {
                action: alloc::format!("#{a} of another program"),
            });
            return;
        };
        if self.info.seq > 0 && tag <= self.info.tag {
            self.fail(RunError::LateArrival {
                action: meta.name.clone(),
                tag,
                current: self.info.tag,
            });
            return;
        }
        // SAFETY: between tags: no reaction runs.
        if unsafe { prog.actions[a as usize].push_boxed(tag, value) } {
            self.push(tag, Kind::Action, a);
        } else {
            self.fail(RunError::BadPhysicalValue {
                action: meta.name.clone(),
            });
        }
    }

    /// Decides what comes next (see [`Next`]); reads the clock only when it matters (physical
    /// time chasing, values from the inbox).
    #[inline]
    pub fn next(&mut self, prog: &Program, clock: &dyn Clock) -> Next {
        self.next_early(prog, clock, 0)
    }

    /// [`Engine::next`], but a tag is due `lead` nanoseconds before its time: the scheduler
    /// enters it early and waits for its time only before running its first reaction (see
    /// [`Platform::entry_lead`](crate::Platform::entry_lead)). `WaitUntil` still names the tag's
    /// own time. With `lead` 0 this is [`Engine::next`].
    #[inline]
    pub fn next_early(&mut self, prog: &Program, clock: &dyn Clock, lead: u64) -> Next {
        if self.done {
            return Next::Done;
        }
        // Draining never ends the run (a bad value fails it at the end of the next tag).
        self.drain_inbox(prog, clock);
        if !self.watchdogs.is_empty() {
            self.watch(prog, clock);
        }
        let queued = if self.next_microstep.is_empty() {
            self.queue.peek().map(|e| e.0.tag)
        } else {
            Some(self.next_microstep.tag())
        };
        let next = match (queued, self.stop_tag) {
            (Some(q), Some(s)) => q.min(s),
            (Some(q), None) => q,
            (None, Some(s)) => s,
            (None, None) => {
                if prog.inbox.keepalive() {
                    return Next::WaitForInput;
                }
                // Starvation: shut down one microstep later.
                let s = self.info.tag.delay_nanos(0);
                self.stop_tag = Some(s);
                s
            }
        };
        if !self.fast {
            let due = self.info.start.saturating_add(next.nanos());
            if clock.now() < due.saturating_sub(lead) {
                return Next::WaitUntil(due);
            }
        }
        Next::Tag(next)
    }

    /// Requests a stop one microstep after the current tag (ignored at the stop tag itself).
    pub fn request_stop(&mut self) {
        if self.info.shutdown {
            return;
        }
        let s = self.info.tag.delay_nanos(0);
        if self.stop_tag.is_none_or(|x| s < x) {
            self.stop_tag = Some(s);
        }
    }
}

/// The panic of `Engine::check_program`.
#[cold]
#[inline(never)]
fn another_program() -> ! {
    panic!("an engine runs only the program it was made for")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ProgramBuilder, Startup};

    fn one_reaction() -> Program {
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", ());
        b.reaction(r, "go").trigger(Startup).body(|_, _| {});
        b.build().unwrap()
    }

    /// An engine's look-ups rely on running the program it was made for: given another, it
    /// panics instead of reading that program's tables with this one's indices.
    #[test]
    #[should_panic(expected = "an engine runs only the program it was made for")]
    fn refuses_another_program() {
        let a = one_reaction();
        let b = one_reaction();
        let mut engine = Engine::new(&a, 0, &RunOptions::default());
        engine.enter_tag(&b, Tag::ZERO, &mut |_| {});
    }
}
