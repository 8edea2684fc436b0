//! 16. Radix Sort (parallelism): a pipeline of one-bit sort stages, a stable LSD radix sort.
//!
//! Flow (SPEC.md section 3.16): the Source draws `n` values `|next_long()| mod m` from
//! [`PseudoRandom`] seeded with `s` and sends them as `Value`s to the first stage. There is one
//! SortActor per power of two below `m` (created from `m/2` down to 1; the stage for radix 1 comes
//! first): a stage forwards a value whose `radix` bit is clear at once and keeps the others, and after
//! its `n`-th value sends the kept ones on in arrival order and exits. The Validation actor at the end
//! checks the order, sums the values and exits after `n`. All actors are created by the driver.
//! `n·(stages + 1) + 1` messages (6,100,001 at the defaults).
//!
//! Validation: the values arrive sorted, `n` of them, with the sum of the drawn values (3,275,789,328
//! at the defaults: the LCG's values are 16-bit, so the 44 stages above 2^15 forward everything) and
//! the order-sensitive checksum `Σ (i+1)·v_i` (wrapping) of the drawn values sorted directly. Both
//! references are computed in `prepare`, untimed. The result is the sum.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::{ParamSpec, Params};
use crate::random::PseudoRandom;

/// Radix Sort (Savina 16).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "radixsort",
    id: 16,
    title: "Radix Sort: N values through a pipeline of one-bit sort stages",
    params: PARAMS,
    variants,
};

/// `-n` values, `-m` the exclusive maximum (a power of two: one stage per bit) and `-s` the seed;
/// "small" is LF's small size (40,000 values).
const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "n",
        default: 100_000.0,
        small: 40_000.0,
        help: "values sorted",
    },
    ParamSpec {
        name: "m",
        default: 1_152_921_504_606_846_976.0, // 2^60
        small: 1_152_921_504_606_846_976.0,
        help: "values are below m, a power of two (one sort stage per bit)",
    },
    ParamSpec {
        name: "s",
        default: 2048.0,
        small: 2048.0,
        help: "seed of the LCG",
    },
];

variants!(actor, actor_tuned["batch"], reactor(own_protocol), floor);

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Values (`-n`).
    pub(crate) n: u64,
    /// Exclusive maximum (`-m`), a power of two of at least 2.
    pub(crate) m: u64,
    /// The LCG's seed (`-s`).
    pub(crate) seed: i64,
}

impl Config {
    /// Reads and checks the parameters.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        let m = params.integer("m", 2)?;
        if !m.is_power_of_two() {
            return Err(format!(
                "parameter `m` must be a power of two (one sort stage per bit), got {m}"
            ));
        }
        let seed = params.integer("s", 0)?;
        Ok(Config {
            n: params.integer("n", 1)?,
            m,
            seed: i64::try_from(seed).map_err(|_| "parameter `s` is too large".to_string())?,
        })
    }

    /// The Source's values, in the order it sends them.
    pub(crate) fn values(&self) -> impl Iterator<Item = u64> {
        let mut rng = PseudoRandom::new(self.seed);
        let m = self.m;
        (0..self.n).map(move |_| rng.next_long().unsigned_abs() % m)
    }

    /// The stages' radices in creation order (`m/2` down to 1); the last one created is the first
    /// stage of the pipeline.
    pub(crate) fn radices(&self) -> impl Iterator<Item = u64> {
        std::iter::successors(Some(self.m / 2), |r| Some(r / 2)).take_while(|&r| r > 0)
    }
}

/// What a correct run delivers to the Validation actor, computed directly (untimed, in `prepare`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Expected {
    /// How many values arrive.
    pub(crate) count: u64,
    /// Their sum.
    pub(crate) sum: u64,
    /// `Σ (i+1)·v_i` (wrapping) over the values sorted with the standard library's sort.
    pub(crate) checksum: u64,
}

impl Expected {
    /// Draws the values and sorts them directly.
    pub(crate) fn of(cfg: &Config) -> Expected {
        let mut values: Vec<u64> = cfg.values().collect();
        values.sort_unstable();
        let mut seen = Seen::default();
        for v in values {
            seen.push(v);
        }
        Expected {
            count: seen.count,
            sum: seen.sum,
            checksum: seen.checksum,
        }
    }
}

/// What the Validation actor saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// Values received.
    pub(crate) count: u64,
    /// Their sum.
    pub(crate) sum: u64,
    /// `Σ (i+1)·v_i`, wrapping.
    pub(crate) checksum: u64,
    /// The last value received.
    prev: u64,
    /// The first value smaller than its predecessor, and its index.
    out_of_place: Option<(u64, u64)>,
}

