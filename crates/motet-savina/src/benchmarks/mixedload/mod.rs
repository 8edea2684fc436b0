//! Mixed operations under work load, after the CAF paper's section 5.4 (beyond Savina).
//!
//! Flow: the main thread creates a collector and `r` masters, each with a worker of its own, and
//! sends each master `Build`. A master builds a ring: `Next = self`, then `l` times
//! `Next = spawn(ChainLink(Next))`; it sends `Token(t)` to `Next` and asks its worker to factor
//! `NUMBER` (28,350,160,440,309,881 = 86,028,157 × 329,545,133) by trial division. A chain link
//! forwards every token unchanged to its next and exits after forwarding `Token(0)`. The master
//! forwards `Token(x − 1)` on `Token(x)`, and on `Token(0)` the ring is gone: it builds the next
//! one, `k` rings in all, then sends `Done` (with the tokens it saw) to the collector and exits. A
//! worker sends each factorization to the collector. The collector finishes once it has r·k
//! factorizations and r `Done`s. With the defaults: 400 factorizations, 20 `Done`s, 19,600 chain
//! links (19,641 actors with masters, workers and collector; the paper counts 19,621), and about
//! 20 million token messages, while the factorizations load the workers.
//!
//! Validation: r·k factorizations, each exactly the two prime factors; r masters done; r·k·(t+1)
//! tokens seen by the masters (every ring passed the token down to 0). The result holds the
//! factors and the counts.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;

#[cfg(test)]
use crate::bench::Model;
use crate::bench::{Benchmark, Outcome};

/// Mixed load (CAF 5.4; id 0: beyond Savina).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "mixedload",
    id: 0,
    title: "Mixed load (CAF paper 5.4): R masters rebuild rings and factor a number K times",
    params: PARAMS,
    variants,
};

/// The number every worker factors, the paper's.
pub(crate) const NUMBER: u64 = 28_350_160_440_309_881;

/// Its prime factors, in increasing order.
pub(crate) const FACTORS: [u64; 2] = [86_028_157, 329_545_133];

crate::params! {
    /// `r`, `l`, `t`, `k`; "small" is 6 factorizations (about a second on one worker) instead of 400.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("r", default = 20.0, small = 3.0, min = 1,
            help = "masters (rings), each with a worker")]
        r: u64,
        #[param("l", default = 49.0, small = 49.0, min = 0,
            help = "chain links per ring (plus the master)")]
        l: u64,
        #[param("t", default = 1000.0, small = 1000.0, min = 0,
            help = "initial token value (rounds around the ring)")]
        t: u64,
        #[param("k", default = 20.0, small = 2.0, min = 1,
            help = "rings each master builds, one factorization each")]
        k: u64,
    }
    derived {
        /// The number to factor ([`NUMBER`]; a smaller one in the tests).
        number: u64 = NUMBER,
        /// Its factors, in increasing order.
        factors: [u64; 2] = FACTORS,
    }
}

variants!(actor, floor, peers);

impl Config {
    /// Factorizations the collector must get.
    pub(crate) fn factorizations(&self) -> u64 {
        self.r * self.k
    }
}

