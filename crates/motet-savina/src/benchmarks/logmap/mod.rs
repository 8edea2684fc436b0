//! 14. Logistic Map Series (concurrency): `s` series of `t` terms, each term computed by a rate actor.
//!
//! Flow (SPEC.md section 3.14, Savina's ManualStash variant): the Master sends T `NextTerm` to every
//! SeriesWorker (round-robin), then `GetTerm` to each. Worker i starts at term i · 0.0025 and uses
//! RateComputer i, whose rate is r + i · 0.0025. On `NextTerm` a worker sends `Compute(term)` to its
//! computer and enters reply mode, in which it stashes every message but the `Result`; the computer
//! answers `Result(rate · term · (1 − term))`. After each message, a worker out of reply mode re-sends
//! the oldest stashed message to itself. `GetTerm` is answered with the current term only when the
//! stash is empty (else it is stashed too). With S answers the Master sums them and stops everyone.
//! 2S + 1 actors; four messages per term (the stash re-send included) plus 3S + 1.
//!
//! Validation: the terms sum is 6.38783514460412 at Savina's defaults (r = 3.46) and
//! 6.964599481489831 with the rate Pony and BoC use (r = 3.64); at other sizes, the sum of a direct
//! sequential computation (in `prepare`). The map is chaotic, so every variant evaluates
//! `rate · term · (1 − term)` in exactly that order; only the order in which the Master adds the S
//! final terms differs between runs, hence a relative tolerance of 1e-12. The result is the sum.

mod actor;
mod boc;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Model, Outcome, Variant};
use crate::params::{ParamSpec, Params};

/// Logistic Map Series (Savina 14).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "logmap",
    id: 14,
    title: "Logistic Map Series: S series of T terms, stashing while a rate actor computes",
    params: PARAMS,
    variants,
};

/// `-t` terms, `-s` series, `-r` start rate; "small" computes a tenth of the terms.
const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "t",
        default: 25_000.0,
        small: 2_500.0,
        help: "terms per series",
    },
    ParamSpec {
        name: "s",
        default: 10.0,
        small: 10.0,
        help: "series (workers, and rate computers)",
    },
    ParamSpec {
        name: "r",
        default: 3.46,
        small: 3.46,
        help: "start rate (Pony and BoC use 3.64)",
    },
];

/// The step between the series' start terms and between their rates (Savina's `increment`).
pub(crate) const INCREMENT: f64 = 0.0025;

/// The implementations.
fn variants() -> Vec<Variant> {
    vec![
        Variant {
            model: Model::Actor,
            prepare: actor::prepare,
        },
        Variant {
            model: Model::Boc,
            prepare: boc::prepare,
        },
        Variant {
            model: Model::Reactor,
            prepare: reactor::prepare,
        },
        Variant {
            model: Model::ReactorLevel,
            prepare: reactor::prepare_level,
        },
        Variant {
            model: Model::Floor,
            prepare: floor::prepare,
        },
    ]
}

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Terms per series (`-t`).
    pub(crate) terms: u64,
    /// Series (`-s`), at least 1.
    pub(crate) series: usize,
    /// The first computer's rate (`-r`).
    pub(crate) rate: f64,
    /// The terms sum a correct run must reach.
    pub(crate) expected: f64,
}

impl Config {
    /// Reads and checks the parameters, and derives the expected sum.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        let terms = params.integer("t", 0)?;
        let series = params.integer("s", 1)?;
        if series > u32::MAX as u64 {
            return Err(format!("parameter `s` must be at most {}", u32::MAX));
        }
        let rate = params.f64("r");
        let mut cfg = Config {
            terms,
            series: series as usize,
            rate,
            expected: 0.0,
        };
        cfg.expected = expected_sum(&cfg);
        Ok(cfg)
    }

    /// Series i's rate.
    pub(crate) fn rate_of(&self, i: usize) -> f64 {
        self.rate + i as f64 * INCREMENT
    }

    /// Series i's first term.
    pub(crate) fn start_of(i: usize) -> f64 {
        i as f64 * INCREMENT
    }
}

/// The logistic map's step, evaluated left to right as Savina does (the map is chaotic: another
/// order gives another series).
#[inline]
pub(crate) fn next_term(term: f64, rate: f64) -> f64 {
    rate * term * (1.0 - term)
}

