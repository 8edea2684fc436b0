//! Entering a tag: its events (startup, timers, actions, reset entries into modes) become
//! present and trigger their reactions, which the scheduler gets through a `sink`. Entering the
//! next microstep has a short path of its own ([`Engine::enter_next_microstep`]), the tag loop of
//! message-passing programs. No reaction runs while a tag is entered.

use core::cmp::Reverse;

use super::{Engine, Event, Kind, BLOCKED};
use crate::program::Program;
use crate::time::Tag;

impl Engine {
    /// Enters `tag` (as returned by [`Engine::next`]): takes its events and triggers their
    /// reactions through `sink`. No reaction runs before this returns, so presence and triggers are
    /// taken in one pass over the events.
    pub fn enter_tag(&mut self, prog: &Program, tag: Tag, sink: &mut impl FnMut(u32)) {
        self.check_program(prog);
        self.begin(tag);
        self.info.shutdown = self.stop_tag == Some(tag);
        self.extras |= self.info.shutdown;
        if !self.next_microstep.is_empty() {
            if self.next_microstep.tag() != tag {
                // Not reached in practice (nothing comes between a tag and its next microstep),
                // but never lose an event: back into the heap.
                let at = self.next_microstep.tag();
                for ix in self.next_microstep.drain() {
                    self.queue.push(Reverse(Event {
                        tag: at,
                        kind: Kind::Action,
                        ix,
                    }));
                }
            } else {
                self.fire_next_microstep(prog, tag, sink);
            }
        }
        while let Some(&Reverse(ev)) = self.queue.peek() {
            if ev.tag != tag {
                break;
            }
            self.queue.pop();
            self.fire(prog, ev, sink);
        }
        // `next_microstep` is empty now (fired, or moved into the heap); what this tag's reactions
        // schedule for the next microstep goes there.
        self.next_microstep.set_tag(tag.delay_nanos(0));
        // SAFETY: between tags: no reaction runs, so none reads the tag info.
        unsafe { *prog.info.get() = self.info };
        if self.info.shutdown {
            if !self.mode_entered.is_empty() {
                self.unblock_visited_shutdown(prog);
            }
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
        if self.next_microstep.is_empty() || !self.stepping || !prog.inbox.is_empty() {
            return false;
        }
        let tag = self.next_microstep.tag();
        if self.stop_tag.is_some_and(|s| s <= tag)
            || self.queue.peek().is_some_and(|e| e.0.tag <= tag)
        {
            return false;
        }
        self.check_program(prog);
        self.begin(tag);
        self.info.shutdown = false;
        self.fire_next_microstep(prog, tag, sink);
        self.next_microstep.set_tag(tag.delay_nanos(0));
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

    /// Fires the events of `next_microstep`, which are at `tag`, the tag being entered.
    #[inline(always)]
    fn fire_next_microstep(&mut self, prog: &Program, tag: Tag, sink: &mut impl FnMut(u32)) {
        // `fire_action` never adds to `next_microstep` (it holds events of the next microstep).
        let first = self.next_microstep.take_first();
        self.fire_action(prog, first, tag, sink);
        if let Some(rest) = self.next_microstep.take_rest() {
            for &ix in &rest {
                self.fire_action(prog, ix, tag, sink);
            }
            self.next_microstep.recycle(rest);
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
            Kind::Watchdog => return self.fire_watchdog(prog, ev, sink),
            Kind::Created => return self.fire_created(ev.ix, sink),
            Kind::ModeEnter => {
                self.info.reset = true;
                &g.mode_reset_reactions[ev.ix as usize]
            }
            Kind::ModeStartup => return self.fire_mode_startup(ev.ix, sink),
        };
        for &r in list {
            self.trigger(r, sink);
        }
    }

    /// The first entry into mode `m` (see `mode_life`): its startup reactions. Out of line, as
    /// the other rare events, to keep the tag loop that inlines `fire` small.
    #[cold]
    #[inline(never)]
    fn fire_mode_startup(&mut self, m: u32, sink: &mut impl FnMut(u32)) {
        self.info.startup = true;
        // A list of the engine's own: taken out while triggering needs the engine.
        let list = self.take_mode_startup(m);
        for &r in &list {
            self.trigger(r, sink);
        }
        self.put_mode_startup(m, list);
    }

    /// An action event of the tag being entered (see `fire`).
    #[inline(always)]
    pub(super) fn fire_action(
        &mut self,
        prog: &Program,
        ix: u32,
        tag: Tag,
        sink: &mut impl FnMut(u32),
    ) {
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
    pub(super) fn trigger_list(
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
    pub(super) fn trigger(&mut self, r: u32, sink: &mut impl FnMut(u32)) {
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
    pub(super) fn block_inactive(&mut self, prog: &Program) {
        for &(r, m) in &self.modal {
            let state = &mut self.triggered[r as usize];
            if !prog.graph.mode_active(m, &self.current_mode) {
                *state = BLOCKED;
            } else if *state == BLOCKED {
                *state = 0;
            }
        }
    }
}
