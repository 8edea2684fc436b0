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

    /// How many nanoseconds before a tag's time the scheduler may enter it; 0 (the default)
    /// enters a tag when its time has come.
    ///
    /// With a lead, the scheduler does a tag's bookkeeping (deciding it is next, taking its
    /// events, queueing the reactions they trigger) while its time is still up to `lead` away,
    /// then calls [`Platform::spin_until`] with the tag's time and runs its first reaction as
    /// soon as that returns: the reaction starts closer to its logical time than the
    /// bookkeeping would allow afterwards. Reactions never start before their tag's time.
    ///
    /// The tag is current from the moment it is entered. A physical action that arrives in that
    /// window, stamped earlier than the tag, takes the tag's next microstep (as a value stamped
    /// at or before the current tag always does), so it is delayed by at most `lead`, and its
    /// order relative to the tag's events is the same on every run with the same arrivals.
    fn entry_lead(&self) -> u64 {
        0
    }

    /// Returns when the clock has reached the platform time `deadline`, as soon after it as it
    /// can; the scheduler calls it only with [`Platform::entry_lead`] above 0, just before a
    /// tag's first reaction. The default reads [`Clock::now`] until then.
    fn spin_until(&mut self, deadline: u64) {
        while self.now() < deadline {}
    }
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
    // The ready queue first: the start tag's time is read after the setup, so that the setup
    // does not count against the first tag's deadlines.
    let mut ready = LevelQueue::new(program);
    let mut engine = Engine::new(program, platform.now(), options);
    // Tags are entered up to `lead` before their time (see `Platform::entry_lead`); in fast
    // mode nothing waits for time.
    let lead = if options.fast {
        0
    } else {
        platform.entry_lead()
    };
    loop {
        // Between tags: mutations requested at the last one change the program here.
        if engine.mutation_pending() {
            #[cfg(feature = "mutations")]
            if engine.apply_mutations(program) {
                ready.fit(program);
            }
            #[cfg(not(feature = "mutations"))]
            engine.reject_mutations(program);
        }
        let prog: &Program = program;
        match engine.next_early(prog, platform, lead) {
            Next::Done => break,
            Next::WaitUntil(t) => platform.wait(&prog.inbox, Some(t.saturating_sub(lead))),
            Next::WaitForInput => platform.wait(&prog.inbox, None),
            Next::Tag(tag) => {
                hooks.tag_started(tag);
                engine.enter_tag(prog, tag, &mut |r| ready.push(prog, r));
                // Tag after tag, as long as each next one is the next microstep with only
                // zero-delay actions (`Engine::enter_next_microstep`); the lone reaction such a
                // microstep triggers is handed back in a local and runs first.
                let mut hand = u32::MAX;
                if lead != 0 {
                    // Entered early: the first reaction is taken from the queue now and starts
                    // as soon as the tag's time has come.
                    hand = ready.pop().unwrap_or(u32::MAX);
                    platform.spin_until(engine.start().saturating_add(tag.nanos()));
                }
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
