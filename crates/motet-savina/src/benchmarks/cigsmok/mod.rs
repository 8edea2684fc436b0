//! 13. Cigarette Smokers (concurrency): an arbiter lets `s` smokers smoke, `r` rounds.
//!
//! Flow (SPEC.md section 3.13): the Arbiter, with a [`PseudoRandom`] seeded with R · S, picks smoker
//! `|next_int()| mod S` and a period `next_int(1000) + 10`, and sends it `StartSmoking(period)`. The
//! smoker answers `StartedSmoking` first and then busy-waits `period` draws, so smoking overlaps the
//! next round. After R `StartedSmoking`s the Arbiter sends `Exit` to every smoker and stops. The
//! Arbiter creates the smokers as it starts; a busy-wait calls the one shared `Math.random()`.
//! S + 1 actors, 2R + S + 1 messages. With the LCG only odd-numbered smokers are ever chosen.
//!
//! Validation: R rounds at the Arbiter, and the smokers made the busy-wait draws the Arbiter's
//! generator asks for (494,000 at the defaults). The result is the rounds.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::random::PseudoRandom;

/// Cigarette Smokers (Savina 13).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "cigsmok",
    id: 13,
    title: "Cigarette Smokers: an arbiter lets S smokers smoke, R rounds",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-r` rounds and `-s` smokers; "small" plays a tenth of the rounds.
    const PARAMS: &[ParamSpec] = [rounds, smokers];

    /// The decoded parameters, shared by every variant (`s` is checked first).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// Savina draws the smoker as an `int`.
        #[param("s", default = 200.0, small = 200.0, min = 1, fits = i32, help = "smokers")]
        smokers: usize,
        #[param("r", default = 1_000.0, small = 100.0, min = 1, help = "rounds")]
        rounds: u64,
    }
    derived {
        /// The busy-wait draws the Arbiter's periods add up to.
        expected_draws: u64 = 0,
    }
    finish = Config::finish;
}

variants!(actor, reactor(own_protocol), floor);

impl Config {
    /// Adds up the Arbiter's periods.
    fn finish(&mut self) -> Result<(), String> {
        let mut picks = self.picks();
        self.expected_draws = (0..self.rounds)
            .map(|_| u64::from(picks.next_pick().1))
            .sum();
        Ok(())
    }

    /// The Arbiter's choices, in order.
    pub(crate) fn picks(&self) -> Picks {
        let seed = (self.rounds as i64).saturating_mul(self.smokers as i64);
        Picks {
            rng: PseudoRandom::new(seed),
            smokers: self.smokers as i32,
        }
    }
}

/// The Arbiter's generator of (smoker, period) choices.
pub(crate) struct Picks {
    rng: PseudoRandom,
    smokers: i32,
}

impl Picks {
    /// Savina's `notifyRandomSmoker`: which smoker, and how long it smokes.
    pub(crate) fn next_pick(&mut self) -> (usize, u32) {
        let smoker = self.rng.next_int().wrapping_abs() % self.smokers;
        let period = self.rng.next_int_below(1000) + 10;
        (smoker as usize, period as u32)
    }
}

/// Validates a run: the Arbiter counted `rounds` (None if it never finished) and the smokers made
/// `draws` busy-wait draws. The result is the rounds.
pub(crate) fn check(cfg: &Config, rounds: Option<u64>, draws: u64) -> Outcome {
    let Some(rounds) = rounds else {
        return Outcome::failed("the arbiter did not finish");
    };
    let mut outcome = Outcome::expect_eq("rounds", cfg.rounds, rounds);
    if outcome.check.is_ok() && draws != cfg.expected_draws {
        outcome.check = Err(format!(
            "the smokers made {draws} busy-wait draws, expected {}",
            cfg.expected_draws
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, BENCHMARK};
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    /// SPEC.md: 494,000 busy-wait calls, only the 100 odd smokers, at most 21 rounds each.
    #[test]
    fn default_rounds_are_savinas() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("r", 1_000.0)])).unwrap();
        assert_eq!(cfg.expected_draws, 494_000);
        let mut rounds = vec![0u32; 200];
        let mut picks = cfg.picks();
        for _ in 0..1_000 {
            rounds[picks.next_pick().0] += 1;
        }
        assert!(rounds.iter().step_by(2).all(|&r| r == 0));
        assert_eq!(rounds.iter().filter(|&&r| r > 0).count(), 100);
        assert_eq!(rounds.iter().max(), Some(&21));
    }

    #[test]
    fn check_wants_every_round_and_every_draw() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("r", 10.0)])).unwrap();
        assert!(check(&cfg, Some(10), cfg.expected_draws).check.is_ok());
        assert!(check(&cfg, Some(9), cfg.expected_draws).check.is_err());
        assert!(check(&cfg, Some(10), cfg.expected_draws - 1).check.is_err());
        assert!(check(&cfg, None, cfg.expected_draws).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        testing::expect_result(
            &BENCHMARK,
            testing::ACTOR_AND_FLOOR,
            &[("r", 150.0), ("s", 7.0)],
            serde_json::json!(150),
        );
        validates(&BENCHMARK, &[("r", 1.0), ("s", 1.0)]);
    }

    #[test]
    fn no_smokers_is_rejected() {
        assert!(rejects(&BENCHMARK, &[("s", 0.0)]).contains("`s`"));
    }
}
