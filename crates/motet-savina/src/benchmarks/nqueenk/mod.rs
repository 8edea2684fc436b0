//! 28. N-Queens first K solutions (parallelism): `w` workers search the placements of n queens.
//!
//! Flow (SPEC.md section 3.28): the Master creates W workers and sends `Work(empty board, depth
//! 0)` round-robin. A worker with a full board sends `Result`; with `depth ≥ t` it searches the
//! rest sequentially (recursive placement, Savina's O(d²) validity check of the prefix, one
//! `Result` per solution); otherwise it sends the Master one `Work` per valid extension, which
//! the Master forwards round-robin. Every processed Work is answered with `Done`. The Master stops
//! the workers when the Results reach the limit `s` or every Work sent is done; they echo `Stop`
//! and the Master exits. At the defaults: 4,959 Work items, 14,200 solutions, 29,116 messages.
//!
//! Kernel: every default program copies the board per trial and checks it pair by pair, as
//! Savina does ([`Plain`]); `actor-tuned` and `floor-tuned` edit one board in place and check it
//! with a vectorised window ([`Board`], deviation `window-board`).
//!
//! Validation: Savina's own check (`count ≥ limit`) fails at the defaults and is never printed
//! (SPEC.md section 6). Here, with the limit above the number of solutions, the count must equal
//! the known number of solutions of the `n`-queens problem (Savina's table; 14,200 for 12) and the
//! Work items the valid partial boards up to depth `t` (counted directly in `prepare`); with a
//! lower limit, the count must lie between the limit and that number. The result is the count.

mod actor;
mod board;
mod floor;
mod floor_loop;
mod ledger;
mod plain;
mod reactor;

use crate::bench::{Benchmark, Outcome};

pub(crate) use board::Board;
pub(crate) use plain::Plain;

/// A partial board and the sequential search over it: the kernel a program runs. The default
/// programs run Savina's ([`Plain`]); the tuned ones the vectorised window ([`Board`], deviation
/// `window-board`). Both give the same validity, so the same Work items and solutions.
pub(crate) trait Kernel: Clone + Send + 'static {
    /// No queen placed.
    fn empty() -> Self;
    /// Rows placed.
    fn depth(&self) -> usize;
    /// This board with a queen in the next row, at column `c`.
    fn with(&self, c: usize) -> Self;
    /// Savina's `boardValid`: no two queens of the placed rows share a column or a diagonal.
    fn valid(&self) -> bool;
    /// Savina's `nqueensKernelSeq`: every valid completion of this board to `n` rows, each
    /// reported to `solution` (the board is left as it was).
    fn search(&mut self, n: usize, solution: &mut dyn FnMut());
}

