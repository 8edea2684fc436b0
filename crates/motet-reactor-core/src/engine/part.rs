//! Hooks for running a part of a program, as a federate of a federated program does: every
//! process builds the whole program, runs only its own reactors, and lets a coordinator decide
//! how far it may advance and where the run stops.
//!
//! - [`Engine::exclude`] switches reactors off for the whole run: their reactions never trigger
//!   and their timers never fire, as if they had been left out of the program.
//! - [`Engine::stop_tag`] and [`Engine::set_stop_tag`] read and move the stop tag, for a stop
//!   agreed with other processes (LF's stop request and grant).
//!
//! How far the engine may advance is decided outside it: a scheduler that asks [`Engine::next`]
//! simply does not enter a tag it was not granted, and values for exact tags come in through
//! [`PhysicalSender::send_at_tag`](crate::PhysicalSender::send_at_tag).

use super::{Engine, Kind, BLOCKED};
use crate::program::Program;
use crate::time::Tag;

impl Engine {
    /// Switches off, for the whole run, every reactor for which `off(reactor)` holds and everything
    /// it contains: their reactions are never triggered (startup and shutdown included) and their
    /// timers never fire. Call it right after [`Engine::new`], before the first tag.
    pub fn exclude(&mut self, prog: &Program, off: impl Fn(u32) -> bool) {
        self.check_program(prog);
        let g = &prog.graph;
        let mut excluded = alloc::vec![false; g.reactors.len()];
        for (r, ex) in excluded.iter_mut().enumerate() {
            let mut x = Some(r as u32);
            while let Some(cur) = x {
                if off(cur) {
                    *ex = true;
                    break;
                }
                x = g.reactors[cur as usize].parent;
            }
        }
        for (r, info) in g.reactions.iter().enumerate() {
            if excluded[info.reactor as usize] {
                self.triggered[r] = BLOCKED;
            }
        }
        // Mode switches must not unblock them again.
        self.modal
            .retain(|&(r, _)| !excluded[g.reactions[r as usize].reactor as usize]);
        self.queue.retain(|ev| {
            ev.0.kind != Kind::Timer || !excluded[g.timers[ev.0.ix as usize].owner as usize]
        });
    }

    /// The tag the run stops at, if it is known yet (a timeout, a requested stop, starvation).
    pub fn stop_tag(&self) -> Option<Tag> {
        self.stop_tag
    }

    /// Sets the tag the run stops at (a stop agreed with other processes). A tag the run has
    /// passed is moved to the next microstep of the current tag; at the stop tag itself, or after
    /// the run has ended, it changes nothing.
    pub fn set_stop_tag(&mut self, tag: Tag) {
        if self.info.shutdown || self.done {
            return;
        }
        let earliest = if self.info.seq > 0 {
            self.info.tag.delay_nanos(0)
        } else {
            Tag::ZERO
        };
        self.stop_tag = Some(tag.max(earliest));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Next, RunOptions};
    use crate::program::Clock;
    use crate::{ProgramBuilder, Startup};
    use core::time::Duration;

    struct Zero;
    impl Clock for Zero {
        fn now(&self) -> u64 {
            0
        }
    }

    /// An excluded reactor's startup reaction and timer never trigger; the kept one's do.
    #[test]
    fn excluded_reactors_never_trigger() {
        let mut b = ProgramBuilder::new();
        let a = b.reactor("a", ());
        let t = b.timer(a, "t", Duration::from_millis(1), Duration::ZERO);
        b.reaction(a, "go")
            .trigger(Startup)
            .trigger(t)
            .body(|_, _| {});
        let k = b.reactor("k", ());
        b.reaction(k, "go").trigger(Startup).body(|_, _| {});
        let prog = b.build().unwrap();
        let opts = RunOptions {
            fast: true,
            timeout: None,
        };
        let mut e = Engine::new(&prog, 0, &opts);
        e.exclude(&prog, |r| r == a.ix);
        let Next::Tag(tag) = e.next(&prog, &Zero) else {
            panic!("expected the start tag")
        };
        let mut got = alloc::vec::Vec::new();
        e.enter_tag(&prog, tag, &mut |r| got.push(r));
        assert_eq!(got, [1]);
        // The timer's event went with its reactor: nothing at 1 ms, only starvation's stop.
        assert_eq!(e.next(&prog, &Zero), Next::Tag(Tag::from_nanos(0, 1)));
    }

    #[test]
    fn stop_tag_moves_forward_only_to_the_future() {
        let mut b = ProgramBuilder::new();
        let a = b.reactor("a", ());
        b.reaction(a, "go").trigger(Startup).body(|_, _| {});
        let prog = b.build().unwrap();
        let mut e = Engine::new(&prog, 0, &RunOptions::default());
        assert_eq!(e.stop_tag(), None);
        e.set_stop_tag(Tag::from_nanos(5, 0));
        assert_eq!(e.stop_tag(), Some(Tag::from_nanos(5, 0)));
    }
}
