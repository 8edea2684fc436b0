//! Finishing a tag: the values that need dropping are cleared, the present-channel lists of
//! multiports emptied, mode switches applied (with their reset or history semantics for the
//! events of the modes), and at the stop tag, or after an error, the run ends.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::{Engine, Event, Kind};
use crate::ctx::Transition;
use crate::program::Program;
use crate::time::Tag;

impl Engine {
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
            self.first_entries(prog);
        }
        if self.info.shutdown || self.error.is_some() {
            self.done = true;
            self.stepping = false;
            self.queue.clear();
            self.next_microstep.clear();
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
            Kind::ModeEnter | Kind::ModeStartup => g.mode_within(Some(ev.ix), m),
            // An expiry that fires while its reactor's mode is inactive is held as an action's
            // event is (see `fire_action`).
            Kind::Startup | Kind::Watchdog | Kind::Created => false,
        };
        let mut queued = core::mem::take(&mut self.queue).into_vec();
        let at = self.next_microstep.tag();
        queued.extend(self.next_microstep.drain().map(|ix| {
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
