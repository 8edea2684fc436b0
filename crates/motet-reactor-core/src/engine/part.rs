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
//!
//! A tag granted provisionally (LF's PTAG) is run only partly until what other processes send
//! at it is known:
//!
//! - [`Engine::run_ready_below`] runs a tag's ready reactions up to a level and stops there
//!   (LF's "max level allowed to advance"); the rest stays queued for a later call;
//! - [`Engine::inject_current`] takes a value that arrived for the tag being run, and triggers
//!   the reactions of its action at once.
//!
//! Other schedulers never call these: their loop ([`Engine::run_ready`]) has no level test.

use alloc::boxed::Box;
use core::any::Any;

use super::{Engine, Kind, BLOCKED};
use crate::error::RunError;
use crate::program::Program;
use crate::ready::LevelQueue;
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

    /// Runs the reactions queued in `ready` (and those they trigger) as [`Engine::run_ready`]
    /// does, but only those whose level lies below `limit`: at the first reaction of level
    /// `limit` or more it stops, and leaves it and the rest queued for a later call at the same
    /// tag (with a higher limit, or after [`Engine::inject_current`]). Returns whether nothing is
    /// left queued. The level test costs one comparison per reaction taken, in this loop only.
    pub fn run_ready_below(
        &mut self,
        prog: &Program,
        ready: &mut LevelQueue,
        limit: u32,
        mut exec: impl FnMut(u32),
    ) -> bool {
        self.check_program(prog);
        while let Some(r) = ready.pop_below(prog, limit) {
            exec(r);
            self.complete(prog, r, &mut |s| ready.push(prog, s));
        }
        ready.is_empty()
    }

    /// Makes `value` the value of action `action` at the tag being run, and triggers the
    /// action's reactions through `sink`: for a value that arrives from another process after
    /// its tag was entered, as a network input of a tag granted provisionally does. Call it on
    /// the thread that runs the tag, between reactions, while no reaction that reads the action
    /// has run at this tag (a scheduler that stopped below their level with
    /// [`Engine::run_ready_below`] ensures that). A value of the wrong type, an unknown action,
    /// or a call before the first tag fails the run, as a bad physical value does.
    pub fn inject_current(
        &mut self,
        prog: &Program,
        action: u32,
        value: Box<dyn Any + Send>,
        sink: &mut impl FnMut(u32),
    ) {
        self.check_program(prog);
        let Some(meta) = prog.graph.actions.get(action as usize) else {
            self.fail(RunError::BadPhysicalValue {
                action: alloc::format!("#{action}"),
            });
            return;
        };
        if self.info.seq == 0 {
            self.fail(RunError::BadPhysicalValue {
                action: meta.name.clone(),
            });
            return;
        }
        let tag = self.info.tag;
        // SAFETY: no reaction runs meanwhile (the caller's contract: between reactions, on the
        // thread that runs the tag), and none that reads the action has run at this tag, so
        // nothing holds a reference into the action's cell.
        if unsafe { prog.actions[action as usize].push_boxed(tag, value) } {
            self.fire_action(prog, action, tag, sink);
        } else {
            self.fail(RunError::BadPhysicalValue {
                action: meta.name.clone(),
            });
        }
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

    /// `src` sets a port at level 0 that `sink` reads at level 1, with a port set by `rx`, whose
    /// reaction a physical action triggers. The tag runs below level 1, stops there, takes the
    /// action's value in, then runs to its end: `sink` sees both values at the same tag.
    #[test]
    fn a_tag_runs_up_to_a_level_and_takes_a_value_in_midway() {
        use crate::ready::LevelQueue;
        use std::sync::{Arc, Mutex};
        type Seen = alloc::vec::Vec<(Option<u32>, Option<u32>)>;
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let mut b = ProgramBuilder::new();
        let src = b.reactor("src", ());
        let out = b.output::<u32, _>(src, "out");
        b.reaction(src, "emit")
            .trigger(Startup)
            .effect(out)
            .body(move |_, ctx| ctx.set(out, 1));
        let rx = b.reactor("rx", ());
        let act = b.physical_action::<u32, _>(rx, "arrival", Duration::ZERO);
        let fwd = b.output::<u32, _>(rx, "fwd");
        b.reaction(rx, "deliver")
            .trigger(act)
            .effect(fwd)
            .body(move |_, ctx| ctx.set(fwd, *ctx.get(act).unwrap()));
        let sink = b.reactor("sink", ());
        let x = b.input::<u32, _>(sink, "x");
        let y = b.input::<u32, _>(sink, "y");
        b.connect(out, x);
        b.connect(fwd, y);
        {
            let seen = seen.clone();
            b.reaction(sink, "use")
                .trigger(x)
                .trigger(y)
                .body(move |_, ctx| {
                    let got = (ctx.get(x).copied(), ctx.get(y).copied());
                    seen.lock().unwrap().push(got);
                });
        }
        let prog = b.build().unwrap();
        assert_eq!(prog.level(2), 1);
        let opts = RunOptions {
            fast: true,
            timeout: None,
        };
        let mut e = Engine::new(&prog, 0, &opts);
        let mut ready = LevelQueue::new(&prog);
        let Next::Tag(tag) = e.next(&prog, &Zero) else {
            panic!("expected the start tag")
        };
        let exec = |r: u32| {
            // SAFETY: one reaction at a time, in level order, at the tag entered.
            unsafe { prog.execute(r as usize, &Zero) };
        };
        e.enter_tag(&prog, tag, &mut |r| ready.push(&prog, r));
        // `use`, triggered by `x`, waits at level 1.
        assert!(!e.run_ready_below(&prog, &mut ready, 1, exec));
        assert_eq!(e.metrics().reactions_executed, 1);
        assert!(seen.lock().unwrap().is_empty());
        e.inject_current(&prog, act.index() as u32, Box::new(7u32), &mut |r| {
            ready.push(&prog, r)
        });
        assert!(e.run_ready_below(&prog, &mut ready, u32::MAX, exec));
        e.finish_tag(&prog);
        assert_eq!(*seen.lock().unwrap(), [(Some(1), Some(7))]);
        assert_eq!(e.metrics().reactions_executed, 3);
        assert!(!e.failed());
    }

    /// A value of the wrong type fails the run instead of reaching a reaction.
    #[test]
    fn a_value_of_the_wrong_type_fails_the_run() {
        let mut b = ProgramBuilder::new();
        let rx = b.reactor("rx", ());
        let act = b.physical_action::<u32, _>(rx, "arrival", Duration::ZERO);
        b.reaction(rx, "deliver").trigger(act).body(|_, _| {});
        let prog = b.build().unwrap();
        let mut e = Engine::new(&prog, 0, &RunOptions::default());
        let Next::Tag(tag) = e.next(&prog, &Zero) else {
            panic!("expected the start tag")
        };
        e.enter_tag(&prog, tag, &mut |_| {});
        let mut triggered = alloc::vec::Vec::new();
        e.inject_current(&prog, act.index() as u32, Box::new("seven"), &mut |r| {
            triggered.push(r)
        });
        assert!(triggered.is_empty());
        assert!(e.failed());
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