/// Savina's defaults and SPEC.md's sums for the two rates in use.
const KNOWN_SUMS: [(u64, usize, f64, f64); 2] = [
    (25_000, 10, 3.46, 6.38783514460412),
    (25_000, 10, 3.64, 6.964599481489831),
];

/// The sum a correct run reaches: SPEC.md's value at the sizes it gives, else a direct computation.
fn expected_sum(cfg: &Config) -> f64 {
    KNOWN_SUMS
        .iter()
        .find(|&&(t, s, r, _)| t == cfg.terms && s == cfg.series && r == cfg.rate)
        .map_or_else(|| direct_sum(cfg), |&(.., sum)| sum)
}

/// Every series computed in turn, its final terms added in series order.
fn direct_sum(cfg: &Config) -> f64 {
    (0..cfg.series)
        .map(|i| {
            let rate = cfg.rate_of(i);
            (0..cfg.terms).fold(Config::start_of(i), |term, _| next_term(term, rate))
        })
        .sum()
}

/// Relative tolerance: the Master adds the S final terms in arrival order.
const TOLERANCE: f64 = 1e-12;

/// Validates a run: the Master's sum (None if it never finished) must be the expected one. The
/// result is the sum.
pub(crate) fn check(cfg: &Config, sum: Option<f64>) -> Outcome {
    let Some(sum) = sum else {
        return Outcome {
            result: serde_json::Value::Null,
            check: Err("the master received no sum".into()),
        };
    };
    let check = if (sum - cfg.expected).abs() <= TOLERANCE * cfg.expected.abs().max(1.0) {
        Ok(())
    } else {
        Err(format!("terms sum: expected {}, got {sum}", cfg.expected))
    };
    Outcome {
        result: serde_json::json!(sum),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{check, direct_sum, Config, BENCHMARK};
    use crate::benchmarks::boc_driver;
    use crate::benchmarks::testing::{params, validates};

    fn config(sets: &[(&str, f64)]) -> Config {
        Config::from_params(&params(&BENCHMARK, sets)).unwrap()
    }

    /// SPEC.md's sums are what the direct computation gives.
    #[test]
    fn known_sums_are_the_direct_computation() {
        for r in [3.46, 3.64] {
            let cfg = config(&[("t", 25_000.0), ("s", 10.0), ("r", r)]);
            assert_eq!(direct_sum(&cfg), cfg.expected, "r={r}");
        }
        assert_eq!(config(&[("t", 25_000.0)]).expected, 6.38783514460412);
        assert_eq!(
            config(&[("t", 25_000.0), ("r", 3.64)]).expected,
            6.964599481489831
        );
    }

    #[test]
    fn check_compares_the_sum() {
        let cfg = config(&[("t", 100.0)]);
        assert!(check(&cfg, Some(cfg.expected)).check.is_ok());
        assert!(check(&cfg, Some(cfg.expected * (1.0 + 1e-9)))
            .check
            .is_err());
        assert!(check(&cfg, None).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        let cfg = config(&[("t", 300.0), ("s", 4.0)]);
        for outcome in validates(&BENCHMARK, &[("t", 300.0), ("s", 4.0)]) {
            let sum = outcome.result.as_f64().unwrap();
            assert!((sum - cfg.expected).abs() < 1e-12, "{sum}");
        }
        validates(&BENCHMARK, &[("t", 500.0), ("s", 3.0), ("r", 3.64)]);
        validates(&BENCHMARK, &[("t", 0.0), ("s", 1.0)]);
    }

    /// The BoC version adds the final terms in series order: exactly the direct sum.
    #[test]
    fn boc_validates_at_a_reduced_size() {
        let cfg = config(&[("t", 300.0), ("s", 4.0)]);
        for outcome in boc_driver::validates(&BENCHMARK, &[("t", 300.0), ("s", 4.0)]) {
            assert_eq!(outcome.result.as_f64(), Some(cfg.expected));
        }
        boc_driver::validates(&BENCHMARK, &[("t", 500.0), ("s", 3.0), ("r", 3.64)]);
        boc_driver::validates(&BENCHMARK, &[("t", 0.0), ("s", 1.0)]);
    }
}
