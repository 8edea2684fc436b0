//! Savina's pseudo-random generator (`PseudoRandom`, the suite's LCG since 2017).
//!
//! SPEC.md section 2: `state ← (state × 1309 + 13849) & 0xFFFF` in 64-bit arithmetic; `next_long`
//! returns the new state, `next_int(n)` is `next_int() % n`, and `next_double` is
//! `1 / (next_long() + 1)`. Pinning this generator keeps the data, and so the checks, comparable
//! with CAF, LF, Pony and BoC. Every variant of a benchmark draws from it in the same order.

/// Savina's 16-bit linear congruential generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PseudoRandom {
    value: i64,
}

impl PseudoRandom {
    /// Savina's default seed.
    pub const DEFAULT_SEED: i64 = 74755;

    /// A generator whose first step starts from `seed`.
    pub fn new(seed: i64) -> PseudoRandom {
        PseudoRandom { value: seed }
    }

    /// Steps the generator and returns the new state, a value in `[0, 65535]`.
    pub fn next_long(&mut self) -> i64 {
        self.value = self.value.wrapping_mul(1309).wrapping_add(13849) & 0xFFFF;
        self.value
    }

    /// The next value as a 32-bit integer (Java's `nextInt()`), in `[0, 65535]`.
    pub fn next_int(&mut self) -> i32 {
        self.next_long() as i32
    }

    /// The next value modulo `bound` (Java's `nextInt(bound)`: `nextInt() % bound`).
    ///
    /// # Panics
    /// If `bound` is zero.
    pub fn next_int_below(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        self.next_int() % bound
    }

    /// `1 / (next_long() + 1)`: in `(1/65536, 1]`, heavily skewed towards 0.
    pub fn next_double(&mut self) -> f64 {
        1.0 / (self.next_long() + 1) as f64
    }
}

impl Default for PseudoRandom {
    fn default() -> PseudoRandom {
        PseudoRandom::new(PseudoRandom::DEFAULT_SEED)
    }
}

#[cfg(test)]
mod tests {
    use super::PseudoRandom;

    #[test]
    fn first_outputs_from_the_default_seed() {
        let mut r = PseudoRandom::default();
        let got: Vec<i64> = (0..5).map(|_| r.next_long()).collect();
        assert_eq!(got, [22896, 34761, 34014, 39231, 52540]);
    }

    #[test]
    fn period_is_full_and_low_bit_alternates() {
        let mut r = PseudoRandom::new(0);
        let first = r.next_long();
        let mut previous = first;
        let mut period = 1;
        loop {
            let v = r.next_long();
            if v == first {
                break;
            }
            assert_ne!(v & 1, previous & 1, "low bit repeats after {period} steps");
            previous = v;
            period += 1;
        }
        assert_eq!(period, 65536);
    }

    #[test]
    fn next_double_is_one_when_the_state_is_zero() {
        let seed = (0..65536)
            .find(|&s| PseudoRandom::new(s).next_long() == 0)
            .expect("the LCG is a bijection on 16 bits");
        assert_eq!(PseudoRandom::new(seed).next_double(), 1.0);
    }
}
