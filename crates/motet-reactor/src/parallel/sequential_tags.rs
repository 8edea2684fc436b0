//! Tags run sequentially on one thread, for the readiness scheduler's level protocol
//! ([`Sharing::WhenWorthIt`](super::level::Sharing::WhenWorthIt)).
//!
//! Where the level costs keep every level of tag after tag on the thread that plays the
//! scheduler (the fine-grained programs: Philosopher, Concurrent Dictionary, Banking, Big,
//! Chameneos, levels of tens of nanoseconds a claim), running them level by level still costs
//! what one worker does not pay: a plan and a clock read per level, a per-level queue, and a
//! completion, a containment of panics and a chain test per reaction, which made two workers
//! run Philosopher slower than one worker did. So after [`QUIET_TAGS`] tags in a row
//! with no level shared, whoever plays the scheduler runs the next tags sequentially, with the
//! core's sequential loop (the one-worker path of [`Runner`](crate::Runner), see
//! [`single_thread`](crate::single_thread)), one tag after another, until a look at the clock
//! says otherwise.
//!
//! **When sequential tags end.** A level worth sharing takes at least [`SHARE_NS`] on one
//! thread (see [`worth_sharing`](super::level_cost::worth_sharing)), so tags that took less than
//! that together held no such level: the sequential loop looks at the clock once every
//! `per_look` tags, and stops, at the end of a tag, when the tags of two looks in a row took
//! [`SHARE_NS`] or more each (one such look alone is more often a preemption or a burst of page
//! faults than tags turned long). The levels' costs then decide again, level by level, and a
//! level worth sharing is shared. `per_look` adapts so
//! that a look covers about a quarter to a half of [`SHARE_NS`]: one clock read per tens of
//! tags on a program of short tags such as Philosopher, one per tag where tags are long. What running tags
//! sequentially can cost, where a program's tags turn long (a fine-grained phase followed by a
//! heavy one), is the tags of the look in which they turn (up to [`MAX_PER_LOOK`], 64 on programs
//! whose tags are shortest) and one more, run alone to their ends: the level protocol
//! would have shared a long level after its first claim. Programs whose levels
//! are shared now and then (Filter Bank, Nqueens, Bounded Buffer) never go [`QUIET_TAGS`] tags
//! without, and ones with a few tags (Recursive Matrix Multiplication has 6, Trapezoid 2) never
//! get to run tags sequentially.

use motet_reactor_core::{Engine, LevelQueue, Next, Program};

use super::level_cost::SHARE_NS;
use crate::clock::{now_ns, StdClock};
use crate::single_thread::{contain_panics, run_microsteps};

/// How many tags in a row the level protocol must run with no level shared before it runs tags
/// sequentially, at least.
pub(crate) const QUIET_TAGS: u32 = 64;

/// The most quiet tags that running tags sequentially may need (see [`SequentialTags::needed`]).
const MAX_QUIET_TAGS: u32 = 1 << 16;

/// The most tags between two looks at the clock when tags run sequentially: how many tags run
/// alone, at most, after they turn long.
const MAX_PER_LOOK: u32 = 64;

/// When the level protocol runs tags sequentially, and how often the sequential loop looks at
/// the clock (see the module docs).
pub(crate) struct SequentialTags {
    /// Tags in a row that the level protocol ran with no level shared.
    quiet: u32,
    /// Quiet tags needed before tags run sequentially again: [`QUIET_TAGS`], doubled each time
    /// the level protocol shares a level after sequential tags ended and before they start again
    /// (they ran work worth sharing alone, as Filter Bank's tags turn from filling delays to
    /// running its filters), and halved back each time they start again first (they had ended
    /// on a preemption or a page fault).
    needed: u32,
    /// Sequential tags ended, and neither a shared level nor sequential tags again have come
    /// since.
    ended: bool,
    /// Tags between two looks at the clock while tags run sequentially.
    per_look: u32,
    /// The last look at the clock found the tags long (see [`SequentialTags::go_on`]).
    long: bool,
}

impl SequentialTags {
    /// No quiet tag yet.
    pub(crate) fn new() -> SequentialTags {
        SequentialTags {
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

    /// Whether the next tags run sequentially.
    #[inline]
    pub(crate) fn due(&self) -> bool {
        self.quiet >= self.needed
    }

    /// Tags start to run sequentially.
    fn start(&mut self) {
        self.long = false;
        if std::mem::take(&mut self.ended) {
            self.needed = (self.needed / 2).max(QUIET_TAGS);
        }
    }

    /// A look at the clock found that the last `per_look` sequential tags took `elapsed`
    /// nanoseconds: whether tags go on running sequentially (`per_look` adapts, see the module
    /// docs).
    #[inline]
    fn go_on(&mut self, elapsed: u64) -> bool {
        if elapsed >= SHARE_NS {
            // The next look comes after one tag: if the tags did turn long, one more of them runs
            // alone, not half a look's worth.
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

/// Runs tags sequentially on this thread, one reaction at a time in level order, from a point
/// between tags (the last tag finished, none entered) until a look at the clock stops it (`Ok`:
/// again between tags) or the engine says to wait or stop (`Err`). A panic in a body completes
/// its reaction and fails the run, which stops at the end of that tag, as on the other paths.
///
/// # Safety
/// No other thread runs reactions of `prog` meanwhile: no level is published with reactions
/// left to claim, and none is until this returns.
pub(crate) unsafe fn run_tags_sequentially(
    engine: &mut Engine,
    ready: &mut LevelQueue,
    prog: &Program,
    policy: &mut SequentialTags,
) -> Result<(), Next> {
    policy.start();
    let mut since = now_ns();
    let mut left = policy.per_look;
    // A tag entered and not finished.
    let mut in_tag = false;
    contain_panics(engine, ready, prog, |engine, ready, running| loop {
        if in_tag {
            let go_on = || {
                left -= 1;
                if left > 0 {
                    return true;
                }
                let now = now_ns();
                if !policy.go_on(now.saturating_sub(since)) {
                    return false;
                }
                since = now;
                left = policy.per_look;
                true
            };
            // SAFETY: no other thread runs reactions of `prog` (the caller's contract).
            if !unsafe { run_microsteps(engine, ready, prog, running, go_on) } {
                return Ok(());
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_tags_are_due_after_quiet_tags_only() {
        let mut s = SequentialTags::new();
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
    fn looks_adapt_and_two_long_looks_end_sequential_tags() {
        let mut s = SequentialTags::new();
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
    fn sequential_tags_that_held_up_shared_work_make_the_next_wait_longer() {
        let mut s = SequentialTags::new();
        let quiet = |s: &mut SequentialTags, n: u32| (0..n).for_each(|_| s.level_tag_done(false));
        quiet(&mut s, QUIET_TAGS);
        s.start();
        assert!(s.go_on(SHARE_NS));
        assert!(!s.go_on(SHARE_NS));
        quiet(&mut s, 3);
        // A level worth sharing came right after: the sequential tags held it up.
        s.level_tag_done(true);
        quiet(&mut s, QUIET_TAGS);
        assert!(!s.due());
        quiet(&mut s, QUIET_TAGS);
        assert!(s.due(), "twice the quiet tags");
        s.start();
        assert!(s.go_on(SHARE_NS * 5));
        assert!(!s.go_on(SHARE_NS * 5)); // preemptions: nothing shared before sequential tags again
        quiet(&mut s, QUIET_TAGS * 2);
        assert!(s.due());
        s.start();
        assert_eq!(s.needed, QUIET_TAGS, "halved back");
    }
}