impl Seen {
    /// Records the next value.
    #[inline]
    pub(crate) fn push(&mut self, v: u64) {
        if v < self.prev && self.out_of_place.is_none() {
            self.out_of_place = Some((v, self.count));
        }
        self.prev = v;
        self.count += 1;
        self.sum = self.sum.wrapping_add(v);
        self.checksum = self.checksum.wrapping_add(self.count.wrapping_mul(v));
    }
}

/// Validates a run: `seen` must be in order and match `expected`. The result is the sum.
pub(crate) fn check(expected: &Expected, seen: Option<Seen>) -> Outcome {
    let Some(seen) = seen else {
        return Outcome::failed("the validation stage did not finish");
    };
    let mut outcome = Outcome::expect_eq("sum", expected.sum, seen.sum);
    let problem = if let Some((v, i)) = seen.out_of_place {
        Some(format!("value {v} out of place at index {i}"))
    } else if seen.count != expected.count {
        Some(format!(
            "{} values arrived, expected {}",
            seen.count, expected.count
        ))
    } else if seen.checksum != expected.checksum {
        Some(format!(
            "order checksum {} differs from the directly sorted {}",
            seen.checksum, expected.checksum
        ))
    } else {
        None
    };
    if let (Ok(()), Some(p)) = (&outcome.check, problem) {
        outcome.check = Err(p);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Expected, Seen, BENCHMARK};
    use crate::benchmarks::testing::{self, rejects, run_actor_and_floor};

    fn config(n: f64, m: f64, s: f64) -> Config {
        let sets = [("n", n), ("m", m), ("s", s)];
        Config::from_params(&testing::defaults(&BENCHMARK, &sets)).unwrap()
    }

    /// SPEC.md: the LCG-era sum at the defaults is 3,275,789,328; 60 stages.
    #[test]
    fn defaults_have_savinas_sum_and_sixty_stages() {
        let cfg = Config::from_params(&testing::defaults(&BENCHMARK, &[])).unwrap();
        assert_eq!(Expected::of(&cfg).sum, 3_275_789_328);
        assert_eq!(cfg.radices().count(), 60);
        assert_eq!(cfg.radices().last(), Some(1));
    }

    #[test]
    fn check_wants_order_count_sum_and_checksum() {
        let e = Expected::of(&config(50.0, 256.0, 7.0));
        let mut sorted: Vec<u64> = config(50.0, 256.0, 7.0).values().collect();
        sorted.sort();
        let feed = |vals: &[u64]| {
            let mut s = Seen::default();
            vals.iter().for_each(|&v| s.push(v));
            s
        };
        assert!(check(&e, Some(feed(&sorted))).check.is_ok());
        let mut swapped = sorted.clone();
        swapped.swap(0, 49);
        assert!(check(&e, Some(feed(&swapped))).check.is_err());
        assert!(check(&e, Some(feed(&sorted[1..]))).check.is_err());
        assert!(check(&e, None).check.is_err());
    }

    /// A direct computation written here: the drawn values sorted, summed, weighted.
    fn direct(n: u64, m: u64, seed: i64) -> (u64, u64) {
        let mut v = Vec::new();
        let mut state = seed;
        for _ in 0..n {
            state = (state * 1309 + 13849) & 0xFFFF;
            v.push(state as u64 % m);
        }
        v.sort();
        let sum = v.iter().sum();
        let weighted = v
            .iter()
            .enumerate()
            .fold(0u64, |a, (i, &x)| a.wrapping_add((i as u64 + 1) * x));
        (sum, weighted)
    }

    /// The actor results at two non-default sizes against the direct computation (one size where
    /// `m` cuts the 16-bit values, so every stage sorts).
    #[test]
    fn actor_and_floor_match_a_direct_sort_at_two_sizes() {
        for (n, m, s) in [(3000u64, 1u64 << 10, 11i64), (5000, 1 << 20, 2048)] {
            let sets = [("n", n as f64), ("m", m as f64), ("s", s as f64)];
            let (sum, weighted) = direct(n, m, s);
            let cfg = config(n as f64, m as f64, s as f64);
            assert_eq!(Expected::of(&cfg).checksum, weighted);
            for result in run_actor_and_floor(&BENCHMARK, &sets) {
                assert_eq!(result, serde_json::json!(sum));
            }
        }
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("m", 1000.0)]).contains("`m`"));
        assert!(rejects(&BENCHMARK, &[("n", 0.0)]).contains("`n`"));
    }
}
