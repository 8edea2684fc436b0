//! 30. Bitonic Sort (parallelism): a StreamIt-style sorting network of actors built by actors.
//!
//! Structure (SPEC.md section 3.30): a source sends `n` values (`|next_long()| mod m` from the
//! suite's LCG seeded with `s`) into a kernel made of the merge stages 2, 4, …, n/2 and a last
//! merge stage; each stage is a chain of steps, each step a round-robin splitter, parallel
//! partitions (a splitter, compare-exchange actors, a joiner and an adapter each) and a joiner;
//! the output goes through an adapter to a validation actor. Every composite actor creates its
//! parts when it starts, so the whole network (about 242,000 actors at the defaults) is built by
//! actors during the timed run. Values flow as `Value` and `Data(order, value)` messages; `Exit`
//! cascades through everything ([`network`]).
//!
//! Validation: the validation actor receives `n` values, in non-decreasing order, whose sum is the
//! sum of the values drawn (135,063,552 at the defaults) and whose checksum `Σ (i+1)·v_i` is that
//! of the drawn values sorted directly in `prepare` (untimed). The result is the sum.

mod actor;
mod floor;
pub(crate) mod network;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::saturating_long;
use crate::random::PseudoRandom;

use network::{draw, Report};

/// Bitonic Sort (Savina 30).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "bitonicsort",
    id: 30,
    title: "Bitonic Sort: a sorting network of actors built by actors",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`, `-m`, `-s`. "small" sorts 512 values (about a fourteenth of the work).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// At most [`MAX_N`].
        #[param("n", default = 4096.0, small = 512.0, min = 1,
            help = "values to sort (a power of two)")]
        n: usize,
        #[param("m", default = 1_152_921_504_606_846_976.0, small = 1_152_921_504_606_846_976.0,
            parse = saturating_long(1),
            help = "values are taken modulo m (2^60)")]
        m: i64,
        #[param("s", default = 2048.0, small = 2048.0, parse = saturating_long(0),
            help = "seed of the random values")]
        seed: i64,
    }
    finish = Config::finish;
}

/// The most values: the network grows as n·log²n actors.
const MAX_N: usize = 1 << 20;

variants!(actor, reactor(own_protocol), floor);

impl Config {
    /// Checks the number of values.
    fn finish(&mut self) -> Result<(), String> {
        let n = self.n;
        if !n.is_power_of_two() || n > MAX_N {
            return Err(format!(
                "parameter `n` must be a power of two up to {MAX_N}, got {n}"
            ));
        }
        Ok(())
    }
}

/// What a correct run reports, from the drawn values sorted directly (untimed).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expected {
    sum: i64,
    checksum: u64,
}

impl Expected {
    /// Draws the values as the source does and sorts them.
    pub(crate) fn new(cfg: &Config) -> Expected {
        let mut values = source_values(cfg);
        values.sort_unstable();
        Expected {
            sum: values.iter().sum(),
            checksum: checksum(&values),
        }
    }
}

/// The source's values, in the order it sends them.
pub(crate) fn source_values(cfg: &Config) -> Vec<i64> {
    let mut random = PseudoRandom::new(cfg.seed);
    (0..cfg.n).map(|_| draw(&mut random, cfg.m)).collect()
}

/// `Σ (i+1)·v_i`, wrapping, as the validation actor computes it.
fn checksum(values: &[i64]) -> u64 {
    values.iter().zip(1u64..).fold(0u64, |acc, (&v, i)| {
        acc.wrapping_add(i.wrapping_mul(v as u64))
    })
}

/// Validates the validation actor's report. The result is the sum.
pub(crate) fn check(cfg: &Config, expected: &Expected, report: Option<Report>) -> Outcome {
    let Some(report) = report else {
        return Outcome::failed("the validation actor reported nothing");
    };
    let check = if report.count != cfg.n as u64 {
        Err(format!(
            "{} values arrived, expected {}",
            report.count, cfg.n
        ))
    } else if let Some(at) = report.out_of_order {
        Err(format!(
            "the value at {at} is smaller than the one before it"
        ))
    } else if report.sum != expected.sum {
        Err(format!(
            "the sum is {}, expected {}",
            report.sum, expected.sum
        ))
    } else if report.checksum != expected.checksum {
        Err("sorted, but not the values drawn (checksum differs)".into())
    } else {
        Ok(())
    };
    Outcome {
        result: report.sum.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{actor, check, checksum, source_values, Config, Expected, BENCHMARK};
    use crate::benchmarks::bitonicsort::network::Report;
    use crate::benchmarks::testing;
    use crate::motet_support::runtime;

    fn config(n: usize) -> Config {
        Config {
            n,
            m: 1 << 60,
            seed: 2048,
        }
    }

    /// SPEC.md: the sum at the defaults is 135,063,552 (the LCG's first 4,096 values from 2048).
    #[test]
    fn default_values_sum() {
        assert_eq!(
            source_values(&config(4096)).iter().sum::<i64>(),
            135_063_552
        );
    }

    /// The actors' output equals the drawn values sorted by the standard library, at two sizes
    /// and two moduli, on one and two workers.
    #[test]
    fn actor_output_is_the_values_sorted() {
        for cfg in [
            config(64),
            Config {
                n: 256,
                m: 1000,
                seed: 7,
            },
        ] {
            let mut values = source_values(&cfg);
            values.sort();
            let want = Report {
                count: cfg.n as u64,
                out_of_order: None,
                sum: values.iter().sum(),
                checksum: checksum(&values),
            };
            for threads in [1, 2] {
                let rt = runtime(threads).unwrap();
                assert_eq!(actor::sort(&cfg, &rt), Some(want), "{cfg:?}");
            }
        }
    }

    #[test]
    fn validates_at_a_reduced_size() {
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 128.0)]);
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 1.0)]);
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 2.0), ("m", 3.0)]);
    }

    #[test]
    fn check_wants_the_drawn_values_in_order() {
        let cfg = config(4);
        let expected = Expected::new(&cfg);
        let mut values = source_values(&cfg);
        values.sort();
        let good = Report {
            count: 4,
            out_of_order: None,
            sum: values.iter().sum(),
            checksum: checksum(&values),
        };
        assert_eq!(check(&cfg, &expected, Some(good)).check, Ok(()));
        let unsorted = Report {
            out_of_order: Some(2),
            ..good
        };
        assert!(check(&cfg, &expected, Some(unsorted)).check.is_err());
        let other = Report {
            checksum: good.checksum + 1,
            ..good
        };
        assert!(check(&cfg, &expected, Some(other)).check.is_err());
        let short = Report { count: 3, ..good };
        assert!(check(&cfg, &expected, Some(short)).check.is_err());
        assert!(check(&cfg, &expected, None).check.is_err());
    }

    #[test]
    fn bad_sizes_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("n", 100.0)]);
        assert!(err.contains("`n`"), "{err}");
        testing::rejects(&BENCHMARK, &[("m", 0.0)]);
    }
}
