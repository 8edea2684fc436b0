//! 22. Precise Pi (parallelism): `w` workers compute BBP terms of π to `p` decimal places.
//!
//! Flow (SPEC.md section 3.22): on `Start` the Master sends `min(p, 10·w)` `Work(k)` messages
//! round-robin to its W workers (created when it starts), for k = 0, 1, 2, …. A worker computes BBP
//! term k at scale `p` and replies `Result(term, id)`. The Master adds the term; once a term is at
//! most `10^−p` it stops issuing work, otherwise it sends the next k to the same worker. When every
//! requested term has come back it sends `Stop` to the workers, which echo it and exit; the Master
//! exits after W echoes.
//!
//! Arithmetic: every value is a fixed-point number at scale `p`, held as its unscaled integer
//! (a [`BigUint`]; all values are positive). Every default program computes term k as Savina's
//! `calculateBbpTerm` does with Java's BigDecimal ([`Kernel::Savina`]): each of
//! `4/(8k+1)`, `2/(8k+4)`, `1/(8k+5)`, `1/(8k+6)` is `BigDecimal.divide(divisor, p, HALF_EVEN)`,
//! which scales the numerator by `10^p` (computed for each division, as Java's `bigTenToThe` does
//! beyond its table) and divides by the one-word divisor with HALF_EVEN rounding; the difference
//! is then divided by `16^k` (a big integer, `sixteen.pow(k)`) at the same scale, a division of
//! big integers rounded HALF_EVEN. `actor-tuned` and `floor-tuned` (`shift-division`) compute the
//! same values faster: the scaled numerators made once, and the division by `16^k = 2^{4k}` a
//! rounded right shift by `4k` bits, which gives exactly BigDecimal's quotient.
//!
//! Validation: the sum is within `K/2 + 4` units of the last place of π, K being the number of terms
//! added: each term is off by at most half a unit plus `2/16^k` (the four roundings before the
//! division), the terms not added are below a tenth of a unit together, and the reference is off
//! by at most one. The reference is computed independently with Machin's formula
//! `π = 16·atan(1/5) − 4·atan(1/239)` at ten guard digits, in `prepare` (untimed). The result is the
//! number of correct decimal places, `p` less the digits of the error in units of the last place.

mod actor;
mod floor;
mod floor_loop;
mod reactor;
mod terms;

use std::sync::Arc;

use num_bigint::BigUint;
use num_integer::Integer;

use crate::bench::{Benchmark, Outcome};
use crate::params::{ParamSpec, Params};

/// Precise Pi (Savina 22).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "piprecision",
    id: 22,
    title: "Precise Pi: W workers compute BBP terms of pi to P decimal places",
    params: PARAMS,
    variants,
};

/// `-w` workers and `-p` decimal places; "small" is LF's small size (4,250 places).
const PARAMS: &[ParamSpec] = &[
    super::WORKERS,
    ParamSpec {
        name: "p",
        default: 5000.0,
        small: 4250.0,
        help: "decimal places (the scale of every term)",
    },
];

variants!(
    actor,
    actor_tuned["shift-division"],
    reactor(own_protocol),
    floor,
    floor_tuned["shift-division"],
    floor_loop,
);

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Worker actors (`-w`), at least 1.
    pub(crate) w: usize,
    /// Decimal places (`-p`), at least 1.
    pub(crate) p: u32,
}

impl Config {
    /// Reads and checks the parameters.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        let w = params.integer("w", 1)?;
        let p = params.integer("p", 1)?;
        if w > 1 << 20 {
            return Err("parameter `w` must be at most 2^20".into());
        }
        if p > 10_000_000 {
            return Err("parameter `p` must be at most 10,000,000".into());
        }
        Ok(Config {
            w: w as usize,
            p: p as u32,
        })
    }

    /// How many terms the Master requests before any result is back: `min(p, 10·w)`.
    pub(crate) fn window(&self) -> u64 {
        u64::from(self.p).min(10 * self.w as u64)
    }
}

/// How workers compute BBP terms at scale `p`, shared read-only by every worker.
#[derive(Debug)]
pub(crate) enum Kernel {
    /// Savina's BigDecimal arithmetic (see the module docs).
    Savina {
        /// The scale.
        p: u32,
    },
    /// The tuned form (`shift-division`): the numerators `4·10^p`, `2·10^p` and `10^p`, built
    /// once (untimed), and the division by `16^k` a rounded shift.
    Shift {
        four: BigUint,
        two: BigUint,
        one: BigUint,
    },
}

