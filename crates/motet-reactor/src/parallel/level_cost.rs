//! What a level of a tag costs on one thread, as last measured, for deciding whether the thread
//! that plays the scheduler runs it alone or shares it with the other workers.
//!
//! Sharing a level has a price of its own: the other runners must be woken, or must notice the
//! publish (a watching runner joins a level only once it has run 10 µs with reactions
//! unclaimed), and every claim is an atomic increment on a counter whose cache line moves
//! between the cores, as does the state of every reactor whose reaction runs on another core than
//! the last time. For claims of tens of nanoseconds (Banking's credits and debits, Philosopher's
//! arbitration, Concurrent Dictionary's requests, Big's and Chameneos' exchanges: levels of 2 to
//! 1,000 such reactions) that price exceeds what a second worker saves, however wide the level,
//! and two workers ran such programs slower than one. A level is worth sharing when
//! its claims (a reaction and the chain that follows it) take at least [`MIN_CLAIM_NS`] each and
//! the level at least [`SHARE_NS`] in all, on one thread: the estimate is the level's last
//! measured time per claim, times the claims it holds now.
//!
//! Only a level run alone is measured (a shared level's time is the sharing's as much as its
//! reactions'), and only one time in [`PROBE_EVERY`] (a clock read costs about as much as a claim
//! of Philosopher's levels): so that estimates follow a level whose cost changes, one
//! in [`PROBE_EVERY`] levels that the estimate would share runs alone instead, and is measured,
//! and one in [`PROBE_EVERY`] that runs alone is timed. A level run alone
//! looks at the clock now and then (see [`checkpoint`]) and shares the rest of itself once what
//! it measured says the rest is worth it; a level never measured runs alone, so a level that
//! comes once, as the parallel programs' fan-out of long reactions, is shared after its first
//! claim. A level of one reaction is never shared (nobody could run it sooner), and never timed.
//!
//! A level of two reactions is the exception to finding out within the tag: once its first claim
//! has run, the one claim left gains nothing from another worker. So the estimate of a level of
//! two that runs alone is measured again more often, one time in [`PROBE_PAIR_EVERY`], and a
//! measurement that would share the level where the one before would not is checked at the
//! level's next run rather than [`PROBE_EVERY`] runs later: a level of two whose claims turn long
//! after cheap tags is shared within about [`PROBE_PAIR_EVERY`] tags, where it took up to twice
//! [`PROBE_EVERY`] (the estimate is the smaller of two measurements).
//!
//! A level's first runs are its coldest, so a measurement of less than [`FIRST_CLAIM_NS`] a claim
//! is doubted: a timed level's first claim alone does not share the rest, and one such
//! measurement alone does not share the level at its next run (it is measured again there).

/// A level is worth sharing when its claims take at least this long each...
pub(crate) const MIN_CLAIM_NS: u64 = 1_000;

/// ... and it takes at least this long in all, on one thread.
pub(crate) const SHARE_NS: u64 = 20_000;

/// Below this time a claim, one measurement is doubted: a timed level's first claim shares the
/// rest of the level by itself only when it took at least this long (a shorter one waits for
/// the second claim's measurement, the mean of the two), and a level measured once at less than
/// this a claim is measured again at its next run before its estimate shares it. The first
/// claims of a level are its coldest: Concurrent Dictionary's first level of requests took many
/// times longer for its first claim than for the later ones, and sharing its rest, then the
/// level for the next [`PROBE_EVERY`] tags, moved the run to another worker and made every run
/// on two workers slower. A claim this long is no cache miss;
/// Trapezoid's and Recursive Matrix Multiplication's claims, milliseconds each, still share
/// their level after the first, and on its first measurement.
pub(crate) const FIRST_CLAIM_NS: u64 = 10_000;

/// One in this many levels that the estimate would share runs alone instead, to measure it again,
/// and one in this many that it would run alone is timed.
pub(crate) const PROBE_EVERY: u32 = 32;

/// One in this many runs alone of a level of two reactions is timed (see the module docs): a
/// clock read is a visible share of such a level, which Sleeping Barber runs every tag.
pub(crate) const PROBE_PAIR_EVERY: u32 = 8;

/// Whether `claims` claims of `ns_per_claim` each are worth sharing (see the module docs).
#[inline]
pub(crate) fn worth_sharing(ns_per_claim: u64, claims: usize) -> bool {
    claims >= 2 && ns_per_claim >= MIN_CLAIM_NS && ns_per_claim * claims as u64 >= SHARE_NS
}

