//! 21. Trapezoidal Approximation (parallelism): `w` workers integrate a function over `[l, r]`.
//!
//! Flow (SPEC.md section 3.21): the Master gets `Work(L, R, h = (R − L)/N)`, creates W workers and
//! sends worker i the range `[L + i·(R − L)/W, + (R − L)/W]`. A worker sums `0.5·(f(x) + f(x + h))·h`
//! over `x = i·h + l` for `i < ⌊(r − l)/h⌋`, sends one `Result` and stops; the Master adds the W
//! results as they arrive. f(x) = sin(x³ − 1)/(x + 1) · √(1 + e^√(2x)). W + 1 actors, 2W + 1
//! messages, 2N evaluations of f: pure compute. The floor runs these messages on one thread;
//! `floor-loop` adds the workers' areas in a plain loop.
//!
//! Validation: the area is 0.27108075195295755 at the defaults (SPEC.md), and at other sizes the sum
//! of the same per-worker computation done in worker order in `prepare`. The Master adds the W
//! results in arrival order, and `actor-tuned` computes x³ as two multiplications (deviation
//! `cube-by-multiplication`) where Savina and every default program call `pow(x, 3)`; either
//! changes only the last bits of the area, so the check allows 1e-12 relative. The result is the
//! area.

mod actor;
mod boc;
mod floor;
mod floor_loop;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::{ParamSpec, Params};

/// Trapezoidal Approximation (Savina 21).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "trapezoid",
    id: 21,
    title: "Trapezoidal Approximation: W workers integrate a function, N pieces",
    params: PARAMS,
    variants,
};

/// `-n` pieces, `-w` workers, `-l` and `-r` end points; "small" is LF's small size (1.25 M pieces).
const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "n",
        default: 10_000_000.0,
        small: 1_250_000.0,
        help: "trapezoids",
    },
    ParamSpec {
        name: "w",
        default: 100.0,
        small: 100.0,
        help: "workers",
    },
    ParamSpec {
        name: "l",
        default: 1.0,
        small: 1.0,
        help: "left end point (at least 0: f takes √(2x))",
    },
    ParamSpec {
        name: "r",
        default: 5.0,
        small: 5.0,
        help: "right end point (above l)",
    },
];

variants!(
    actor,
    actor_tuned["cube-by-multiplication"],
    boc(own_protocol),
    reactor(own_protocol),
    floor,
    floor_loop,
);

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Config {
    /// Trapezoids (`-n`), at least 1.
    pub(crate) n: u64,
    /// Workers (`-w`), at least 1.
    pub(crate) w: usize,
    /// Left end point (`-l`).
    pub(crate) l: f64,
    /// Right end point (`-r`).
    pub(crate) r: f64,
    /// The area a correct run reaches.
    pub(crate) expected: f64,
}

/// SPEC.md's area at Savina's defaults.
const DEFAULT_AREA: f64 = 0.271_080_751_952_957_55;

impl Config {
    /// Reads and checks the parameters, and derives the expected area.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        let (l, r) = (params.f64("l"), params.f64("r"));
        if l < 0.0 {
            return Err(format!(
                "parameter `l` must be at least 0 (f takes √(2x)), got {l}"
            ));
        }
        if r <= l {
            return Err(format!("parameter `r` must be above `l`, got {r}"));
        }
        let w = params.integer("w", 1)?;
        let mut cfg = Config {
            n: params.integer("n", 1)?,
            w: usize::try_from(w).map_err(|_| "parameter `w` is too large".to_string())?,
            l,
            r,
            expected: 0.0,
        };
        let defaults = (cfg.n, cfg.w, cfg.l, cfg.r) == (10_000_000, 100, 1.0, 5.0);
        cfg.expected = if defaults {
            DEFAULT_AREA
        } else {
            (0..cfg.w).map(|i| cfg.worker_area(i)).sum()
        };
        Ok(cfg)
    }

    /// The width of a trapezoid.
    pub(crate) fn h(&self) -> f64 {
        (self.r - self.l) / self.n as f64
    }

    /// Worker i's range, as the Master computes it.
    pub(crate) fn range(&self, i: usize) -> (f64, f64) {
        let width = (self.r - self.l) / self.w as f64;
        let left = width * i as f64 + self.l;
        (left, left + width)
    }

    /// Worker i's area.
    pub(crate) fn worker_area(&self, i: usize) -> f64 {
        let (l, r) = self.range(i);
        area(l, r, self.h())
    }
}

