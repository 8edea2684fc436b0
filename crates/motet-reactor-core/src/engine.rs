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

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;
use core::time::Duration;

use crate::ctx::Transition;
use crate::error::RunError;
use crate::program::{Clock, Fault, Item, Program, TagInfo};
use crate::soon::Soon;
use crate::time::{nanos, Tag};

/// What kind of event; the order only breaks ties between events of one tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Startup,
    Timer,
    Action,
    /// Reset entry into a mode.
    ModeEnter,
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
    soon: Soon,
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
    /// Per action, the last tag given to a value from the inbox.
    last_physical: Vec<Tag>,
    /// Whether the current tag has work for `finish_tag` beyond the common case: values to drop,
    /// present-channel lists to clear, mode requests, the stop tag, an error. Set wherever one of
    /// those arises, so that a quiet tag ends with one test.
    extras: bool,
    metrics: Metrics,
    error: Option<RunError>,
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
            soon: Soon::new(),
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
        };
        e.block_inactive(prog);
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
            let a = arrival.action;
            let Some(meta) = prog
                .graph
                .actions
                .get(a as usize)
                .filter(|_| arrival.program == prog.id)
            else {
                self.fail(RunError::BadPhysicalValue {
                    action: alloc::format!("#{a} of another program"),
                });
                continue;
            };
            let sent = arrival.sent_at.unwrap_or(now);
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
            if unsafe { prog.actions[a as usize].push_boxed(tag, arrival.value) } {
                self.push(tag, Kind::Action, a);
            } else {
                self.fail(RunError::BadPhysicalValue {
                    action: meta.name.clone(),
                });
            }
        }
    }

    /// Decides what comes next (see [`Next`]); reads the clock only when it matters (physical
    /// time chasing, values from the inbox).
    #[inline]
    pub fn next(&mut self, prog: &Program, clock: &dyn Clock) -> Next {
        if self.done {
            return Next::Done;
        }
        // Draining never ends the run (a bad value fails it at the end of the next tag).
        self.drain_inbox(prog, clock);
        let queued = if self.soon.is_empty() {
            self.queue.peek().map(|e| e.0.tag)
        } else {
            Some(self.soon.tag())
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
            if clock.now() < due {
                return Next::WaitUntil(due);
            }
        }
        Next::Tag(next)
    }

    /// Enters `tag` (as returned by [`Engine::next`]): takes its events and triggers their
    /// reactions through `sink`. No reaction runs before this returns, so presence and triggers are
    /// taken in one pass over the events.
    pub fn enter_tag(&mut self, prog: &Program, tag: Tag, sink: &mut impl FnMut(u32)) {
        self.check_program(prog);
        self.begin(tag);
        self.info.shutdown = self.stop_tag == Some(tag);
        self.extras |= self.info.shutdown;
        if !self.soon.is_empty() {
            if self.soon.tag() != tag {
                // Not reached in practice (nothing comes between a tag and its next microstep),
                // but never lose an event: back into the heap.
                let at = self.soon.tag();
                for ix in self.soon.drain() {
                    self.queue.push(Reverse(Event {
                        tag: at,
                        kind: Kind::Action,
                        ix,
                    }));
                }
            } else {
                self.fire_soon(prog, tag, sink);
            }
        }
        while let Some(&Reverse(ev)) = self.queue.peek() {
            if ev.tag != tag {
                break;
            }
            self.queue.pop();
            self.fire(prog, ev, sink);
        }
        // `soon` is empty now (fired, or moved into the heap); what this tag's reactions schedule
        // for the next microstep goes there.
        self.soon.set_tag(tag.delay_nanos(0));
        // SAFETY: between tags: no reaction runs, so none reads the tag info.
        unsafe { *prog.info.get() = self.info };
        if self.info.shutdown {
            for &r in &prog.graph.shutdown {
                self.trigger(r, sink);
            }
        }
    }

    /// Enters the next microstep of the current tag, as [`Engine::next`] and
    /// [`Engine::enter_tag`] would, where that is all they would do: in fast mode, with no run
    /// end, no input and no other event due by then, the zero-delay actions scheduled at the
    /// current tag are the next tag's only events. Returns `false`, doing nothing, otherwise
    /// (then ask [`Engine::next`]). The tag loop of message-passing programs, one microstep after
    /// another, goes through here.
    #[inline]
    pub fn enter_next_microstep(&mut self, prog: &Program, sink: &mut impl FnMut(u32)) -> bool {
        if self.soon.is_empty() || !self.stepping || !prog.inbox.is_empty() {
            return false;
        }
        let tag = self.soon.tag();
        if self.stop_tag.is_some_and(|s| s <= tag)
            || self.queue.peek().is_some_and(|e| e.0.tag <= tag)
        {
            return false;
        }
        self.check_program(prog);
        self.begin(tag);
        self.info.shutdown = false;
        self.fire_soon(prog, tag, sink);
        self.soon.set_tag(tag.delay_nanos(0));
        // Field by field, from the values at hand: copying the whole record would load the
        // fields `begin` has just stored with one wide load, which the processor cannot forward
        // from those narrower stores (it waits for them to reach the cache, a stall on every tag).
        // SAFETY: between tags: no reaction runs, so none reads the tag info.
        unsafe {
            let info = &mut *prog.info.get();
            info.tag = tag;
            info.seq = self.info.seq;
            info.startup = false;
            info.shutdown = false;
            info.reset = false;
        }
        true
    }

    /// Starts tag `tag`: its tag info (but for `shutdown`) and the count of tags.
    #[inline(always)]
    fn begin(&mut self, tag: Tag) {
        self.info.tag = tag;
        self.info.seq += 1;
        self.info.startup = false;
        self.info.reset = false;
        self.metrics.tags += 1;
    }

    /// Fires the events of `soon`, which are at `tag`, the tag being entered.
    #[inline(always)]
    fn fire_soon(&mut self, prog: &Program, tag: Tag, sink: &mut impl FnMut(u32)) {
        // `fire_action` never adds to `soon` (it holds events of the next microstep).
        let first = self.soon.take_first();
        self.fire_action(prog, first, tag, sink);
        if let Some(rest) = self.soon.take_rest() {
            for &ix in &rest {
                self.fire_action(prog, ix, tag, sink);
            }
            self.soon.recycle(rest);
        }
    }

    /// One event of the tag being entered: makes its trigger present and triggers its reactions
    /// (or holds it while its mode is inactive).
    #[inline(always)]
    fn fire(&mut self, prog: &Program, ev: Event, sink: &mut impl FnMut(u32)) {
        let g = &prog.graph;
        let mode = match ev.kind {
            Kind::Timer => g.timers[ev.ix as usize].mode.unwrap_or(u32::MAX),
            _ => u32::MAX,
        };
        if mode != u32::MAX && !g.mode_active(mode, &self.current_mode) {
            self.suspended.push(ev);
            return;
        }
        let list: &[u32] = match ev.kind {
            Kind::Startup => {
                self.info.startup = true;
                &g.startup
            }
            Kind::Timer => {
                // SAFETY: between tags.
                unsafe { *prog.timer_present[ev.ix as usize].get() = self.info.seq };
                let timer = &g.timers[ev.ix as usize];
                if timer.period > 0 {
                    self.push(ev.tag.delay_nanos(timer.period), Kind::Timer, ev.ix);
                }
                &timer.triggers
            }
            Kind::Action => return self.fire_action(prog, ev.ix, ev.tag, sink),
            Kind::ModeEnter => {
                self.info.reset = true;
                &g.mode_reset_reactions[ev.ix as usize]
            }
        };
        for &r in list {
            self.trigger(r, sink);
        }
    }

    /// An action event of the tag being entered (see `fire`).
    #[inline(always)]
    fn fire_action(&mut self, prog: &Program, ix: u32, tag: Tag, sink: &mut impl FnMut(u32)) {
        debug_assert!((ix as usize) < prog.action_rt.len());
        // SAFETY: `ix` is an action of this engine's program (events are made from its actions,
        // by its reactions' completions or checked arrivals), and `prog` is that program (checked
        // by the public method that got here, `check_program`).
        let act = unsafe { prog.action_rt.get_unchecked(ix as usize) };
        if act.mode != u32::MAX && !prog.graph.mode_active(act.mode, &self.current_mode) {
            self.suspended.push(Event {
                tag,
                kind: Kind::Action,
                ix,
            });
            return;
        }
        // SAFETY: between tags; `take` was made for the type of `cell`.
        if !unsafe { (act.take)(act.cell, tag, self.info.seq) } {
            return;
        }
        if act.drops {
            self.present_actions.push(ix);
            self.extras = true;
        }
        self.trigger_list(prog, act.sole, act.triggers, sink);
    }

    /// Triggers the reactions of a port's or an action's list: its sole reaction if it has one
    /// (no trip to the list), else those of `trigger_list[range]`.
    #[inline(always)]
    fn trigger_list(
        &mut self,
        prog: &Program,
        sole: u32,
        range: (u32, u32),
        sink: &mut impl FnMut(u32),
    ) {
        if sole != u32::MAX {
            self.trigger(sole, sink);
        } else {
            for &r in prog.triggers_of(range) {
                self.trigger(r, sink);
            }
        }
    }

    /// Triggers reaction `r` at the current tag, unless it is triggered already or its mode is
    /// inactive (one test for both: a blocked reaction's number is above every tag's).
    #[inline(always)]
    fn trigger(&mut self, r: u32, sink: &mut impl FnMut(u32)) {
        debug_assert!((r as usize) < self.triggered.len());
        // SAFETY: `r` comes from the trigger lists of this engine's program (the caller's program
        // argument, checked to be it by `check_program`), which name its reactions, one entry
        // each in `triggered`.
        let state = unsafe { self.triggered.get_unchecked_mut(r as usize) };
        if *state >= self.info.seq {
            return;
        }
        *state = self.info.seq;
        sink(r);
    }

    /// Marks the reactions of inactive modes [`BLOCKED`] and unblocks those of active ones (at the
    /// start and after mode switches, between tags).
    fn block_inactive(&mut self, prog: &Program) {
        for &(r, m) in &self.modal {
            let state = &mut self.triggered[r as usize];
            if !prog.graph.mode_active(m, &self.current_mode) {
                *state = BLOCKED;
            } else if *state == BLOCKED {
                *state = 0;
            }
        }
    }

    /// Takes in what reaction `r` did (after [`Program::execute`]): the ports it set trigger their
    /// readers through `sink`, its scheduled events enter the queue, stop and mode requests are
    /// noted, a fault fails the run.
    #[inline]
    pub fn complete(&mut self, prog: &Program, r: u32, sink: &mut impl FnMut(u32)) {
        self.check_program(prog);
        let cell = &prog.reactions[r as usize];
        self.complete_cell(prog, r, cell, sink);
    }

    /// `complete` with the reaction's cell looked up already.
    #[inline(always)]
    fn complete_cell(
        &mut self,
        prog: &Program,
        r: u32,
        cell: &crate::program::ReactionCell,
        sink: &mut impl FnMut(u32),
    ) {
        self.metrics.reactions_executed += 1;
        // SAFETY: `r` has finished running; the caller serialises completions.
        let scratch = unsafe { &mut *cell.scratch.get() };
        if scratch.rare {
            self.complete_rare(prog, r, scratch);
        }
        let n = scratch.set_len;
        if n != 0 {
            scratch.set_len = 0;
            self.metrics.ports_set += u64::from(n);
            debug_assert!(n as usize <= scratch.set_slots.len());
            // SAFETY: `set_len` never exceeds the buffer's length (see `Scratch::set_slots`).
            let set = unsafe { scratch.set_slots.get_unchecked(..n as usize) };
            // The first port apart from the others: most reactions set one, and then the loop's
            // cursor and end need not live across the triggering.
            self.port_set(prog, set[0], sink);
            if n > 1 {
                for &s in &set[1..] {
                    self.port_set(prog, s, sink);
                }
            }
        }
        if scratch.soon_first != u32::MAX {
            let first = core::mem::replace(&mut scratch.soon_first, u32::MAX);
            self.metrics.actions_scheduled += 1 + scratch.soon.len() as u64;
            self.soon.take_from(first, &mut scratch.soon);
        }
    }

    /// A port a completed reaction set: its readers are triggered through `sink`, and where it
    /// needs them, its value is dropped at the end of the tag and its multiports take the channel.
    #[inline(always)]
    fn port_set(&mut self, prog: &Program, s: u32, sink: &mut impl FnMut(u32)) {
        debug_assert!((s as usize) < prog.ports.len());
        // SAFETY: `Ctx::set` records only ports it found in the table of the program its
        // reaction belongs to, and the completed reaction is one of `prog` (the caller's
        // `check_program`).
        let port = unsafe { prog.ports.get_unchecked(s as usize) };
        if !port.plain {
            if !port.drops & (port.observers.1 == 1) {
                self.observe_one(prog, port.observers.0);
            } else {
                self.slot_extras(prog, s, port.drops, port.observers);
            }
        }
        self.trigger_list(prog, port.sole, port.triggers, sink);
    }

    /// The events a reaction scheduled for later than the next microstep, into the event queue.
    fn complete_scheduled(&mut self, scratch: &mut crate::program::Scratch) {
        self.metrics.actions_scheduled += scratch.scheduled.len() as u64;
        for &(a, tag) in &scratch.scheduled {
            self.queue.push(Reverse(Event {
                tag,
                kind: Kind::Action,
                ix: a,
            }));
        }
        scratch.scheduled.clear();
    }

    /// The rarer parts of a completion: events later than the next microstep, a fault, a stop
    /// request, a mode switch.
    #[inline(never)]
    fn complete_rare(&mut self, prog: &Program, r: u32, scratch: &mut crate::program::Scratch) {
        scratch.rare = false;
        if !scratch.scheduled.is_empty() {
            self.complete_scheduled(scratch);
        }
        if let Some(fault) = scratch.fault.take() {
            let reaction = prog.graph.reactions[r as usize].name.clone();
            self.fail(fault_error(prog, reaction, fault));
        }
        if core::mem::take(&mut scratch.stop) {
            self.request_stop();
            self.extras = true;
        }
        if let Some((m, t)) = scratch.mode.take() {
            self.mode_requests.push((r, m, t));
            self.extras = true;
        }
    }

    /// The common case of `slot_extras`, inline: a slot that needs no dropping and is observed by
    /// one multiport channel (a bank's output gathered into a multiport), whose present-channel
    /// list takes the channel. Saves the call and the loop on every set of such a slot.
    #[inline(always)]
    fn observe_one(&mut self, prog: &Program, at: u32) {
        let (mp, c) = prog.observer_list[at as usize];
        // SAFETY: the list's readers run only after every writer completed; completions are
        // serialised.
        let list = unsafe { &mut *prog.mp_present[mp as usize].get() };
        if list.is_empty() {
            self.dirty_multiports.push(mp);
            self.extras = true;
        }
        list.push(c);
    }

    /// What a set slot needs beyond triggering: dropping its value at the end of the tag, and
    /// the present-channel lists of the multiports that observe it.
    #[inline(never)]
    fn slot_extras(&mut self, prog: &Program, s: u32, drops: bool, observers: (u32, u32)) {
        self.extras = true;
        if drops {
            self.set_slots.push(s);
        }
        let (start, len) = observers;
        for &(mp, c) in &prog.observer_list[start as usize..(start + len) as usize] {
            // SAFETY: the list's readers run only after every writer completed; completions are
            // serialised.
            let list = unsafe { &mut *prog.mp_present[mp as usize].get() };
            if list.is_empty() {
                self.dirty_multiports.push(mp);
            }
            list.push(c);
        }
    }

    /// Runs the reactions queued in `ready` (and those they trigger) to the end of the tag, one at a
    /// time in level order: `exec(r)` runs reaction `r` (with [`Program::execute`], plus whatever
    /// the caller wraps around it), then its completion is taken in. For schedulers that run one
    /// reaction at a time.
    #[inline]
    pub fn run_ready(
        &mut self,
        prog: &Program,
        ready: &mut crate::LevelQueue,
        exec: impl FnMut(u32),
    ) {
        self.run_ready_from(prog, ready, u32::MAX, exec);
    }

    /// [`Engine::run_ready`], starting with reaction `hand` when it is not `u32::MAX`: the lone
    /// reaction that entering the tag handed back through [`LevelQueue::offer`], which runs
    /// without a trip through the queue's memory.
    ///
    /// [`LevelQueue::offer`]: crate::LevelQueue::offer
    #[inline]
    pub fn run_ready_from(
        &mut self,
        prog: &Program,
        ready: &mut crate::LevelQueue,
        hand: u32,
        mut exec: impl FnMut(u32),
    ) {
        self.check_program(prog);
        // The reaction to run and its cell, looked up before the body runs and kept: the
        // completion needs no second look-up. A reaction from the caller or the queue is checked
        // against the table; one a completion here triggered comes from the program's trigger
        // lists, and is not.
        let mut r = hand;
        if r == u32::MAX {
            match ready.pop() {
                Some(p) => r = p,
                None => return,
            }
        }
        let mut cell = &prog.reactions[r as usize];
        loop {
            exec(r);
            // The one reaction this completion triggers while nothing else is queued (a chain:
            // the message-passing programs) stays in a local, most likely a register, and runs
            // next without a trip through the queue's memory.
            let mut hand = u32::MAX;
            self.complete_cell(prog, r, cell, &mut |s| ready.offer(prog, s, &mut hand));
            if hand != u32::MAX {
                r = hand;
                debug_assert!((r as usize) < prog.reactions.len());
                // SAFETY: `hand` is a reaction of `prog`'s trigger lists (the completion's
                // `trigger`), one cell each in `reactions`; `prog` is this engine's program.
                cell = unsafe { prog.reactions.get_unchecked(r as usize) };
            } else {
                match ready.pop() {
                    Some(p) => {
                        r = p;
                        cell = &prog.reactions[r as usize];
                    }
                    None => return,
                }
            }
        }
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

    /// Ends the current tag: clears port and action values, applies mode switches; at the stop tag
    /// (or after an error) ends the run.
    #[inline]
    pub fn finish_tag(&mut self, prog: &Program) {
        debug_assert!(
            self.extras
                || (self.set_slots.is_empty()
                    && self.present_actions.is_empty()
                    && self.dirty_multiports.is_empty()
                    && self.mode_requests.is_empty()
                    && !self.info.shutdown
                    && self.error.is_none())
        );
        if self.extras {
            self.extras = false;
            self.finish_tag_slow(prog);
        }
    }

    #[inline(never)]
    fn finish_tag_slow(&mut self, prog: &Program) {
        // Values are absent from the next tag on by their sequence numbers; only those that need
        // dropping are cleared.
        if !self.set_slots.is_empty() {
            for s in self.set_slots.drain(..) {
                if let Some(slot) = prog.slots[s as usize].as_deref() {
                    // SAFETY: between tags.
                    unsafe { slot.clear() };
                }
            }
        }
        if !self.present_actions.is_empty() {
            for a in self.present_actions.drain(..) {
                // SAFETY: between tags.
                unsafe { prog.actions[a as usize].clear_current() };
            }
        }
        if !self.dirty_multiports.is_empty() {
            for mp in self.dirty_multiports.drain(..) {
                // SAFETY: between tags.
                unsafe { (*prog.mp_present[mp as usize].get()).clear() };
            }
        }
        if !self.mode_requests.is_empty() {
            let mut requests = core::mem::take(&mut self.mode_requests);
            requests.sort_unstable_by_key(|&(r, _, _)| r);
            // The last request per reactor wins.
            let mut applied: Vec<u32> = Vec::new();
            for &(_, m, t) in requests.iter().rev() {
                let reactor = prog.graph.modes[m as usize].reactor;
                if !applied.contains(&reactor) {
                    applied.push(reactor);
                    self.switch_mode(prog, m, t);
                }
            }
            requests.clear();
            self.mode_requests = requests;
            self.block_inactive(prog);
        }
        if self.info.shutdown || self.error.is_some() {
            self.done = true;
            self.stepping = false;
            self.queue.clear();
            self.soon.clear();
            self.suspended.clear();
        }
    }

    /// Applies a mode switch at the end of the current tag; the mode is active from the next
    /// microstep.
    fn switch_mode(&mut self, prog: &Program, m: u32, transition: Transition) {
        let g = &prog.graph;
        let reactor = g.modes[m as usize].reactor as usize;
        let now = self.info.tag.nanos();
        let old = self.current_mode[reactor];
        if old != u32::MAX {
            self.left_at[old as usize] = now;
        }
        self.current_mode[reactor] = m;
        let entry = self.info.tag.delay_nanos(0);
        let inside = |ev: &Event| match ev.kind {
            Kind::Timer => g.mode_within(g.timers[ev.ix as usize].mode, m),
            Kind::Action => g.mode_within(g.actions[ev.ix as usize].mode, m),
            Kind::ModeEnter => g.mode_within(Some(ev.ix), m),
            Kind::Startup => false,
        };
        let mut queued = core::mem::take(&mut self.queue).into_vec();
        let at = self.soon.tag();
        queued.extend(self.soon.drain().map(|ix| {
            Reverse(Event {
                tag: at,
                kind: Kind::Action,
                ix,
            })
        }));
        let (mine, others): (Vec<_>, Vec<_>) =
            queued.into_iter().partition(|Reverse(ev)| inside(ev));
        self.queue = BinaryHeap::from(others);
        let (held, rest): (Vec<_>, Vec<_>) = core::mem::take(&mut self.suspended)
            .into_iter()
            .partition(|ev| inside(ev));
        self.suspended = rest;
        match transition {
            Transition::Reset => {
                for &a in &g.mode_actions[m as usize] {
                    // SAFETY: between tags.
                    unsafe { prog.actions[a as usize].clear_pending() };
                }
                for &r in &g.mode_reactors[m as usize] {
                    if let Some(&first) = g.reactors[r as usize].modes.first() {
                        self.current_mode[r as usize] = first;
                    }
                }
                for &h in &g.mode_hooks[m as usize] {
                    let (reactor, hook) = &prog.hooks[h as usize];
                    // SAFETY: between tags no reaction of `reactor` runs; the hook was declared on
                    // this reactor's state type.
                    unsafe { (*hook.get())(prog.states[*reactor as usize].ptr()) };
                }
                for &t in &g.mode_timers[m as usize] {
                    let offset = g.timers[t as usize].offset;
                    let tag = if offset == 0 {
                        entry
                    } else {
                        Tag::from_nanos(now.saturating_add(offset), 0)
                    };
                    self.push(tag, Kind::Timer, t);
                }
                self.push(entry, Kind::ModeEnter, m);
            }
            Transition::History => {
                let delta = now.saturating_sub(self.left_at[m as usize]);
                for ev in mine.into_iter().map(|Reverse(e)| e).chain(held) {
                    let shifted =
                        Tag::from_nanos(ev.tag.nanos().saturating_add(delta), ev.tag.microstep());
                    let tag = shifted.max(entry);
                    if ev.kind == Kind::Action {
                        // SAFETY: between tags.
                        unsafe { prog.actions[ev.ix as usize].retag(ev.tag, tag) };
                    }
                    self.push(tag, ev.kind, ev.ix);
                }
            }
        }
    }
}

/// The panic of `Engine::check_program`.
#[cold]
#[inline(never)]
fn another_program() -> ! {
    panic!("an engine runs only the program it was made for")
}

fn fault_error(prog: &Program, reaction: alloc::string::String, fault: Fault) -> RunError {
    let g = &prog.graph;
    match fault {
        Fault::Foreign => RunError::ForeignHandle { reaction },
        Fault::Undeclared(how, item) => {
            let name = match item {
                Item::Port(p) => g.ports[p as usize].name.clone(),
                Item::Action(a) => g.actions[a as usize].name.clone(),
                Item::Mode(m) => g.modes[m as usize].name.clone(),
                Item::Multiport(m) => g.multiports[m as usize].name.clone(),
                Item::Timer(t) => g.timers[t as usize].name.clone(),
            };
            RunError::Undeclared {
                reaction,
                access: alloc::format!("{how} {name}"),
            }
        }
    }
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
