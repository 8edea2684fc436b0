//! 26. Successive Over-Relaxation (parallelism): red-black SOR with one actor per grid cell.
//!
//! Flow (SPEC.md section 3.26): `n` indexes the grid sizes {20, 80, …, 400} (default 0: 20×20).
//! A SorRunner, on `Boot`, creates the cells of the left half of the grid and a SorPeer, which
//! creates the right half's cells and sends its border column back; each half's cells then get
//! `Start` with the addresses of their half (and the other half's border). A cell's neighbours are
//! its 4-neighbourhood clipped to the grid; its colour is 1 when `i + j` is even. On `Start`,
//! colour-1 cells send their value to their neighbours; a cell that has one value from every
//! neighbour updates `v ← (ω/4)·Σ + (1 − ω)·v`, sends the new value and counts an iteration
//! (values that come before `Start` wait). At 100 iterations a cell sends `Result(v)` to the half
//! that made it and exits: colour-0 cells update 100 times, colour-1 cells 99. The peer sums its
//! half and sends one total; the runner adds its half and that total. All cells are created by
//! actors during the timed run. At the defaults: 402 actors, about 152,000 value messages.
//!
//! Data: `A[i][j] = next_double()·1e−6`, row-major, from the suite's LCG seeded with 10,101,010,
//! built in `prepare` (untimed, as Savina builds it in `initialize`).
//!
//! Validation, after the run (untimed, in `Iteration::validate`): Savina's stored reference predates the LCG (SPEC.md section 6), so the total is
//! checked against a direct sequential computation of the same half-sweeps, made in `prepare`
//! (untimed; at the defaults 4.1626863423327194e−10, SPEC.md's value for the LCG era). A cell adds
//! its neighbours' values in the order they arrive, so the last bits of the total depend on the
//! schedule: the check allows a relative difference of 1e−9 (Savina allowed 1e−12 absolute, about
//! 2·10⁻³ relative at this total).

mod actor;
mod cell;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;
use crate::random::PseudoRandom;

pub(crate) use cell::{neighbours, CellState, Neighbours, Update};