impl Kernel {
    /// Savina's arithmetic at scale `p`.
    pub(crate) fn savina(p: u32) -> Arc<Kernel> {
        Arc::new(Kernel::Savina { p })
    }

    /// The tuned form at scale `p` (`shift-division`).
    pub(crate) fn shift(p: u32) -> Arc<Kernel> {
        let one = BigUint::from(10u32).pow(p);
        Arc::new(Kernel::Shift {
            four: &one * 4u32,
            two: &one * 2u32,
            one,
        })
    }
}

/// BBP term `k` (Savina's `calculateBbpTerm`), as its unscaled integer.
pub(crate) fn bbp_term(kernel: &Kernel, k: u32) -> BigUint {
    let e = 8 * u64::from(k);
    match kernel {
        &Kernel::Savina { p } => {
            let term = big_decimal_divide(4, e + 1, p)
                - big_decimal_divide(2, e + 4, p)
                - big_decimal_divide(1, e + 5, p)
                - big_decimal_divide(1, e + 6, p);
            // `term.divide(sixteen.pow(k), scale, HALF_EVEN)`: both at the same scale, so the
            // unscaled term is divided by 16^k.
            div_big_half_even(&term, &BigUint::from(16u32).pow(k))
        }
        Kernel::Shift { four, two, one } => {
            let t = div_half_even(four, e + 1)
                - div_half_even(two, e + 4)
                - div_half_even(one, e + 5)
                - div_half_even(one, e + 6);
            shr_half_even(t, 4 * u64::from(k))
        }
    }
}

/// Java's `new BigDecimal(x).divide(new BigDecimal(d), scale, HALF_EVEN)`, unscaled: `x` raised
/// to the scale (times `10^scale`, the power computed here) and divided by `d`, rounded.
fn big_decimal_divide(x: u32, d: u64, scale: u32) -> BigUint {
    div_half_even(&(BigUint::from(10u32).pow(scale) * x), d)
}

/// `a / d` rounded to the nearest integer, ties to even, for a divisor of any size.
fn div_big_half_even(a: &BigUint, d: &BigUint) -> BigUint {
    let (q, r) = a.div_rem(d);
    match (r << 1u32).cmp(d) {
        std::cmp::Ordering::Greater => q + 1u32,
        std::cmp::Ordering::Equal if q.bit(0) => q + 1u32,
        _ => q,
    }
}

/// Whether a term is at most the tolerance `10^−p` (one unit of the last place).
#[inline]
pub(crate) fn below_tolerance(term: &BigUint) -> bool {
    term.bits() <= 1
}

/// `a / d` rounded to the nearest integer, ties to even.
fn div_half_even(a: &BigUint, d: u64) -> BigUint {
    // One pass over `a` for both (a single-digit divisor takes num-bigint's short division).
    let (q, r) = a.div_rem(&BigUint::from(d));
    // r < d, so it is one digit (or none).
    let r = r.iter_u64_digits().next().unwrap_or(0);
    let twice = u128::from(r) * 2;
    if twice > u128::from(d) || (twice == u128::from(d) && q.bit(0)) {
        q + 1u32
    } else {
        q
    }
}

/// `t / 2^s` rounded to the nearest integer, ties to even.
fn shr_half_even(t: BigUint, s: u64) -> BigUint {
    if s == 0 {
        return t;
    }
    let q = &t >> s;
    let half = t.bit(s - 1);
    let below_half = t.trailing_zeros().is_some_and(|z| z < s - 1);
    if half && (below_half || q.bit(0)) {
        q + 1u32
    } else {
        q
    }
}

/// π at scale `p` (unscaled), by Machin's formula at ten guard digits, rounded: off by at most one
/// unit of the last place.
pub(crate) fn reference_pi(p: u32) -> BigUint {
    const GUARD: u32 = 10;
    let one = BigUint::from(10u32).pow(p + GUARD);
    let pi = atan_inverse(5, &one) * 16u32 - atan_inverse(239, &one) * 4u32;
    div_half_even(&pi, 10u64.pow(GUARD))
}

/// `atan(1/x)` at the scale of `one`, each step truncated (a unit per term, far below the guard).
fn atan_inverse(x: u64, one: &BigUint) -> BigUint {
    let x2 = x * x;
    let mut power = one / x;
    let mut sum = power.clone();
    let mut k = 1u64;
    loop {
        power /= x2;
        if power.bits() == 0 {
            return sum;
        }
        let term = &power / (2 * k + 1);
        if k % 2 == 1 {
            sum -= term;
        } else {
            sum += term;
        }
        k += 1;
    }
}

