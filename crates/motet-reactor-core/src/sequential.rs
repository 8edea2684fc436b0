//! The single-threaded scheduler: runs a program on the calling thread, tag by tag, reactions of a
//! tag in level order. No locks and no atomics on its path; this is the scheduler of
//! embedded targets and of one-worker runs.
//!
//! Time and waiting come from a [`Platform`]: its clock, and a way to sleep until a deadline or
//! until a physical action arrives in the program's [`Inbox`].

use crate::engine::{Engine, Metrics, Next, RunOptions};
use crate::error::RunError;
use crate::inbox::Inbox;
use crate::program::{Clock, Program};
use crate::ready::LevelQueue;
use crate::time::Tag;

/// What the scheduler needs of the machine it runs on.
pub trait Platform: Clock {
    /// Sleeps until the platform time `deadline` (or forever if `None`), returning early when a
    /// value arrives in `inbox` (the platform installs a notifier with
    /// [`Inbox::set_notify`]). Spurious early returns are fine.
    fn wait(&mut self, inbox: &Inbox, deadline: Option<u64>);
}

/// Observes a run (tracing); every method does nothing by default.
pub trait Hooks {
    /// A tag starts.
    fn tag_started(&mut self, _tag: Tag) {}
    /// Reaction `r` (declaration index) starts.
    fn reaction_started(&mut self, _r: usize) {}
    /// Reaction `r` finished.
    fn reaction_finished(&mut self, _r: usize) {}
}

/// No hooks.
impl Hooks for () {}

/// Runs `program` to the end on this thread.
///
/// # Errors
/// The first [`RunError`] of the run; the run stops at the end of the tag where it happened.
///
/// # Panics
/// A program runs once: a second run panics.
pub fn run_sequential<P: Platform, H: Hooks>(
    program: &mut Program,
    platform: &mut P,
    options: &RunOptions,
    hooks: &mut H,
) -> Result<Metrics, RunError> {
    let prog: &Program = program;
    // The ready queue first: the start tag's time is read after the setup, so that the setup
    // does not count against the first tag's deadlines.
    let mut ready = LevelQueue::new(prog);
    let mut engine = Engine::new(prog, platform.now(), options);
    loop {
        match engine.next(prog, platform) {
            Next::Done => break,
            Next::WaitUntil(t) => platform.wait(&prog.inbox, Some(t)),
            Next::WaitForInput => platform.wait(&prog.inbox, None),
            Next::Tag(tag) => {
                hooks.tag_started(tag);
                engine.enter_tag(prog, tag, &mut |r| ready.push(prog, r));
                // Tag after tag, as long as each next one is the next microstep with only
                // zero-delay actions (`Engine::enter_next_microstep`); the lone reaction such a
                // microstep triggers is handed back in a local and runs first.
                let mut hand = u32::MAX;
                loop {
                    engine.run_ready_from(prog, &mut ready, hand, |r| {
                        hooks.reaction_started(r as usize);
                        // SAFETY: reactions run one at a time in level order, so every
                        // predecessor triggered at this tag has completed.
                        unsafe { prog.execute(r as usize, platform) };
                        hooks.reaction_finished(r as usize);
                    });
                    engine.finish_tag(prog);
                    hand = u32::MAX;
                    if !engine.enter_next_microstep(prog, &mut |r| ready.offer(prog, r, &mut hand))
                    {
                        break;
                    }
                    hooks.tag_started(engine.tag());
                }
            }
        }
    }
    engine.finish()
}
