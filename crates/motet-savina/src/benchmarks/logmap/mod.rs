//! 14. Logistic Map Series (concurrency): `s` series of `t` terms, each term computed by a rate actor.
//!
//! Flow (SPEC.md section 3.14, Savina's ManualStash variant): the Master sends T `NextTerm` to every
//! SeriesWorker, interleaved round-robin (`rr=0` sends each worker its T in a row instead, in the
//! actor and floor versions; see [`SendOrder`]), then `GetTerm` to each. Worker i starts at term
//! i · 0.0025 and uses
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

use crate::bench::{Benchmark, Outcome};
use crate::params::{FromParam, Params};

/// Logistic Map Series (Savina 14).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "logmap",
    id: 14,
    title: "Logistic Map Series: S series of T terms, stashing while a rate actor computes",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-t` terms, `-s` series, `-r` start rate; "small" computes a tenth of the terms.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("t", default = 25_000.0, small = 2_500.0, min = 0, help = "terms per series")]
        terms: u64,
        #[param("s", default = 10.0, small = 10.0, min = 1, fits = u32,
            help = "series (workers, and rate computers)")]
        series: usize,
        /// The first computer's rate.
        #[param("r", default = 3.46, small = 3.46, help = "start rate (Pony and BoC use 3.64)")]
        rate: f64,
        #[param("rr", default = 1.0, small = 1.0,
            help = "actor and floor: 1 sends the Master's NextTerms round-robin as Savina does, 0 each worker's in a row")]
        order: SendOrder,
    }
    derived {
        /// The terms sum a correct run must reach.
        expected: f64 = 0.0,
    }
    finish = Config::finish;
}

/// The step between the series' start terms and between their rates (Savina's `increment`).
pub(crate) const INCREMENT: f64 = 0.0025;

variants!(actor, boc(own_protocol), reactor(own_protocol), floor,);

impl Config {
    /// Derives the expected sum.
    fn finish(&mut self) -> Result<(), String> {
        self.expected = expected_sum(self);
        Ok(())
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

/// The order in which the Master sends its `T · S` `NextTerm`s (actor and floor versions).
///
/// Each worker receives the same sequence either way (T `NextTerm`, then `GetTerm`), and the Master
/// sends them all from one handler, so no actor can tell the two apart. They differ in memory:
/// every message is a node from the allocator, and a worker frees its nodes in the order it takes
/// them. Round-robin, worker i's nodes are every S-th of the Master's allocations, so the frees
/// come back in a transposed order, and the allocator hands the next iteration's nodes out in that
/// order, which can leave the burst's allocations and mailbox steps missing the cache more with
/// each iteration (docs/savina/choices.md, logmap, has the measurements). Series-major, a worker's
/// nodes are allocated and freed in one run, and the layout stays as it started; it is kept
/// selectable (`rr=0`) to measure that effect, not as the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendOrder {
    /// Worker 0's T `NextTerm`s, then worker 1's, ... (`rr=0`).
    SeriesMajor,
    /// Savina's order: one `NextTerm` to every worker, T times (`rr=1`, the default).
    RoundRobin,
}

impl FromParam for SendOrder {
    fn from_param(params: &Params, name: &str) -> Result<SendOrder, String> {
        match params.integer(name, 0)? {
            0 => Ok(SendOrder::SeriesMajor),
            1 => Ok(SendOrder::RoundRobin),
            _ => Err(format!("parameter `{name}` must be 0 or 1")),
        }
    }
}

impl SendOrder {
    /// Calls `send(i)` for each of the `terms · series` `NextTerm`s, i being the worker, in this
    /// order.
    pub(crate) fn for_each(self, terms: u64, series: usize, mut send: impl FnMut(usize)) {
        match self {
            SendOrder::SeriesMajor => {
                for i in 0..series {
                    for _ in 0..terms {
                        send(i);
                    }
                }
            }
            SendOrder::RoundRobin => {
                for _ in 0..terms {
                    for i in 0..series {
                        send(i);
                    }
                }
            }
        }
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
        return Outcome::failed("the master received no sum");
    };
    let tolerance = TOLERANCE * cfg.expected.abs().max(1.0);
    Outcome::expect_near("terms sum", cfg.expected, sum, tolerance)
}

#[cfg(test)]
mod tests {
    use super::{check, direct_sum, Config, SendOrder, BENCHMARK};
    use crate::benchmarks::testing::{self, params, rejects, validates};

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
        testing::assert_float_check(cfg.expected, |sum| check(&cfg, sum));
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
        for outcome in validates(&BENCHMARK, &[("t", 300.0), ("s", 4.0), ("rr", 0.0)]) {
            let sum = outcome.result.as_f64().unwrap();
            assert!((sum - cfg.expected).abs() < 1e-12, "{sum}");
        }
    }

    /// Both orders send every worker `terms` messages; series-major in runs, round-robin in turn.
    #[test]
    fn the_send_orders() {
        let order = |o: SendOrder| {
            let mut sent = Vec::new();
            o.for_each(2, 3, |i| sent.push(i));
            sent
        };
        assert_eq!(order(SendOrder::SeriesMajor), [0, 0, 1, 1, 2, 2]);
        assert_eq!(order(SendOrder::RoundRobin), [0, 1, 2, 0, 1, 2]);
        assert_eq!(config(&[]).order, SendOrder::RoundRobin);
        let defaults = Config::from_params(&testing::defaults(&BENCHMARK, &[])).unwrap();
        assert_eq!(defaults.order, SendOrder::RoundRobin);
        assert_eq!(config(&[("rr", 0.0)]).order, SendOrder::SeriesMajor);
        assert!(rejects(&BENCHMARK, &[("rr", 2.0)]).contains("`rr`"));
    }

    /// The BoC version adds the final terms in series order: exactly the direct sum.
    #[test]
    fn boc_validates_at_a_reduced_size() {
        let cfg = config(&[("t", 300.0), ("s", 4.0)]);
        for outcome in testing::boc_validates(&BENCHMARK, &[("t", 300.0), ("s", 4.0)]) {
            assert_eq!(outcome.result.as_f64(), Some(cfg.expected));
        }
        testing::boc_validates(&BENCHMARK, &[("t", 500.0), ("s", 3.0), ("r", 3.64)]);
        testing::boc_validates(&BENCHMARK, &[("t", 0.0), ("s", 1.0)]);
    }
}