/// Successive Over-Relaxation (Savina 26).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "sor",
    id: 26,
    title: "Successive Over-Relaxation: red-black SOR, one actor per grid cell",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`: the index of the grid size. "small" is the default: 20×20 is Savina's smallest grid.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// The grid is `s × s`, `s` being the size `-n` selects.
        #[param("n", default = 0.0, small = 0.0, parse = grid_size,
            help = "grid size index into 20, 80, 100, 120, 150, 200, 250, 300, 350, 400")]
        s: usize,
    }
    derived {
        /// Iterations per cell (Savina's fixed 100).
        iterations: u32 = ITERATIONS,
    }
}

/// Savina's grid sizes, indexed by `-n`.
const DATA_SIZES: [usize; 10] = [20, 80, 100, 120, 150, 200, 250, 300, 350, 400];
/// Iterations per cell.
const ITERATIONS: u32 = 100;
/// The relaxation factor ω.
const OMEGA: f64 = 1.25;
/// The LCG seed of the grid's values.
const SEED: i64 = 10_101_010;
/// The largest relative difference from the direct computation the check accepts.
const TOLERANCE: f64 = 1e-9;

variants!(actor, reactor(own_protocol), floor);

/// Decodes `n`, an index into [`DATA_SIZES`], into the grid size it selects.
fn grid_size(params: &Params, name: &str) -> Result<usize, String> {
    let n = params.integer(name, 0)?;
    DATA_SIZES.get(n as usize).copied().ok_or_else(|| {
        format!(
            "parameter `{name}` must be an index from 0 to {}, got {n}",
            DATA_SIZES.len() - 1
        )
    })
}

impl Config {
    /// The columns of the runner's half; the peer has the rest.
    pub(crate) fn part(&self) -> usize {
        self.s / 2
    }
}

/// The grid's initial values and the total they relax to, shared read-only by every iteration.
pub(crate) struct Grid {
    /// `s × s`, row-major.
    pub(crate) values: Vec<f64>,
    /// The direct computation's total.
    pub(crate) reference: f64,
}

impl Grid {
    /// Draws the values and computes the reference total (untimed).
    pub(crate) fn new(cfg: &Config) -> Grid {
        let values = initial_values(cfg.s);
        let reference = direct_total(cfg, &values);
        Grid { values, reference }
    }
}

/// `A[i][j] = next_double()·1e−6`, row-major, LCG seeded with 10,101,010.
pub(crate) fn initial_values(s: usize) -> Vec<f64> {
    let mut rng = PseudoRandom::new(SEED);
    (0..s * s).map(|_| rng.next_double() * 1e-6).collect()
}

/// The cells' computation done directly: half-sweeps over the whole grid, colour 0 then colour 1,
/// each cell adding its neighbours in [`neighbours`] order. Colour-0 cells update `iterations`
/// times, colour-1 cells one time fewer; the result is the sum of the final values.
pub(crate) fn direct_total(cfg: &Config, initial: &[f64]) -> f64 {
    let s = cfg.s;
    let mut v = initial.to_vec();
    let cells: Vec<(usize, Neighbours)> = (0..s * s).map(|p| (p, neighbours(p, s, s))).collect();
    for round in 1..=cfg.iterations {
        for colour in [0, 1] {
            if colour == 1 && round == cfg.iterations {
                break;
            }
            for (p, nb) in &cells {
                if CellState::colour_of(p / s, p % s) == colour {
                    let sum = nb.iter().fold(0.0, |acc, &q| acc + v[q]);
                    v[*p] = CellState::relax(v[*p], sum);
                }
            }
        }
    }
    v.iter().sum()
}

/// Validates a run: the runner's `total` over `cells` cells against the direct computation's
/// total, and every cell counted once. The result is the total.
pub(crate) fn check(cfg: &Config, reference: f64, total: Option<(f64, usize)>) -> Outcome {
    let Some((total, cells)) = total else {
        return Outcome::failed("the runner reported no total");
    };
    let check = if cells != cfg.s * cfg.s {
        Err(format!(
            "the runner's total covers {cells} cells, expected {}",
            cfg.s * cfg.s
        ))
    } else if (total - reference).abs() > TOLERANCE * reference.abs() {
        Err(format!(
            "gTotal is {total:e}, the direct computation gives {reference:e}"
        ))
    } else {
        Ok(())
    };
    Outcome {
        result: total.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{actor, check, direct_total, initial_values, Config, Grid, BENCHMARK, OMEGA};
    use crate::bench::Model;
    use crate::benchmarks::testing;
    use crate::motet_support::runtime;
    use std::sync::Arc;

    fn config(s: usize) -> Config {
        Config { s, iterations: 100 }
    }

    /// SPEC.md: with the 2017 LCG the 20×20 grid's gTotal is 4.1626863423327194e-10.
    #[test]
    fn direct_total_at_the_defaults_is_specs_lcg_value() {
        let g = direct_total(&config(20), &initial_values(20));
        assert!((g - 4.162_686_342_332_719_4e-10).abs() < 1e-24, "{g:e}");
    }

    /// Red-black SOR written out on a plain 2-D array, without the benchmark's helpers: colour-0
    /// cells update `iterations` times, colour-1 cells one time fewer.
    fn textbook_sor(s: usize, iterations: u32) -> f64 {
        let mut a: Vec<Vec<f64>> = initial_values(s).chunks(s).map(|r| r.to_vec()).collect();
        for round in 1..=iterations {
            for red in [false, true] {
                if red && round == iterations {
                    break;
                }
                for i in 0..s {
                    for j in 0..s {
                        if (i + j).is_multiple_of(2) != red {
                            continue;
                        }
                        let mut sum = 0.0;
                        if j + 1 < s {
                            sum += a[i][j + 1];
                        }
                        if i + 1 < s {
                            sum += a[i + 1][j];
                        }
                        if j > 0 {
                            sum += a[i][j - 1];
                        }
                        if i > 0 {
                            sum += a[i - 1][j];
                        }
                        a[i][j] = OMEGA / 4.0 * sum + (1.0 - OMEGA) * a[i][j];
                    }
                }
            }
        }
        a.iter().flatten().sum()
    }

    /// The actors' total (on one and two workers) matches a textbook red-black SOR at two sizes
    /// (the 80×80 grid with fewer iterations, to stay quick).
    #[test]
    fn actor_totals_match_a_textbook_sor() {
        for cfg in [
            config(20),
            Config {
                s: 80,
                iterations: 6,
            },
        ] {
            let want = textbook_sor(cfg.s, cfg.iterations);
            let grid = Arc::new(Grid::new(&cfg));
            assert!((grid.reference - want).abs() <= 1e-12 * want.abs());
            for threads in [1, 2] {
                let rt = runtime(threads).unwrap();
                let (got, cells) = actor::total(&cfg, grid.clone(), &rt).unwrap();
                assert_eq!(cells, cfg.s * cfg.s);
                let s = cfg.s;
                assert!(
                    (got - want).abs() <= 1e-9 * want.abs(),
                    "s={s}: {got:e} vs {want:e}"
                );
            }
        }
    }

    #[test]
    fn validates_at_the_small_size() {
        testing::run_actor_and_floor(&BENCHMARK, &[]);
    }

    /// Both programs check the total after their timed run.
    #[test]
    fn validation_is_untimed() {
        testing::validation_is_untimed(&BENCHMARK, &[Model::Actor, Model::Floor], &[]);
    }

    #[test]
    fn check_compares_with_the_reference_and_counts_results() {
        let cfg = config(20);
        let reference = Grid::new(&cfg).reference;
        assert!(check(&cfg, reference, Some((reference, 400))).check.is_ok());
        assert!(
            check(&cfg, reference, Some((reference * (1.0 + 1e-6), 400)))
                .check
                .is_err()
        );
        assert!(check(&cfg, reference, Some((reference, 399)))
            .check
            .is_err());
        assert!(check(&cfg, reference, None).check.is_err());
    }

    #[test]
    fn bad_sizes_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("n", 10.0)]);
        assert!(err.contains("`n`"), "{err}");
        testing::rejects(&BENCHMARK, &[("n", -1.0)]);
    }
}
