//! Stretches of tags run as on one worker, for the readiness scheduler's level protocol
//! ([`Sharing::WhenWorthIt`](super::level::Sharing::WhenWorthIt)).
//!
//! Where the level costs keep every level of tag after tag on the thread that plays the
//! scheduler (the fine-grained programs: Philosopher, Concurrent Dictionary, Banking, Big,
//! Chameneos, levels of tens of nanoseconds a claim), running them level by level still costs
//! what one worker does not pay: a plan and a clock read per level, a per-level queue, and a
//! completion, a containment of panics and a chain test per reaction. On two workers those ran
//! Philosopher about 20% slower than one worker ran it. So after [`QUIET_TAGS`] tags in a row
//! with no level shared, whoever plays the scheduler runs tags with the core's sequential loop
//! ([`Engine::run_ready_from`], the one-worker path of [`Runner`](crate::Runner)), one tag after
//! another, until a look at the clock says otherwise.
//!
//! **When the stretch ends.** A level worth sharing takes at least [`SHARE_NS`] on one thread
//! (see [`worth_sharing`](super::level_cost::worth_sharing)), so tags that took less than that
//! together held no such level: the stretch looks at the clock once every `per_look` tags, and
//! ends, at the end of a tag, when the tags of two looks in a row took [`SHARE_NS`] or more
//! each (one such look alone is more often a preemption or a burst of page faults than tags
//! turned long). The levels' costs then decide again, level by level, and a level worth sharing
//! is shared. `per_look` adapts so
//! that a look covers about a quarter to a half of [`SHARE_NS`]: one clock read per tens of
//! tags on Philosopher (about 450 ns a tag), one per tag where tags are long. What a stretch
//! can cost, where a program's tags turn long (a fine-grained phase followed by a heavy one), is
//! the tags of the look in which they turn (up to [`MAX_PER_LOOK`], 64 on programs whose tags
//! took under about 100 ns) and one more, run alone to their ends: the level protocol would
//! have shared a long level after its first claim. Programs whose levels
//! are shared now and then (Filter Bank, Nqueens, Bounded Buffer) never go [`QUIET_TAGS`] tags
//! without, and ones with a few tags (Recursive Matrix Multiplication has 6, Trapezoid 2) never
//! get to a stretch.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use motet_reactor_core::{Engine, LevelQueue, Next, Program, RunError};

use super::level_cost::SHARE_NS;
use crate::clock::{now_ns, StdClock};
use crate::runner::panic_message;

/// How many tags in a row the level protocol must run with no level shared before a stretch, at
/// least.
pub(crate) const QUIET_TAGS: u32 = 64;

/// The most quiet tags a stretch may need (see [`Stretches::needed`]).
const MAX_QUIET_TAGS: u32 = 1 << 16;

/// The most tags between two looks at the clock in a stretch: how many tags a stretch may run
/// alone, at most, after its tags turn long.
const MAX_PER_LOOK: u32 = 64;

/// When to run a stretch, and how often it looks at the clock (see the module docs).
pub(crate) struct Stretches {
    /// Tags in a row that the level protocol ran with no level shared.
    quiet: u32,
    /// Quiet tags needed before the next stretch: [`QUIET_TAGS`], doubled each time the level
    /// protocol shares a level before the next stretch after one ended (that stretch ran work
    /// worth sharing alone, as Filter Bank's tags turn from filling delays to running its
    /// filters), and halved back each time the next stretch comes (that one had ended on a
    /// preemption or a page fault).
    needed: u32,
    /// A stretch ended, and neither a shared level nor the next stretch has come since.
    ended: bool,
    /// Tags between two looks at the clock in a stretch.
    per_look: u32,
    /// The last look of this stretch found its tags long (see [`Stretches::go_on`]).
    long: bool,
}

impl Stretches {
    /// No quiet tag yet.
    pub(crate) fn new() -> Stretches {
        Stretches {
            quiet: 0,
            needed: QUIET_TAGS,
            ended: false,
            per_look: 1,
            long: false,
        }
    }

    /// The level protocol finished a tag, having shared a level of it or not.
    #[inline]
    pub(crate) fn level_tag_done(&mut self, shared: bool) {
        if shared {
            self.quiet = 0;
            if std::mem::take(&mut self.ended) {
                self.needed = (self.needed * 2).min(MAX_QUIET_TAGS);
            }
        } else {
            self.quiet = self.quiet.saturating_add(1);
        }
    }

    /// Whether the next tags run as a stretch.
    #[inline]
    pub(crate) fn due(&self) -> bool {
        self.quiet >= self.needed
    }

    /// A stretch starts.
    fn start(&mut self) {
        self.long = false;
        if std::mem::take(&mut self.ended) {
            self.needed = (self.needed / 2).max(QUIET_TAGS);
        }
    }

    /// A look at the clock found that the last `per_look` tags of the stretch took `elapsed`
    /// nanoseconds: whether the stretch goes on (`per_look` adapts, see the module docs).
    #[inline]
    fn go_on(&mut self, elapsed: u64) -> bool {
        if elapsed >= SHARE_NS {
            // The next look comes after one tag: if the tags did turn long, the stretch runs one
            // more of them alone, not half a look's worth.
            self.per_look = 1;
            if !std::mem::replace(&mut self.long, true) {
                // One long look may be a preemption or a burst of page faults: the next decides.
                return true;
            }
            self.long = false;
            self.quiet = 0;
            self.ended = true;
            return false;
        }
        self.long = false;
        if elapsed < SHARE_NS / 4 {
            self.per_look = (self.per_look * 2).min(MAX_PER_LOOK);
        } else if elapsed > SHARE_NS / 2 {
            self.per_look = (self.per_look / 2).max(1);
        }
        true
    }
}