/// Factors `n` by trial division (2, then odd divisors up to the square root), in increasing
/// order. One `div` gives both `n / d` and `n % d`.
pub(crate) fn factorize(mut n: u64) -> Vec<u64> {
    let mut factors = Vec::new();
    let mut d = 2;
    loop {
        let (quotient, remainder) = (n / d, n % d);
        if quotient < d {
            break;
        }
        if remainder == 0 {
            factors.push(d);
            n = quotient;
        } else {
            d += if d == 2 { 1 } else { 2 };
        }
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

/// What the collector gathers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Factorizations received.
    pub(crate) factorizations: u64,
    /// The first factorization received.
    pub(crate) first: Option<Vec<u64>>,
    /// Factorizations that were not the expected factors.
    pub(crate) wrong: u64,
    /// `Done` messages received.
    pub(crate) masters_done: u64,
    /// Tokens the masters saw, summed over their `Done`s.
    pub(crate) tokens: u64,
}

impl Tally {
    /// Counts a factorization; `expected` is the right one.
    pub(crate) fn factors(&mut self, factors: Vec<u64>, expected: &[u64; 2]) {
        self.factorizations += 1;
        if factors != expected {
            self.wrong += 1;
        }
        self.first.get_or_insert(factors);
    }

    /// Counts a master's `Done` and the tokens it saw.
    pub(crate) fn done(&mut self, tokens: u64) {
        self.masters_done += 1;
        self.tokens += tokens;
    }

    /// Whether everything the collector waits for has arrived.
    pub(crate) fn complete(&self, cfg: &Config) -> bool {
        self.factorizations == cfg.factorizations() && self.masters_done == cfg.r
    }
}

/// Validates a run: the collector's tally (`None` if it never finished). The result is
/// `{"factors", "factorizations", "masters_done", "tokens"}`.
pub(crate) fn check(cfg: &Config, tally: Option<&Tally>) -> Outcome {
    let Some(tally) = tally else {
        return Outcome::failed("the collector did not finish");
    };
    let result = serde_json::json!({
        "factors": tally.first,
        "factorizations": tally.factorizations,
        "masters_done": tally.masters_done,
        "tokens": tally.tokens,
    });
    let tokens = cfg.factorizations() * (cfg.t + 1);
    let check = if tally.factorizations != cfg.factorizations() {
        Err(format!(
            "{} factorizations, expected {}",
            tally.factorizations,
            cfg.factorizations()
        ))
    } else if tally.wrong > 0 {
        Err(format!(
            "{} factorizations were not {:?} (the first: {:?})",
            tally.wrong, cfg.factors, tally.first
        ))
    } else if tally.masters_done != cfg.r {
        Err(format!(
            "{} masters done, expected {}",
            tally.masters_done, cfg.r
        ))
    } else if tally.tokens != tokens {
        Err(format!(
            "the masters saw {} tokens, expected {tokens}",
            tally.tokens
        ))
    } else {
        Ok(())
    };
    Outcome { result, check }
}

#[cfg(test)]
/// A program built from a [`Config`] directly (so that the tests can factor a smaller number).
type Program = fn(Config, usize) -> crate::bench::Prepared;

/// Every model's program, by model.
#[cfg(test)]
fn programs() -> Vec<(Model, Program)> {
    #[cfg_attr(not(feature = "peers"), allow(unused_mut))]
    let mut v: Vec<(Model, Program)> = vec![
        (Model::Actor, actor::program),
        (Model::Floor, floor::program),
    ];
    #[cfg(feature = "peers")]
    v.extend(peers::programs());
    v
}

#[cfg(test)]
mod tests {
    use super::{check, factorize, Config, Tally, BENCHMARK, FACTORS, NUMBER};
    use crate::bench::Model;
    use crate::benchmarks::testing;

    /// A quick configuration: a semiprime whose trial division takes a millisecond.
    pub(super) fn quick(r: u64, l: u64, t: u64, k: u64) -> Config {
        Config {
            r,
            l,
            t,
            k,
            number: 1_000_003 * 1_000_033,
            factors: [1_000_003, 1_000_033],
        }
    }

    #[test]
    fn trial_division_finds_the_papers_factors() {
        assert_eq!(FACTORS[0] * FACTORS[1], NUMBER);
        assert_eq!(factorize(NUMBER), FACTORS);
        assert_eq!(factorize(97), [97]);
        assert_eq!(factorize(360), [2, 2, 2, 3, 3, 5]);
        assert_eq!(factorize(1), Vec::<u64>::new());
        assert_eq!(
            factorize(quick(1, 1, 1, 1).number),
            quick(1, 1, 1, 1).factors
        );
    }

    #[test]
    fn check_wants_every_count() {
        let cfg = quick(2, 3, 4, 2);
        let mut t = Tally::default();
        for _ in 0..4 {
            t.factors(cfg.factors.to_vec(), &cfg.factors);
        }
        t.done(10);
        assert!(!t.complete(&cfg));
        t.done(10);
        assert!(t.complete(&cfg));
        let outcome = check(&cfg, Some(&t));
        assert_eq!(outcome.check, Ok(()));
        assert_eq!(outcome.result["factors"], serde_json::json!(cfg.factors));
        let mut wrong = t.clone();
        wrong.wrong = 1;
        assert!(check(&cfg, Some(&wrong)).check.is_err());
        let mut short = t.clone();
        short.tokens -= 1;
        assert!(check(&cfg, Some(&short)).check.is_err());
        assert!(check(&cfg, None).check.is_err());
    }

    #[test]
    fn every_model_validates_small_rings() {
        for cfg in [quick(1, 0, 0, 1), quick(3, 5, 20, 3), quick(2, 49, 7, 2)] {
            for (model, program) in super::programs() {
                for threads in [1, 2] {
                    let mut program = program(cfg, threads).unwrap();
                    let outcome = program.run();
                    assert_eq!(outcome.check, Ok(()), "{model} t={threads} {cfg:?}");
                    assert_eq!(outcome.result["tokens"], cfg.r * cfg.k * (cfg.t + 1));
                }
            }
        }
    }

    #[test]
    fn the_parameters_are_the_papers() {
        let cfg = Config::from_params(&testing::defaults(&BENCHMARK, &[])).unwrap();
        assert_eq!((cfg.r, cfg.l, cfg.t, cfg.k), (20, 49, 1000, 20));
        assert_eq!(cfg.factorizations(), 400);
        assert_eq!(cfg.number, NUMBER);
        assert!(BENCHMARK.variant(Model::Actor).is_some());
        let err = testing::rejects(&BENCHMARK, &[("r", 0.0)]);
        assert!(err.contains("`r`"), "{err}");
    }
}
