//! 29. Fibonacci (parallelism): a tree of actors computes fib(`n`) by recursive decomposition.
//!
//! Flow (SPEC.md section 3.29): the root gets `Request(N)`. An actor asked for n ≤ 2 reports 1 to its
//! parent and stops; otherwise it creates two children while it runs (dynamic actor creation), sends
//! them `Request(n − 1)` and `Request(n − 2)`, adds up their two `Response`s, reports the sum to its
//! parent and stops. The root reports to the harness. 2·fib(N) − 1 actors; 2 messages each, but one
//! for the root.
//!
//! Validation: the root's result is fib(N) (75,025 at N = 25), computed directly in `prepare`.

mod actor;
mod boc;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;

/// Fibonacci (Savina 29).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "fib",
    id: 29,
    title: "Fibonacci: a tree of 2 fib(N) - 1 actors created while it runs",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`; "small" is N = 20 (11,000 actors, about a tenth of the default's 150,049).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 25.0, small = 20.0, parse = which,
            help = "which Fibonacci number (1 to 50)")]
        n: u32,
    }
    derived {
        /// fib(n) with Savina's base case (fib(1) = fib(2) = 1), computed iteratively.
        expected: u64 = 0,
    }
    finish = Config::finish;
}

/// The largest N accepted: the tree has 2 fib(N) − 1 actors, 25 billion at 50.
const MAX_N: u64 = 50;

variants!(
    actor,
    boc(own_protocol),
    boc_tuned["driver-decomposition"](own_protocol),
    floor,
    reactor
);

/// Decodes `n`: a whole number from 1 to [`MAX_N`].
fn which(params: &Params, name: &str) -> Result<u32, String> {
    let n = params.integer(name, 1)?;
    if n > MAX_N {
        return Err(format!("parameter `{name}` must be at most {MAX_N}"));
    }
    Ok(n as u32)
}

impl Config {
    /// Computes fib(n).
    fn finish(&mut self) -> Result<(), String> {
        let (mut a, mut b) = (1u64, 1u64);
        for _ in 2..self.n {
            (a, b) = (b, a + b);
        }
        self.expected = b;
        Ok(())
    }
}

/// Validates a run: the root reported `result` (None if it never did), which must be fib(N). The
/// result is the root's.
pub(crate) fn check(cfg: &Config, result: Option<u64>) -> Outcome {
    match result {
        Some(value) => Outcome::expect_eq("fib(n)", cfg.expected, value),
        None => Outcome::failed("the root actor reported no result"),
    }
}

#[cfg(test)]
mod tests {
    use super::{check, Config, BENCHMARK};
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    /// fib by the closed form (Binet), rounded: independent of the recursion and of the iteration in
    /// `Config`.
    fn binet(n: u32) -> u64 {
        let phi = (1.0 + 5f64.sqrt()) / 2.0;
        (phi.powi(n as i32) / 5f64.sqrt()).round() as u64
    }

    #[test]
    fn default_size_is_savinas_value() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("n", 25.0)])).unwrap();
        assert_eq!(cfg.expected, 75_025);
        assert!(check(&cfg, Some(75_025)).check.is_ok());
        assert!(check(&cfg, Some(75_024)).check.is_err());
        assert!(check(&cfg, None).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        testing::expect_result(
            &BENCHMARK,
            testing::ACTOR_AND_FLOOR,
            &[("n", 12.0)],
            serde_json::json!(144),
        );
        validates(&BENCHMARK, &[("n", 1.0)]);
        validates(&BENCHMARK, &[("n", 2.0)]);
    }

    /// The actor tree's and the BoC cowns' results against a direct computation at two sizes other
    /// than the default.
    #[test]
    fn actor_and_boc_results_match_a_direct_computation() {
        for n in [15u32, 18] {
            testing::expect_result(
                &BENCHMARK,
                &testing::on_one_and_two(&[Model::Actor, Model::Boc], 1),
                &[("n", n as f64)],
                serde_json::json!(binet(n)),
            );
        }
    }

    #[test]
    fn boc_validates_at_a_reduced_size() {
        testing::expect_result(
            &BENCHMARK,
            testing::BOC,
            &[("n", 12.0)],
            serde_json::json!(144),
        );
        testing::boc_validates(&BENCHMARK, &[("n", 1.0)]);
        testing::boc_validates(&BENCHMARK, &[("n", 3.0)]);
        for n in [1u32, 3, 12] {
            testing::expect_result(
                &BENCHMARK,
                &testing::on_one_and_two(&[Model::BocTuned], 2),
                &[("n", f64::from(n))],
                serde_json::json!(binet(n)),
            );
        }
    }

    #[test]
    fn sizes_out_of_range_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("n", 0.0)]).contains("`n`"));
        assert!(rejects(&BENCHMARK, &[("n", 51.0)]).contains("`n`"));
    }
}
