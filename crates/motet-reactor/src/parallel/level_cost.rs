//! What a level of a tag costs on one thread, as last measured, for deciding whether the thread
//! that plays the scheduler runs it alone or shares it with the other workers.
//!
//! Sharing a level has a price that does not depend on its reactions: the other runners must be
//! woken (or must notice the publish: a watching runner joins a level only once it has run 10 µs
//! with reactions unclaimed), every claim is an atomic increment on a counter whose cache line
//! moves between the cores, and so does the state of every reactor whose reaction runs on another
//! core than the last time. For levels of reactions of tens of nanoseconds (Banking's credits and
//! debits, Philosopher's arbitration, Concurrent Dictionary's requests, Big's and Chameneos'
//! exchanges: levels of 2 to 1,000 reactions, a few microseconds to a few tens in all) that price
//! exceeds what a second worker saves, and two workers ran such programs up to 5 times slower than
//! one. A level is worth sharing when it takes long on one thread: the estimate is its last
//! measured time per reaction on one thread times the number of reactions it holds now.
//!
//! Only a level run alone is measured (a shared level's time is the sharing's as much as its
//! reactions'). So that estimates follow a level whose cost changes, one in [`PROBE_EVERY`]
//! levels that the estimate would share runs alone instead, and is measured; a level run alone
//! that turns out long is shared from there on, the moment it has taken [`SHARE_NS`] (see
//! [`checkpoint`]). A level never measured runs alone (and is measured), so a level that comes
//! once, as the parallel programs' fan-out of long reactions, loses at most [`SHARE_NS`] of
//! parallelism. A level of one reaction is never shared (nobody could run it sooner), and never
//! timed.

/// A level is shared when it is estimated to take at least this long on one thread; a level run
/// alone is shared from the moment it has run this long with two or more reactions left.
pub(crate) const SHARE_NS: u64 = 50_000;

/// One in this many levels that the estimate would share runs alone instead, to measure it again.
pub(crate) const PROBE_EVERY: u32 = 16;

/// Per level, the last measured time per reaction, and how often it was shared since it was
/// measured (see the module docs).
pub(crate) struct LevelCosts {
    ns_per_reaction: Vec<u32>,
    shared: Vec<u32>,
}

impl LevelCosts {
    /// No level measured yet.
    pub(crate) fn new(levels: usize) -> LevelCosts {
        LevelCosts {
            ns_per_reaction: vec![0; levels],
            shared: vec![0; levels],
        }
    }

    /// Whether to share level `l`, holding `width` reactions now (counts the level as shared
    /// when it says so).
    #[inline]
    pub(crate) fn share(&mut self, l: usize, width: usize) -> bool {
        if width < 2 || u64::from(self.ns_per_reaction[l]) * width as u64 <= SHARE_NS {
            return false;
        }
        self.shared[l] += 1;
        !self.shared[l].is_multiple_of(PROBE_EVERY)
    }

    /// `ran` reactions of level `l` ran alone in `elapsed` nanoseconds.
    #[inline]
    pub(crate) fn ran_alone(&mut self, l: usize, ran: usize, elapsed: u64) {
        self.ns_per_reaction[l] = u32::try_from(elapsed / ran.max(1) as u64).unwrap_or(u32::MAX);
        self.shared[l] = 0;
    }
}

/// Whether a thread that runs a level alone looks at the clock after `ran` of its reactions:
/// after the first, the second, the fourth, the eighth, then after every sixteenth. A level of
/// long reactions is found out after its first; one of reactions of tens of nanoseconds pays a
/// clock read per sixteen.
#[inline]
pub(crate) fn checkpoint(ran: usize) -> bool {
    ran & 15 == 0 || (ran < 16 && ran.is_power_of_two())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_levels_are_shared_and_measured_again_now_and_then() {
        let mut c = LevelCosts::new(2);
        assert!(!c.share(0, 1000), "an unmeasured level runs alone");
        c.ran_alone(0, 100, 10_000); // 100 ns a reaction
        assert!(!c.share(0, 100));
        assert!(c.share(0, 1000));
        c.ran_alone(1, 2, 2_000_000);
        assert!(!c.share(1, 1), "one reaction is never shared");
        let shared = (0..PROBE_EVERY * 4).filter(|_| c.share(1, 2)).count();
        assert_eq!(
            shared as u32,
            PROBE_EVERY * 4 - 4,
            "one in PROBE_EVERY runs alone"
        );
    }

    #[test]
    fn checkpoints() {
        let at: Vec<usize> = (1..=48).filter(|&n| checkpoint(n)).collect();
        assert_eq!(at, [1, 2, 4, 8, 16, 32, 48]);
    }
}
