//! 11. Dining Philosophers (concurrency): `n` philosophers eat `m` rounds, sharing forks.
//!
//! Flow (SPEC.md section 3.11): each philosopher gets `Start` and sends `Hungry(id)` to the
//! Arbitrator, which checks forks id and (id + 1) mod N: if either is taken it answers `Denied` (the
//! philosopher counts the denial and asks again at once), otherwise it takes both and answers `Eat`.
//! On `Eat` the philosopher counts the round, sends `Done(id)` (which frees both forks) and then
//! either `Start` to itself or, after M rounds, `Exit` to the Arbitrator, and stops. The Arbitrator
//! stops after N exits. 4NM + N + 2·denials messages; the denials depend on the schedule.
//!
//! Validation: the philosophers ate N·M meals in all and the Arbitrator granted N·M; the Arbitrator
//! records each fork's holder, so a grant of a held fork, or a `Done` from a philosopher that does not
//! hold both its forks, counts as a violation, of which there must be none; every fork is free at
//! the end. The result is the number of meals and of denials (which depends on the schedule).

mod actor;
mod boc;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Dining Philosophers (Savina 11).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "philosopher",
    id: 11,
    title: "Dining Philosophers: N philosophers eat M rounds, forks granted by an arbitrator",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` philosophers, `-m` rounds, `-c` channels (unused by Savina's actor version); "small" is a
    /// tenth of the rounds.
    const PARAMS: &[ParamSpec] = [n, m, _channels];

    /// The decoded parameters, shared by every variant (`c` is checked before `m`).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// Philosophers and forks: one philosopher would need its only fork twice.
        #[param("n", default = 20.0, small = 20.0, min = 2, fits = u32,
            help = "philosophers (at least 2)")]
        n: usize,
        #[param("c", default = 1.0, small = 1.0, min = 0,
            help = "channels (accepted; unused, as in Savina's actor version)")]
        _channels: u64,
        #[param("m", default = 10_000.0, small = 1_000.0, min = 1,
            help = "eating rounds per philosopher")]
        m: u64,
    }
}

/// Messages the Arbitrator handles per turn under `actor-tuned` and `floor-tuned`: Akka's default
/// dispatcher throughput (5), under which Savina ran. With a long batch (the runtimes' defaults)
/// the Arbitrator answers runs of retries from philosophers whose neighbours hold their forks,
/// while those neighbours wait for a turn to release them, and the denials grow
/// (docs/savina/choices.md, philosopher, gives the measurements).
pub(crate) const ARBITRATOR_BATCH: u32 = 5;

variants!(
    actor,
    actor_tuned["batch"],
    boc(own_protocol),
    boc_tuned["meal-queued-early"](own_protocol),
    reactor(own_protocol),
    floor,
    floor_tuned["batch"],
);

/// The Arbitrator's forks: each one's holder, and what it saw.
#[derive(Clone, Debug)]
pub(crate) struct Forks {
    holders: Vec<Option<u32>>,
    /// Forks granted as pairs (meals).
    pub(crate) grants: u64,
    /// Grants of a held fork, and releases by a philosopher that did not hold the fork.
    pub(crate) violations: u64,
}

impl Forks {
    /// `n` free forks.
    pub(crate) fn new(n: usize) -> Forks {
        Forks {
            holders: vec![None; n],
            grants: 0,
            violations: 0,
        }
    }

    /// Forks as the BoC version's fork cowns report them: each one's holder at the end, the meals
    /// granted, and the grants of a held fork or releases of another's seen.
    pub(crate) fn from_parts(holders: Vec<Option<u32>>, grants: u64, violations: u64) -> Forks {
        Forks {
            holders,
            grants,
            violations,
        }
    }

    /// The forks philosopher `id` eats with: its own and its right neighbour's, `(id + 1) mod N`
    /// (a comparison, not a division: the Arbitrator asks twice per meal).
    #[inline]
    fn pair(&self, id: u32) -> (usize, usize) {
        let left = id as usize;
        let right = if left + 1 == self.holders.len() {
            0
        } else {
            left + 1
        };
        (left, right)
    }

    /// Savina's `Hungry`: grants both forks to `id` if both are free, and says whether it did.
    pub(crate) fn try_grant(&mut self, id: u32) -> bool {
        let (left, right) = self.pair(id);
        if self.holders[left].is_some() || self.holders[right].is_some() {
            return false;
        }
        self.holders[left] = Some(id);
        self.holders[right] = Some(id);
        self.grants += 1;
        true
    }

    /// Savina's `Done`: frees both forks of `id`, counting a violation if `id` did not hold them.
    pub(crate) fn release(&mut self, id: u32) {
        let (left, right) = self.pair(id);
        for fork in [left, right] {
            if self.holders[fork] != Some(id) {
                self.violations += 1;
            }
            self.holders[fork] = None;
        }
    }

    /// How many forks are held.
    pub(crate) fn held(&self) -> usize {
        self.holders.iter().filter(|h| h.is_some()).count()
    }
}

/// Validates a run: the philosophers ate `meals` in all, which must be N·M, and were denied
/// `denials` times; `forks` is the Arbitrator's final state (None if it never stopped). The result
/// is `{"meals": meals, "denials": denials}`.
pub(crate) fn check(cfg: &Config, meals: u64, denials: u64, forks: Option<&Forks>) -> Outcome {
    let want = cfg.n as u64 * cfg.m;
    let mut outcome = Outcome::expect_eq("meals eaten", want, meals);
    outcome.result = serde_json::json!({ "meals": meals, "denials": denials });
    if outcome.check.is_err() {
        return outcome;
    }
    outcome.check = match forks {
        None => Err("the arbitrator did not stop".into()),
        Some(f) if f.grants != want => Err(format!(
            "the arbitrator granted {} meals, expected {want}",
            f.grants
        )),
        Some(f) if f.violations != 0 => Err(format!(
            "{} fork grants or releases were inconsistent (a fork held by two philosophers)",
            f.violations
        )),
        Some(f) if f.held() != 0 => Err(format!("{} forks are still held at the end", f.held())),
        Some(_) => Ok(()),
    };
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Forks, BENCHMARK};
    use crate::benchmarks::testing::{self, rejects_alike as rejects, validates};

    fn config(n: u32, m: u32) -> Config {
        let sets = [("n", f64::from(n)), ("m", f64::from(m))];
        Config::from_params(&testing::params(&BENCHMARK, &sets)).unwrap()
    }

    /// The last philosopher's right fork is the first one.
    #[test]
    fn the_last_philosopher_shares_a_fork_with_the_first() {
        let mut forks = Forks::new(3);
        assert!(forks.try_grant(2));
        assert!(!forks.try_grant(0));
        assert!(!forks.try_grant(1));
        forks.release(2);
        assert!(forks.try_grant(0));
        assert!(!forks.try_grant(2));
        assert!(!forks.try_grant(1));
        assert_eq!(forks.violations, 0);
        assert_eq!(forks.grants, 2);
    }

    #[test]
    fn neighbours_never_share_a_fork() {
        let mut forks = Forks::new(5);
        assert!(forks.try_grant(0));
        assert!(!forks.try_grant(1), "fork 1 is held by 0");
        assert!(!forks.try_grant(4), "fork 0 is held by 0");
        assert!(forks.try_grant(2));
        forks.release(0);
        assert!(forks.try_grant(4));
        assert_eq!((forks.grants, forks.violations, forks.held()), (3, 0, 4));
        forks.release(1);
        assert_eq!(forks.violations, 2);
    }

    #[test]
    fn check_wants_every_meal_and_a_consistent_arbitrator() {
        let cfg = config(3, 1);
        let mut forks = Forks::new(3);
        for id in 0..3 {
            assert!(forks.try_grant(id));
            forks.release(id);
        }
        assert!(check(&cfg, 3, 0, Some(&forks)).check.is_ok());
        assert!(check(&cfg, 2, 0, Some(&forks)).check.is_err());
        assert!(check(&cfg, 3, 0, None).check.is_err());
        let mut held = forks.clone();
        assert!(held.try_grant(0));
        held.grants -= 1;
        assert!(check(&cfg, 3, 0, Some(&held)).check.is_err());
        let mut bad = forks.clone();
        bad.release(1);
        assert!(check(&cfg, 3, 0, Some(&bad)).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        for outcome in validates(&BENCHMARK, &[("n", 5.0), ("m", 300.0)]) {
            assert_eq!(outcome.result["meals"], serde_json::json!(1_500));
        }
        validates(&BENCHMARK, &[("n", 2.0), ("m", 50.0)]);
    }

    #[test]
    fn boc_validates_at_a_reduced_size() {
        for outcome in testing::boc_validates(&BENCHMARK, &[("n", 5.0), ("m", 300.0)]) {
            assert_eq!(outcome.result["meals"], serde_json::json!(1_500));
            assert_eq!(outcome.result["denials"], serde_json::json!(0));
        }
        testing::boc_validates(&BENCHMARK, &[("n", 2.0), ("m", 50.0)]);
        let tuned = [
            (crate::bench::Model::BocTuned, 1, 2),
            (crate::bench::Model::BocTuned, 2, 2),
        ];
        for outcome in testing::cells(&BENCHMARK, &tuned, &[("n", 5.0), ("m", 300.0)]) {
            assert_eq!(outcome.result["meals"], serde_json::json!(1_500));
        }
    }

    #[test]
    fn forks_from_parts_are_checked_like_the_arbitrators() {
        let cfg = config(2, 1);
        let ok = Forks::from_parts(vec![None, None], 2, 0);
        assert!(check(&cfg, 2, 0, Some(&ok)).check.is_ok());
        let held = Forks::from_parts(vec![Some(0), None], 2, 0);
        assert!(check(&cfg, 2, 0, Some(&held)).check.is_err());
        let shared = Forks::from_parts(vec![None, None], 2, 1);
        assert!(check(&cfg, 2, 0, Some(&shared)).check.is_err());
        let short = Forks::from_parts(vec![None, None], 1, 0);
        assert!(check(&cfg, 2, 0, Some(&short)).check.is_err());
    }

    #[test]
    fn one_philosopher_is_rejected() {
        assert!(rejects(&BENCHMARK, &[("n", 1.0)]).contains("`n`"));
    }
}