/// Savina's integrand, x³ by `pow(x, 3)` as Savina's `Math.pow(x, 3)` and the peers' C++ `pow`.
#[inline]
pub(crate) fn fx(x: f64) -> f64 {
    integrand(x, x.powf(3.0))
}

/// The integrand with x³ as two multiplications (deviation `cube-by-multiplication`, `actor-tuned`
/// only): cheaper than the library's `pow`, and not always the same last bit.
#[inline]
fn fx_cube_by_multiplication(x: f64) -> f64 {
    integrand(x, x * x * x)
}

/// sin(x³ − 1)/(x + 1) · √(1 + e^√(2x)), given x and x³.
#[inline(always)]
fn integrand(x: f64, cube: f64) -> f64 {
    let a = (cube - 1.0).sin();
    let b = x + 1.0;
    let c = a / b;
    let d = (1.0 + (2.0 * x).sqrt().exp()).sqrt();
    c * d
}

/// A worker's sum with SPEC.md's integrand [`fx`]: ⌊(r − l)/h⌋ trapezoids of width h from l, each
/// evaluating f at both ends. Every default program's kernel.
pub(crate) fn area(l: f64, r: f64, h: f64) -> f64 {
    area_of(l, r, h, fx)
}

/// [`area`] with x³ as two multiplications: `actor-tuned`'s kernel.
pub(crate) fn area_cube_by_multiplication(l: f64, r: f64, h: f64) -> f64 {
    area_of(l, r, h, fx_cube_by_multiplication)
}

/// The trapezoids of [`area`] with integrand `f`, summed in order.
#[inline(always)]
fn area_of(l: f64, r: f64, h: f64, f: impl Fn(f64) -> f64) -> f64 {
    let n = ((r - l) / h) as u64;
    let mut sum = 0.0;
    for i in 0..n {
        let lx = i as f64 * h + l;
        let rx = lx + h;
        sum += 0.5 * (f(lx) + f(rx)) * h;
    }
    sum
}

/// Relative tolerance: the Master adds the workers' results in arrival order.
const TOLERANCE: f64 = 1e-12;

/// Validates a run: the Master's area (None if it never finished) must be the expected one. The
/// result is the area.
pub(crate) fn check(cfg: &Config, area: Option<f64>) -> Outcome {
    let Some(area) = area else {
        return Outcome::failed("the master reported no area");
    };
    let tolerance = TOLERANCE * cfg.expected.abs().max(1e-300);
    Outcome::expect_near("area", cfg.expected, area, tolerance)
}

#[cfg(test)]
mod tests {
    use super::{area, area_cube_by_multiplication, check, fx, Config, BENCHMARK, TOLERANCE};
    use crate::bench::Model;
    use crate::benchmarks::testing::{
        self, params, rejects_alike as rejects, run_iterations as run, validates,
    };

    /// The composite trapezoid rule over the whole interval, written independently of the workers:
    /// h·(f(l)/2 + f(l + h) + … + f(r − h) + f(r)/2).
    fn direct(n: u64, l: f64, r: f64) -> f64 {
        let f = |x: f64| {
            let s = (x.powf(3.0) - 1.0).sin() / (x + 1.0);
            s * (1.0 + (2.0 * x).sqrt().exp()).sqrt()
        };
        let h = (r - l) / n as f64;
        let inner: f64 = (1..n).map(|i| f(l + i as f64 * h)).sum();
        h * (0.5 * f(l) + inner + 0.5 * f(r))
    }

