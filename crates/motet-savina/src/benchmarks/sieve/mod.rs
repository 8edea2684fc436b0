//! 18. Sieve of Eratosthenes (parallelism): a chain of prime filters that grows while it runs.
//!
//! Flow (SPEC.md section 3.18): the Producer sends the odd candidates 3, 5, … below `n` to the first
//! filter, which starts holding the prime 2, then `Exit`. A filter tests a candidate against its
//! local primes; if none divides it, it passes it to the next filter, or, being the last, keeps it as
//! a new prime, or, when it already holds `m` primes, creates the next filter (dynamically, from
//! inside the actor) holding it. `Exit` travels down the chain; the last filter reports
//! `(id − 1)·m + its local count` primes and its id, the number of filters.
//!
//! Validation: the primes below `n` (9,592 at the defaults) and `⌈primes / m⌉` filters (10), the
//! reference counted with a classic sieve in `prepare` (untimed). The result is the prime count.

mod actor;
mod floor;
mod held;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Sieve of Eratosthenes (Savina 18).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "sieve",
    id: 18,
    title: "Sieve of Eratosthenes: a growing chain of prime-filter actors",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` the limit and `-m` primes per filter; "small" is about a tenth of the work (the work grows
    /// with the square of the prime count; SPEC.md gives no LF small size).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 100_000.0, small = 30_000.0, min = 3,
            help = "candidates are the odd numbers below n")]
        n: u64,
        #[param("m", default = 1000.0, small = 1000.0, min = 1,
            help = "primes stored per filter actor")]
        m: usize,
    }
}

variants!(actor, actor_tuned["batch"], floor, reactor);

impl Config {
    /// The candidates the Producer sends, in order.
    pub(crate) fn candidates(&self) -> impl Iterator<Item = u64> {
        (3..self.n).step_by(2)
    }
}

/// A prime a filter holds.
///
/// Savina's `isLocallyPrime` computes `candidate % p` for each local prime, and so does every
/// model here: the divisibility test is the benchmark's work per candidate, and a faster kernel
/// (a multiplicative test in place of the division, Lemire, Kaser and Kurz 2019) would be measured
/// against peers that divide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Prime {
    p: u64,
}

impl Prime {
    /// Holds `p` (at least 2).
    #[inline]
    pub(crate) fn new(p: u64) -> Prime {
        debug_assert!(p >= 2);
        Prime { p }
    }

    /// Whether this prime divides `n`.
    #[inline]
    pub(crate) fn divides(self, n: u64) -> bool {
        n.is_multiple_of(self.p)
    }
}

/// Whether no prime in `primes` divides `candidate` (Savina's `isLocallyPrime`).
///
/// Never inlined: every model and the floor then run this one copy of the loop, where a division
/// takes most of each step, so their times cannot differ by where their own copy of the loop
/// happens to lie in memory (an inlined copy that crossed a 64-byte boundary ran slower than
/// another on the same instructions; docs/measurements/2026-11-30-rounds.md).
#[inline(never)]
pub(crate) fn is_locally_prime(candidate: u64, primes: &[Prime]) -> bool {
    !primes.iter().any(|p| p.divides(candidate))
}

/// The last filter's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    /// `(id − 1)·m +` the last filter's local count.
    pub(crate) primes: u64,
    /// The last filter's id (filters are numbered from 1).
    pub(crate) filters: u64,
}

impl Report {
    /// The report of filter `id` holding `local` primes.
    pub(crate) fn of(id: u64, local: usize, m: usize) -> Report {
        Report {
            primes: (id - 1) * m as u64 + local as u64,
            filters: id,
        }
    }
}

/// The expected report: the primes below `n`, counted with a classic sieve, and `⌈primes / m⌉`.
pub(crate) fn expected(cfg: &Config) -> Report {
    let n = cfg.n as usize;
    let mut composite = vec![false; n];
    let mut primes = 0u64;
    for i in 2..n {
        if !composite[i] {
            primes += 1;
            let mut j = i * i;
            while j < n {
                composite[j] = true;
                j += i;
            }
        }
    }
    Report {
        primes,
        filters: primes.div_ceil(cfg.m as u64),
    }
}

/// Validates a run: the last filter's report must equal `expected`. The result is the prime count.
pub(crate) fn check(expected: Report, got: Option<Report>) -> Outcome {
    let Some(got) = got else {
        return Outcome::failed("the last filter did not report");
    };
    let mut outcome = Outcome::expect_eq("primes", expected.primes, got.primes);
    if outcome.check.is_ok() && got.filters != expected.filters {
        outcome.check = Err(format!(
            "{} filters, expected {}",
            got.filters, expected.filters
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, expected, Config, Report, BENCHMARK};
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, rejects, run_actor_and_floor};

    /// SPEC.md: 9,592 primes and 10 filters at the defaults.
    #[test]
    fn defaults_have_savinas_counts() {
        let cfg = Config::from_params(&testing::defaults(&BENCHMARK, &[])).unwrap();
        assert_eq!(
            expected(&cfg),
            Report {
                primes: 9592,
                filters: 10
            }
        );
    }

    #[test]
    fn check_wants_primes_and_filters() {
        let e = Report {
            primes: 25,
            filters: 3,
        };
        assert!(check(e, Some(e)).check.is_ok());
        assert!(check(e, Some(Report { primes: 24, ..e })).check.is_err());
        assert!(check(e, Some(Report { filters: 2, ..e })).check.is_err());
        assert!(check(e, None).check.is_err());
    }

    /// Primes below `n` by trial division, written here independently of the benchmark.
    fn count_primes(n: u64) -> u64 {
        (2..n)
            .filter(|&k| (2..k).take_while(|d| d * d <= k).all(|d| k % d != 0))
            .count() as u64
    }

    /// The actor results at two non-default sizes against a direct count (small `m`, so the chain
    /// grows to many filters).
    #[test]
    fn actor_and_floor_match_a_direct_count_at_two_sizes() {
        for (n, m) in [(2000u64, 7u64), (5003, 100)] {
            let primes = count_primes(n);
            assert!(primes > m, "the chain must grow");
            for result in run_actor_and_floor(&BENCHMARK, &[("n", n as f64), ("m", m as f64)]) {
                assert_eq!(result, serde_json::json!(primes));
            }
        }
    }

    /// The reactor programs on both schedulers, on one and two workers, two runs each: the primes
    /// counted directly, and `⌈primes / m⌉ − 1` filters created by mutations, with the same figures
    /// on every run. With `m` = 1 the chain is as long as there are primes; with `n` = 3 the
    /// Producer sends `Exit` alone.
    #[test]
    fn reactor_programs_grow_the_chain_by_mutations() {
        for (n, m) in [(2000u64, 7u64), (1000, 1), (3, 1000)] {
            let primes = count_primes(n);
            let params = testing::params(&BENCHMARK, &[("n", n as f64), ("m", m as f64)]);
            let mut first = None;
            for model in [Model::Reactor, Model::ReactorLevel] {
                for threads in [1, 2] {
                    for (outcome, metrics) in
                        testing::reactor_runs(&BENCHMARK, model, threads, &params, 2)
                    {
                        let run = format!("n={n} m={m} {model} t={threads}");
                        assert_eq!(outcome.result, serde_json::json!(primes), "{run}");
                        assert_eq!(metrics.reactors_created, primes.div_ceil(m) - 1, "{run}");
                        match &first {
                            None => first = Some(metrics),
                            Some(f) => assert_eq!(&metrics, f, "{run}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("n", 2.0)]).contains("`n`"));
        assert!(rejects(&BENCHMARK, &[("m", 0.0)]).contains("`m`"));
    }
}