/// What the Master ends with: the sum of the terms and how many there were.
#[derive(Debug)]
pub(crate) struct Sum {
    /// The sum, unscaled at scale `p`.
    pub(crate) value: BigUint,
    /// Terms added.
    pub(crate) terms: u64,
}

/// What a run is checked against (computed in `prepare`, untimed).
#[derive(Debug)]
pub(crate) struct Expected {
    p: u32,
    pi: BigUint,
}

impl Expected {
    /// π at scale `p`.
    pub(crate) fn new(p: u32) -> Expected {
        Expected {
            p,
            pi: reference_pi(p),
        }
    }
}

/// Validates a run: the sum must be within `terms/2 + 4` units of the last place of π. The result
/// is the number of correct decimal places.
pub(crate) fn check(expected: &Expected, sum: Option<Sum>) -> Outcome {
    let Some(sum) = sum else {
        return Outcome::failed("the master did not finish");
    };
    let error = if sum.value >= expected.pi {
        &sum.value - &expected.pi
    } else {
        &expected.pi - &sum.value
    };
    let bound = sum.terms / 2 + 4;
    let error_digits = if error.bits() == 0 {
        0
    } else {
        error.to_string().len() as u32
    };
    let digits = expected.p.saturating_sub(error_digits);
    let check = if error <= BigUint::from(bound) {
        Ok(())
    } else {
        Err(format!(
            "the sum of {} terms is {} units of the last place from π (at most {bound} allowed)",
            sum.terms,
            if error_digits > 30 {
                format!("about 10^{}", error_digits - 1)
            } else {
                error.to_string()
            }
        ))
    };
    Outcome {
        result: digits.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use num_bigint::BigUint;

    use super::{
        bbp_term, below_tolerance, check, div_big_half_even, div_half_even, reference_pi,
        shr_half_even, Config, Expected, Kernel, Sum, BENCHMARK,
    };
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, rejects, run_actor_and_floor};
    use crate::motet_support::runtime;

    #[test]
    fn rounding_is_half_even() {
        let b = |v: u64| BigUint::from(v);
        assert_eq!(div_half_even(&b(7), 2), b(4)); // 3.5 -> 4
        assert_eq!(div_half_even(&b(5), 2), b(2)); // 2.5 -> 2
        assert_eq!(div_half_even(&b(11), 4), b(3)); // 2.75 -> 3
        assert_eq!(div_half_even(&b(9), 4), b(2)); // 2.25 -> 2
        assert_eq!(shr_half_even(b(6), 2), b(2)); // 1.5 -> 2
        assert_eq!(shr_half_even(b(10), 2), b(2)); // 2.5 -> 2
        assert_eq!(shr_half_even(b(11), 2), b(3)); // 2.75 -> 3
        assert_eq!(shr_half_even(b(9), 2), b(2)); // 2.25 -> 2
        assert_eq!(shr_half_even(b(1), 64), b(0));
    }

    /// Term 0 at scale 10 is 4 − 1/2 − 1/5 − 1/6 = 3.1333333333.
    #[test]
    fn first_terms_at_scale_ten() {
        let num = Kernel::savina(10);
        assert_eq!(bbp_term(&num, 0), BigUint::from(31_333_333_333u64));
        // (4/9 − 2/12 − 1/13 − 1/14) / 16 = 0.0081530...
        let expect = (4.0 / 9.0 - 2.0 / 12.0 - 1.0 / 13.0 - 1.0 / 14.0) / 16.0;
        let got = bbp_term(&num, 1).to_string().parse::<f64>().unwrap() / 1e10;
        assert!((got - expect).abs() < 1e-10);
        assert!(below_tolerance(&bbp_term(&num, 20)));
    }

    /// The tuned shift gives exactly BigDecimal's quotient: every term the same in both kernels.
    #[test]
    fn both_kernels_give_the_same_terms() {
        for p in [1u32, 10, 97, 300] {
            let (savina, shift) = (Kernel::savina(p), Kernel::shift(p));
            for k in (0..40).chain([63, 64, 65, 200]) {
                assert_eq!(bbp_term(&savina, k), bbp_term(&shift, k), "p={p} k={k}");
            }
        }
    }

    #[test]
    fn big_division_rounds_half_even() {
        let b = |v: u64| BigUint::from(v);
        assert_eq!(div_big_half_even(&b(7), &b(2)), b(4)); // 3.5 -> 4
        assert_eq!(div_big_half_even(&b(5), &b(2)), b(2)); // 2.5 -> 2
        assert_eq!(div_big_half_even(&b(11), &b(4)), b(3)); // 2.75 -> 3
        assert_eq!(div_big_half_even(&b(9), &b(4)), b(2)); // 2.25 -> 2
        let d = BigUint::from(16u32).pow(40);
        assert_eq!(div_big_half_even(&(&d * 3u32 + (&d >> 1u32)), &d), b(4)); // 3.5 -> 4
        assert_eq!(
            div_big_half_even(&(&d * 3u32 + (&d >> 1u32) - 1u32), &d),
            b(3)
        );
    }

    /// The tuned programs validate too.
    #[test]
    fn tuned_programs_validate() {
        let cells = testing::on_one_and_two(&[Model::ActorTuned, Model::FloorTuned], 1);
        for outcome in testing::cells(&BENCHMARK, &cells, &[("p", 120.0), ("w", 3.0)]) {
            let digits = outcome.result.as_u64().unwrap();
            assert!((117..=120).contains(&digits), "{digits}");
        }
    }

    /// π to 50 places, written out and rounded (the 51st place is 5, then 8).
    #[test]
    fn reference_matches_known_digits() {
        let digits = "314159265358979323846264338327950288419716939937511";
        assert_eq!(reference_pi(50).to_string(), digits);
    }

    #[test]
    fn check_bounds_the_error() {
        let e = Expected::new(30);
        let pi = reference_pi(30);
        let ok = check(
            &e,
            Some(Sum {
                value: &pi + 5u32,
                terms: 10,
            }),
        );
        assert!(ok.check.is_ok());
        assert_eq!(ok.result, serde_json::json!(29));
        assert!(check(
            &e,
            Some(Sum {
                value: &pi + 10u32,
                terms: 10
            })
        )
        .check
        .is_err());
        assert!(check(&e, None).check.is_err());
    }

    /// π by Rabinowitz and Wagon's spigot, written here independently of the benchmark: the
    /// first `n` decimal digits (3 first).
    fn spigot(n: usize) -> String {
        let len = 10 * n / 3 + 2;
        let mut a = vec![2u64; len];
        let (mut out, mut held, mut nines) = (String::new(), None::<u64>, 0);
        for _ in 0..=n {
            let mut carry = 0;
            for i in (0..len).rev() {
                let x = 10 * a[i] + carry * (i as u64 + 1);
                let d = 2 * i as u64 + 1;
                a[i] = x % d;
                carry = x / d;
            }
            a[0] = carry % 10;
            let q = carry / 10;
            match q {
                9 => nines += 1,
                10 => {
                    out.push_str(&(held.unwrap_or(0) + 1).to_string());
                    out.push_str(&"0".repeat(nines));
                    held = Some(0);
                    nines = 0;
                }
                _ => {
                    if let Some(h) = held {
                        out.push_str(&h.to_string());
                    }
                    held = Some(q);
                    out.push_str(&"9".repeat(nines));
                    nines = 0;
                }
            }
        }
        out.truncate(n);
        out
    }

    /// The actor results at two non-default sizes, on one and two workers, and the floor's: the
    /// sum's digits are the spigot's but for the last three places, and the run validates.
    #[test]
    fn actor_and_floor_agree_with_a_spigot_at_two_sizes() {
        assert!(spigot(40).starts_with("3141592653589793238462643383279502884197"));
        for (p, w) in [(120u32, 3usize), (333, 7)] {
            let reference = spigot(p as usize + 1);
            let cfg = Config { w, p };
            let kernel = Kernel::savina(p);
            let mut sums = vec![super::floor_loop::compute(cfg, &kernel)];
            for threads in [1, 2] {
                let rt = runtime(threads).unwrap();
                sums.push(super::actor::compute(cfg, &kernel, &rt).expect("a sum"));
            }
            let correct = p as usize - 2; // "3" and p − 3 places
            for sum in sums {
                assert_eq!(
                    sum.value.to_string()[..correct],
                    reference[..correct],
                    "p={p}"
                );
            }
            let sets = [("p", f64::from(p)), ("w", w as f64)];
            for result in run_actor_and_floor(&BENCHMARK, &sets) {
                let digits = result.as_u64().unwrap() as u32;
                assert!(digits + 3 >= p && digits <= p, "{digits} of {p}");
            }
        }
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("p", 0.0)]).contains("`p`"));
        assert!(rejects(&BENCHMARK, &[("w", 0.0)]).contains("`w`"));
    }
}
