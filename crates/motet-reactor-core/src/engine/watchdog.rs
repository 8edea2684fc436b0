//! The engine's side of watchdogs (see `crate::watchdog`): arming, moving and disarming them as
//! reactions ask, firing an expiry that still stands when its tag comes, and, in a real-time run,
//! taking an expiry that physical time has passed as final.
//!
//! An armed watchdog has its expiry tag in `Engine::watchdogs` and a [`Kind::Watchdog`] event at
//! that tag in the queue. Moving or stopping it changes only the former: the event left behind no
//! longer matches and is dropped when it comes to the front of the queue, before the engine
//! decides what comes next, so that it neither delays the end of the run nor opens an empty tag.
//! An expiry that fires becomes a value of the watchdog's hidden action at its tag, which
//! triggers its reactions as any action does.

use core::cmp::Reverse;

use super::{Engine, Event, Kind};
use crate::program::{Clock, Program, Scratch};
use crate::time::Tag;

impl Engine {
    /// Applies a completed reaction's watchdog requests, in the order it made them.
    #[cold]
    #[inline(never)]
    pub(super) fn apply_watchdogs(&mut self, prog: &Program, scratch: &mut Scratch) {
        for (w, delay) in scratch.watchdogs.drain(..) {
            let Some(slot) = self.watchdogs.get_mut(w as usize) else {
                continue;
            };
            match delay {
                Some(d) => {
                    let tag = self.info.tag.delay_nanos(d);
                    *slot = Some(tag);
                    self.push(tag, Kind::Watchdog, w);
                }
                None => *slot = None,
            }
        }
        debug_assert_eq!(self.watchdogs.len(), prog.graph.watchdogs.len());
    }

    /// Before deciding what comes next: in a real-time run, takes the expiries that physical time
    /// has passed as final; then drops the stale expiry events at the front of the queue.
    #[cold]
    #[inline(never)]
    pub(super) fn watch(&mut self, prog: &Program, clock: &dyn Clock) {
        if !self.fast {
            let now = clock.now();
            for w in 0..self.watchdogs.len() {
                let Some(tag) = self.watchdogs[w] else {
                    continue;
                };
                if self.info.start.saturating_add(tag.nanos()) <= now {
                    self.watchdogs[w] = None;
                    self.expire(prog, w as u32, tag);
                }
            }
        }
        while let Some(&Reverse(ev)) = self.queue.peek() {
            if ev.kind != Kind::Watchdog || self.watchdogs[ev.ix as usize] == Some(ev.tag) {
                break;
            }
            self.queue.pop();
        }
    }

    /// A watchdog's expiry event at the tag being entered: fires it if it still stands.
    #[cold]
    #[inline(never)]
    pub(super) fn fire_watchdog(&mut self, prog: &Program, ev: Event, sink: &mut impl FnMut(u32)) {
        if self.watchdogs[ev.ix as usize] != Some(ev.tag) {
            return;
        }
        self.watchdogs[ev.ix as usize] = None;
        if self.give_value(prog, ev.ix, ev.tag) {
            let action = prog.graph.watchdogs[ev.ix as usize].action;
            self.fire_action(prog, action, ev.tag, sink);
        }
    }

    /// Makes watchdog `w`'s expiry at `tag` final: a value of its action, with its event.
    fn expire(&mut self, prog: &Program, w: u32, tag: Tag) {
        if self.give_value(prog, w, tag) {
            let ix = prog.graph.watchdogs[w as usize].action;
            self.queue.push(Reverse(Event {
                tag,
                kind: Kind::Action,
                ix,
            }));
        }
    }

    /// Puts the unit value of watchdog `w`'s action at `tag`; `false` (and the run failed) if
    /// the action does not take it, which a watchdog's own action always does.
    fn give_value(&mut self, prog: &Program, w: u32, tag: Tag) -> bool {
        let action = prog.graph.watchdogs[w as usize].action as usize;
        // SAFETY: between tags: no reaction runs, so none reads or schedules the action.
        let taken = unsafe { prog.actions[action].push_boxed(tag, alloc::boxed::Box::new(())) };
        if !taken {
            self.fail(crate::error::RunError::BadPhysicalValue {
                action: prog.graph.actions[action].name.clone(),
            });
        }
        taken
    }
}