/// N-Queens first K solutions (Savina 28).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "nqueenk",
    id: 28,
    title: "N-Queens first K solutions: W workers search the placements of n queens",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-w`, `-n`, `-t`, `-p`, `-s`. "small" is a 10-queens board (724 solutions, about a thirtieth of
    /// the work: 11 queens, a sixth, takes seconds in unoptimised test builds).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param(super::WORKERS, parse = super::workers)]
        workers: usize,
        #[param("n", default = 12.0, small = 10.0, min = 1,
            help = "board size (queens), at most 20")]
        n: usize,
        #[param("t", default = 4.0, small = 4.0, min = 1,
            help = "depth from which a worker searches sequentially")]
        threshold: usize,
        #[param(super::priorities(10.0), min = 1)]
        _priorities: u64,
        #[param("s", default = 1_500_000.0, small = 1_500_000.0, min = 1,
            help = "solutions after which the Master stops the workers")]
        limit: u64,
    }
    finish = Config::finish;
}

/// Solutions of the n-queens problem for n = 1 to 20 (Savina's `NQueensConfig.SOLUTIONS`).
const SOLUTIONS: [u64; 20] = [
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
];

variants!(
    actor,
    actor_tuned["window-board"],
    reactor(own_protocol),
    floor,
    floor_tuned["window-board"],
    floor_loop,
);

impl Config {
    /// Checks the board size and the depth.
    fn finish(&mut self) -> Result<(), String> {
        if self.n > 20 {
            return Err(format!("parameter `n` must be at most 20, got {}", self.n));
        }
        if self.threshold > 20 {
            return Err(format!(
                "parameter `t` must be at most 20, got {}",
                self.threshold
            ));
        }
        Ok(())
    }

    /// The number of solutions of the `n`-queens problem.
    pub(crate) fn solutions(&self) -> u64 {
        SOLUTIONS[self.n - 1]
    }
}

/// What a search reported: solutions counted by the Master and Work items it sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) solutions: u64,
    pub(crate) work_items: u64,
}

/// The Work items a full search sends: the valid partial boards of every depth up to
/// `min(t, n)`, the empty one included. Counted with column and diagonal masks, independently of
/// the workers' check.
pub(crate) fn expected_work_items(cfg: &Config) -> u64 {
    fn count(n: usize, depth: usize, max_depth: usize, cols: u32, d1: u64, d2: u64) -> u64 {
        if depth == max_depth {
            return 1;
        }
        let mut total = 1;
        for c in 0..n {
            let (a, b) = (depth + c, depth + n - c);
            if cols & (1 << c) == 0 && d1 & (1 << a) == 0 && d2 & (1 << b) == 0 {
                total += count(
                    n,
                    depth + 1,
                    max_depth,
                    cols | 1 << c,
                    d1 | 1 << a,
                    d2 | 1 << b,
                );
            }
        }
        total
    }
    count(cfg.n, 0, cfg.threshold.min(cfg.n), 0, 0, 0)
}

/// Validates a search against the known solutions and `expected_items` (see the module
/// documentation). The result is the number of solutions counted.
pub(crate) fn check(cfg: &Config, expected_items: u64, counts: Option<Counts>) -> Outcome {
    let Some(Counts {
        solutions,
        work_items,
    }) = counts
    else {
        return Outcome::failed("the Master reported no count");
    };
    let all = cfg.solutions();
    let check = if cfg.limit > all {
        if solutions != all {
            Err(format!("{solutions} solutions, expected {all}"))
        } else if work_items != expected_items {
            Err(format!(
                "{work_items} Work items, expected {expected_items}"
            ))
        } else {
            Ok(())
        }
    } else if !(cfg.limit..=all).contains(&solutions) {
        Err(format!(
            "{solutions} solutions, expected between the limit {} and {all}",
            cfg.limit
        ))
    } else {
        Ok(())
    };
    Outcome {
        result: solutions.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{
        actor, check, expected_work_items, Board, Config, Counts, Plain, BENCHMARK, SOLUTIONS,
    };
    use crate::benchmarks::testing;
    use crate::motet_support::runtime;

    fn config(n: usize, threshold: usize, workers: usize, limit: u64) -> Config {
        let sets = [
            ("n", n as f64),
            ("t", threshold as f64),
            ("w", workers as f64),
            ("s", limit as f64),
        ];
        Config::from_params(&testing::params(&BENCHMARK, &sets)).unwrap()
    }

    /// Placements of n queens, counted directly by trying every column of every row against
    /// the queens already placed.
    fn direct_solutions(n: usize) -> u64 {
        fn place(n: usize, rows: &mut Vec<usize>) -> u64 {
            if rows.len() == n {
                return 1;
            }
            let mut total = 0;
            for c in 0..n {
                let r = rows.len();
                let safe = rows
                    .iter()
                    .enumerate()
                    .all(|(r2, &c2)| c2 != c && r - r2 != c.abs_diff(c2));
                if safe {
                    rows.push(c);
                    total += place(n, rows);
                    rows.pop();
                }
            }
            total
        }
        place(n, &mut Vec::new())
    }

    #[test]
    fn savinas_table_matches_a_direct_count() {
        for n in 1..=8 {
            assert_eq!(SOLUTIONS[n - 1], direct_solutions(n), "n={n}");
        }
    }

    /// SPEC.md: 4,959 Work items at the defaults (1 + 12 + 110 + 756 + 4,080).
    #[test]
    fn default_work_items() {
        assert_eq!(expected_work_items(&config(12, 4, 20, 1_500_000)), 4959);
        assert_eq!(
            expected_work_items(&config(4, 9, 20, 100)),
            1 + 4 + 6 + 4 + 2
        );
    }

    /// The actors' counts equal a direct count at two board sizes, on one and two workers.
    #[test]
    fn actor_counts_equal_a_direct_count() {
        for cfg in [config(6, 2, 3, 1_000), config(8, 3, 20, 1_000)] {
            let want = Counts {
                solutions: direct_solutions(cfg.n),
                work_items: expected_work_items(&cfg),
            };
            for threads in [1, 2] {
                let rt = runtime(threads).unwrap();
                assert_eq!(actor::search::<Plain>(&cfg, &rt), Some(want), "{cfg:?}");
                assert_eq!(actor::search::<Board>(&cfg, &rt), Some(want), "{cfg:?}");
            }
        }
    }

    #[test]
    fn validates_at_a_reduced_size() {
        let results = testing::run_actor_and_floor(&BENCHMARK, &[("n", 8.0)]);
        assert!(results.iter().all(|r| r == &serde_json::json!(92)));
        // The board is full before the threshold depth.
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 5.0), ("t", 7.0)]);
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 1.0)]);
    }

    /// SPEC.md: 14,200 solutions at the defaults. (Slow unoptimised: run with `--release`.)
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow unoptimised; run with --release")]
    fn default_size_has_14200_solutions() {
        let results = testing::run_actor_and_floor(&BENCHMARK, &[("n", 12.0)]);
        assert!(results.iter().all(|r| r == &serde_json::json!(14_200)));
    }

    #[test]
    fn a_low_limit_stops_early() {
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 8.0), ("s", 10.0)]);
    }

    #[test]
    fn check_wants_every_solution_below_the_limit() {
        let cfg = config(12, 4, 20, 1_500_000);
        let ok = Counts {
            solutions: 14_200,
            work_items: 4959,
        };
        assert_eq!(check(&cfg, 4959, Some(ok)).check, Ok(()));
        let short = Counts {
            solutions: 14_199,
            ..ok
        };
        assert!(check(&cfg, 4959, Some(short)).check.is_err());
        assert!(check(&cfg, 4960, Some(ok)).check.is_err());
        let limited = config(12, 4, 20, 100);
        let early = Counts {
            solutions: 150,
            work_items: 9,
        };
        assert_eq!(check(&limited, 4959, Some(early)).check, Ok(()));
        assert!(check(&cfg, 4959, None).check.is_err());
    }

    #[test]
    fn bad_sizes_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("n", 21.0)]);
        assert!(err.contains("`n`"), "{err}");
        testing::rejects(&BENCHMARK, &[("t", 0.0)]);
        testing::rejects(&BENCHMARK, &[("s", 0.0)]);
    }
}