/// Whether to share a level, or run it alone and whether to time it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Publish it for the workers.
    Share,
    /// Run it on the thread that plays the scheduler; `timed`: measure it.
    Alone { timed: bool },
}

/// Per level, the last two measured times per claim, and how often it was planned since it was
/// last measured (see the module docs).
pub(crate) struct LevelCosts {
    last: Vec<u32>,
    before: Vec<u32>,
    since: Vec<u32>,
}

/// Not measured yet.
const UNMEASURED: u32 = u32::MAX;

impl LevelCosts {
    /// No level measured yet.
    pub(crate) fn new(levels: usize) -> LevelCosts {
        LevelCosts {
            last: vec![UNMEASURED; levels],
            before: vec![UNMEASURED; levels],
            since: vec![0; levels],
        }
    }

    /// What to do with level `l`, holding `width` (two or more) reactions now. The estimate is
    /// the smaller of the last two measurements, so that one measurement that the operating
    /// system inflated (a preemption in the middle of a level of tiny reactions) does not share
    /// the level for the next [`PROBE_EVERY`] times; a level whose last measurement alone would
    /// share it is timed at once to confirm it, and a level of two is timed more often (see the
    /// module docs).
    #[inline]
    pub(crate) fn plan(&mut self, l: usize, width: usize) -> Plan {
        let last = self.last[l];
        if last == UNMEASURED {
            return Plan::Alone { timed: true };
        }
        // One measurement of less than `FIRST_CLAIM_NS` a claim does not share a level by
        // itself: a level's first runs are its coldest (caches, page faults, lazily grown state),
        // and Concurrent Dictionary's first level of requests measured many times its later
        // claims' cost once and was then shared for tags of tiny claims. Such a level is measured again
        // at its next run instead (see below). Longer claims are no cold misses, and a level of
        // them (Recursive Matrix Multiplication's leaves, milliseconds each) is shared at once.
        let before = self.before[l];
        let estimate = if before == UNMEASURED && u64::from(last) < FIRST_CLAIM_NS {
            0
        } else {
            u64::from(last.min(before))
        };
        self.since[l] += 1;
        let since = self.since[l];
        if worth_sharing(estimate, width) {
            if since.is_multiple_of(PROBE_EVERY) {
                Plan::Alone { timed: true }
            } else {
                Plan::Share
            }
        } else {
            let every = if width == 2 {
                PROBE_PAIR_EVERY
            } else {
                PROBE_EVERY
            };
            let due = since.is_multiple_of(every) || worth_sharing(u64::from(last), width);
            Plan::Alone { timed: due }
        }
    }

    /// `claims` claims of level `l` ran alone in `elapsed` nanoseconds.
    #[inline]
    pub(crate) fn ran_alone(&mut self, l: usize, claims: usize, elapsed: u64) {
        self.before[l] = self.last[l];
        self.last[l] = u32::try_from(elapsed / claims.max(1) as u64).unwrap_or(UNMEASURED - 1);
        self.since[l] = 0;
    }
}