    /// At the defaults the check wants SPEC.md's value (the binary's runs compare the workers' sum
    /// with it; 20 M evaluations are too slow for a debug test); at other sizes, the workers'
    /// computation, which agrees with the composite rule.
    #[test]
    fn expected_area_is_savinas_or_the_workers_sum() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("n", 10_000_000.0)])).unwrap();
        assert_eq!(cfg.expected, 0.271_080_751_952_957_55);
        let small = Config::from_params(&params(&BENCHMARK, &[("n", 100_000.0)])).unwrap();
        let d = direct(100_000, 1.0, 5.0);
        assert!((small.expected - d).abs() < 1e-9, "{} {d}", small.expected);
    }

    #[test]
    fn check_compares_the_area() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("n", 1_000.0), ("w", 4.0)])).unwrap();
        testing::assert_float_check(cfg.expected, |area| check(&cfg, area));
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        validates(&BENCHMARK, &[("n", 20_000.0), ("w", 7.0)]);
        validates(
            &BENCHMARK,
            &[("n", 3.0), ("w", 1.0), ("l", 0.0), ("r", 0.5)],
        );
    }

    /// The actor result against the composite rule at two sizes where every worker gets a whole
    /// number of trapezoids (powers of two), so both sum the same pieces.
    #[test]
    fn actor_result_matches_a_direct_computation() {
        for (n, w, l, r) in [(2_048.0, 8.0, 1.0, 5.0), (4_096.0, 16.0, 0.0, 2.0)] {
            let p = params(&BENCHMARK, &[("n", n), ("w", w), ("l", l), ("r", r)]);
            let want = direct(n as u64, l, r);
            for threads in [1, 2] {
                let got = run(&BENCHMARK, Model::Actor, threads, &p, 1)[0]
                    .result
                    .as_f64()
                    .unwrap();
                assert!(
                    (got - want).abs() < 1e-12 * want.abs(),
                    "{p}: {got} vs {want}"
                );
            }
        }
    }

    /// The BoC reduction adds the workers' areas in worker order: exactly the expected sum.
    #[test]
    fn boc_validates_at_a_reduced_size() {
        let sets = [("n", 20_000.0), ("w", 7.0)];
        let cfg = Config::from_params(&params(&BENCHMARK, &sets)).unwrap();
        for outcome in testing::boc_validates(&BENCHMARK, &sets) {
            assert_eq!(outcome.result.as_f64(), Some(cfg.expected));
        }
        testing::boc_validates(
            &BENCHMARK,
            &[("n", 3.0), ("w", 1.0), ("l", 0.0), ("r", 0.5)],
        );
    }

    /// The default kernel is SPEC.md's integrand with `pow` to the bit; the tuned kernel's x·x·x
    /// rounds differently at some points, and the areas still agree to the check's tolerance.
    #[test]
    fn the_default_kernel_cubes_with_pow() {
        let savina = |x: f64| {
            let s = (x.powf(3.0) - 1.0).sin() / (x + 1.0);
            s * (1.0 + (2.0 * x).sqrt().exp()).sqrt()
        };
        let xs = (0..10_000).map(|i| 1.0 + i as f64 * 4e-4);
        assert!(xs.clone().all(|x| fx(x).to_bits() == savina(x).to_bits()));
        assert!(xs.clone().any(|x| x * x * x != x.powf(3.0)));
        let h = 4.0 / 100_000.0;
        let (default, tuned) = (area(1.0, 5.0, h), area_cube_by_multiplication(1.0, 5.0, h));
        assert_ne!(default.to_bits(), tuned.to_bits());
        assert!((default - tuned).abs() <= TOLERANCE * default.abs());
    }

    /// The default and the tuned actor programs both validate at a reduced size, and agree.
    #[test]
    fn default_and_tuned_programs_agree() {
        let sets = [("n", 20_000.0), ("w", 7.0)];
        let cfg = Config::from_params(&params(&BENCHMARK, &sets)).unwrap();
        let cells = [(Model::Actor, 2, 1), (Model::ActorTuned, 2, 1)];
        for outcome in testing::cells(&BENCHMARK, &cells, &sets) {
            let got = outcome.result.as_f64().unwrap();
            assert!((got - cfg.expected).abs() <= TOLERANCE * cfg.expected.abs());
        }
    }

    #[test]
    fn bad_ranges_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("l", -1.0)]).contains("`l`"));
        assert!(rejects(&BENCHMARK, &[("l", 2.0), ("r", 2.0)]).contains("`r`"));
        assert!(rejects(&BENCHMARK, &[("w", 0.0)]).contains("`w`"));
    }
}