/// Runs tags on this thread, one reaction at a time in level order, from a point between tags
/// (the last tag finished, none entered) until a look at the clock ends the stretch (`Ok`: again
/// between tags) or the engine says to wait or stop (`Err`). A panic in a body completes its
/// reaction and fails the run, which stops at the end of that tag, as on the other paths.
///
/// # Safety
/// No other thread runs reactions of `prog` meanwhile: no level is published with reactions
/// left to claim, and none is until this returns.
pub(crate) unsafe fn run_stretch(
    engine: &mut Engine,
    ready: &mut LevelQueue,
    prog: &Program,
    stretches: &mut Stretches,
) -> Result<(), Next> {
    stretches.start();
    let mut since = now_ns();
    let mut left = stretches.per_look;
    // A tag entered and not finished; the reaction whose body runs (`u32::MAX`: none).
    let mut in_tag = false;
    let mut running = u32::MAX;
    loop {
        let outcome = catch_unwind(AssertUnwindSafe(|| loop {
            if in_tag {
                // As the one-worker path runs tags: the lone reaction that entering the next
                // microstep triggers is handed back in a local (`LevelQueue::offer`) and runs
                // first, without a trip through the queue's memory.
                let mut hand = u32::MAX;
                loop {
                    engine.run_ready_from(prog, ready, hand, |r| {
                        running = r;
                        // SAFETY: reactions run one at a time in level order on this thread,
                        // and no other thread runs any (the caller's contract), so every
                        // triggered predecessor has completed.
                        unsafe { prog.execute(r as usize, &StdClock) };
                        running = u32::MAX;
                    });
                    engine.finish_tag(prog);
                    left -= 1;
                    if left == 0 {
                        let now = now_ns();
                        if !stretches.go_on(now.saturating_sub(since)) {
                            return Ok(());
                        }
                        since = now;
                        left = stretches.per_look;
                    }
                    hand = u32::MAX;
                    if !engine.enter_next_microstep(prog, &mut |r| ready.offer(prog, r, &mut hand))
                    {
                        break;
                    }
                }
                in_tag = false;
            }
            match engine.next(prog, &StdClock) {
                Next::Tag(tag) => {
                    engine.enter_tag(prog, tag, &mut |r| ready.push(prog, r));
                    in_tag = true;
                }
                other => return Err(other),
            }
        }));
        let body = std::mem::replace(&mut running, u32::MAX);
        match (outcome, (body != u32::MAX).then_some(body)) {
            (Ok(end), _) => return end,
            // A body panicked: complete its reaction, fail the run (it stops at the end of this
            // tag), and go on with the tag's other reactions.
            (Err(payload), Some(r)) => {
                engine.complete(prog, r, &mut |s| ready.push(prog, s));
                engine.fail(RunError::Panicked {
                    reaction: prog.graph().reactions[r as usize].name.clone(),
                    message: panic_message(&*payload),
                });
            }
            (Err(payload), None) => resume_unwind(payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_is_due_after_quiet_tags_only() {
        let mut s = Stretches::new();
        for _ in 0..QUIET_TAGS - 1 {
            s.level_tag_done(false);
        }
        assert!(!s.due());
        s.level_tag_done(true);
        for _ in 0..QUIET_TAGS - 1 {
            s.level_tag_done(false);
        }
        assert!(!s.due(), "a shared level starts the count again");
        s.level_tag_done(false);
        assert!(s.due());
    }

    #[test]
    fn looks_adapt_and_a_long_look_ends_the_stretch() {
        let mut s = Stretches::new();
        for _ in 0..QUIET_TAGS {
            s.level_tag_done(false);
        }
        for _ in 0..20 {
            assert!(s.go_on(SHARE_NS / 8));
        }
        assert_eq!(s.per_look, MAX_PER_LOOK);
        assert!(s.go_on(SHARE_NS * 3 / 4));
        assert_eq!(s.per_look, MAX_PER_LOOK / 2);
        assert!(s.go_on(SHARE_NS / 3), "between a quarter and a half: kept");
        assert_eq!(s.per_look, MAX_PER_LOOK / 2);
        assert!(s.go_on(SHARE_NS), "one long look: one more");
        assert_eq!(s.per_look, 1, "the next look decides after one tag");
        assert!(s.go_on(SHARE_NS / 3));
        assert!(s.go_on(SHARE_NS));
        assert!(!s.go_on(SHARE_NS), "two long looks in a row end it");
        assert!(!s.due(), "ended: quiet tags again before the next");
    }

    #[test]
    fn a_stretch_that_held_up_shared_work_makes_the_next_wait_longer() {
        let mut s = Stretches::new();
        let quiet = |s: &mut Stretches, n: u32| (0..n).for_each(|_| s.level_tag_done(false));
        quiet(&mut s, QUIET_TAGS);
        s.start();
        assert!(s.go_on(SHARE_NS));
        assert!(!s.go_on(SHARE_NS));
        quiet(&mut s, 3);
        s.level_tag_done(true); // a level worth sharing came right after: the stretch held it up
        quiet(&mut s, QUIET_TAGS);
        assert!(!s.due());
        quiet(&mut s, QUIET_TAGS);
        assert!(s.due(), "twice the quiet tags");
        s.start();
        assert!(s.go_on(SHARE_NS * 5));
        assert!(!s.go_on(SHARE_NS * 5)); // preemptions: nothing shared before the next stretch
        quiet(&mut s, QUIET_TAGS * 2);
        assert!(s.due());
        s.start();
        assert_eq!(s.needed, QUIET_TAGS, "halved back");
    }
}