/// Whether a thread that runs a level alone looks at the clock after `ran` of its claims: after
/// the first, the second, the fourth, the eighth, then after every sixteenth. A level of long
/// reactions is found out after its first; one of reactions of tens of nanoseconds pays a clock
/// read per sixteen.
#[inline]
pub(crate) fn checkpoint(ran: usize) -> bool {
    ran & 15 == 0 || (ran < 16 && ran.is_power_of_two())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALONE: Plan = Plan::Alone { timed: false };

    #[test]
    fn long_levels_of_long_claims_are_shared_and_measured_again_now_and_then() {
        let mut c = LevelCosts::new(3);
        assert_eq!(c.plan(0, 1000), Plan::Alone { timed: true }, "unmeasured");
        c.ran_alone(0, 100, 10_000); // 100 ns a claim: never worth sharing
        assert_eq!(c.plan(0, 100_000), ALONE);
        c.ran_alone(1, 10, 20_000); // 2 us a claim
        assert_eq!(c.plan(1, 5), ALONE);
        assert_eq!(
            c.plan(1, 10),
            Plan::Alone { timed: true },
            "measured once, short claims: measured again before it is shared"
        );
        c.ran_alone(1, 10, 20_000);
        assert_eq!(c.plan(1, 10), Plan::Share);
        c.ran_alone(2, 2, 2_000_000); // 1 ms a claim: shared on one measurement
        let plans: Vec<Plan> = (0..PROBE_EVERY * 4).map(|_| c.plan(2, 2)).collect();
        let alone = plans.iter().filter(|&&p| p != Plan::Share).count();
        assert_eq!(alone as u32, 4, "one in PROBE_EVERY runs alone, timed");
        assert!(plans.iter().all(|&p| p != ALONE));
    }

    #[test]
    fn a_first_short_measurement_alone_does_not_share_a_level() {
        let mut c = LevelCosts::new(1);
        c.ran_alone(0, 1, 1_500); // a cold first claim
        assert_eq!(c.plan(0, 20), Plan::Alone { timed: true });
        c.ran_alone(0, 20, 1_000); // 50 ns a claim, warm
        assert_eq!(c.plan(0, 20), ALONE);
    }

    #[test]
    fn one_inflated_measurement_does_not_share_a_level() {
        let mut c = LevelCosts::new(1);
        c.ran_alone(0, 50, 2_500); // 50 ns a claim
        c.ran_alone(0, 50, 5_000_000); // preempted for 5 ms
        assert_eq!(
            c.plan(0, 50),
            Plan::Alone { timed: true },
            "alone, measured again"
        );
        c.ran_alone(0, 50, 5_000_000); // really long now
        assert_eq!(c.plan(0, 50), Plan::Share);
    }

    #[test]
    fn a_measurement_that_would_share_is_confirmed_at_once() {
        let mut c = LevelCosts::new(1);
        c.ran_alone(0, 40, 4_000); // 100 ns a claim
        assert_eq!(c.plan(0, 40), ALONE);
        c.ran_alone(0, 40, 800_000); // 20 us a claim: one measurement, maybe a preemption
        assert_eq!(
            c.plan(0, 40),
            Plan::Alone { timed: true },
            "confirmed at once"
        );
        c.ran_alone(0, 40, 4_000); // it was a preemption
        assert_eq!(c.plan(0, 40), ALONE);
        c.ran_alone(0, 40, 800_000);
        assert_eq!(c.plan(0, 40), Plan::Alone { timed: true });
        c.ran_alone(0, 40, 800_000); // confirmed: shared from now on
        assert_eq!(c.plan(0, 40), Plan::Share);
    }

    #[test]
    fn levels_of_two_are_timed_more_often() {
        let mut c = LevelCosts::new(2);
        c.ran_alone(0, 2, 600); // Sleeping Barber's level of two
        c.ran_alone(1, 3, 900);
        let timed = |c: &mut LevelCosts, l, w| {
            (0..PROBE_EVERY * 2)
                .filter(|_| c.plan(l, w) == Plan::Alone { timed: true })
                .count() as u32
        };
        assert_eq!(timed(&mut c, 0, 2), PROBE_EVERY * 2 / PROBE_PAIR_EVERY);
        assert_eq!(timed(&mut c, 1, 3), 2);
    }

    #[test]
    fn a_level_of_two_turning_long_is_shared_within_a_few_probes() {
        let mut c = LevelCosts::new(1);
        c.ran_alone(0, 2, 600);
        c.ran_alone(0, 2, 600);
        // From now on each claim takes 50 us; count the runs alone until it is shared.
        let mut alone = 0;
        while let Plan::Alone { timed } = c.plan(0, 2) {
            alone += 1;
            if timed {
                c.ran_alone(0, 2, 100_000);
            }
            assert!(
                alone <= PROBE_PAIR_EVERY + 1,
                "still alone after {alone} runs"
            );
        }
    }

    #[test]
    fn small_levels_are_timed_one_time_in_probe_every() {
        let mut c = LevelCosts::new(1);
        c.ran_alone(0, 50, 2_500);
        let timed = (0..PROBE_EVERY * 3)
            .filter(|_| c.plan(0, 50) == Plan::Alone { timed: true })
            .count();
        assert_eq!(timed, 3);
    }

    #[test]
    fn checkpoints() {
        let at: Vec<usize> = (1..=48).filter(|&n| checkpoint(n)).collect();
        assert_eq!(at, [1, 2, 4, 8, 16, 32, 48]);
    }
}
