//! The pseudo-random generators Savina's programs draw from (SPEC.md section 2).
//!
//! [`PseudoRandom`] is the suite's LCG since 2017: `state ← (state × 1309 + 13849) & 0xFFFF` in
//! 64-bit arithmetic; `next_long` returns the new state, `next_int(n)` is `next_int() % n`, and
//! `next_double` is `1 / (next_long() + 1)`. Pinning this generator keeps the data, and so the
//! checks, comparable with CAF, LF, Pony and BoC. Every variant of a benchmark draws from it in the
//! same order.
//!
//! [`JavaRandom`] is `java.util.Random`, which two programs still use: A* for its graph and its
//! workers' busy-wait, UCT for its root's decisions. It reproduces the JVM's sequences bit for
//! bit, since the results those programs are validated against come from them.

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

/// `java.util.Random`: a 48-bit LCG (multiplier `0x5DEECE66D`, increment `0xB`, the seed
/// scrambled by XOR with the multiplier). `next_int_below` rejects the top of the range as Java's
/// `nextInt(bound)` does, `next_double` joins 26 and 27 bits, and `next_gaussian` is the polar
/// method, caching its second value as Java does.
#[derive(Clone, Debug)]
pub struct JavaRandom {
    seed: u64,
    next_gaussian: Option<f64>,
}

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const ADDEND: u64 = 0xB;
    const MASK: u64 = (1 << 48) - 1;

    /// `new Random(seed)`: the seed scrambled with the multiplier.
    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            seed: (seed as u64 ^ Self::MULTIPLIER) & Self::MASK,
            next_gaussian: None,
        }
    }

    /// `next(bits)`: steps the generator and returns its top `bits` bits, as a Java `int`.
    fn next(&mut self, bits: u32) -> i32 {
        self.seed = self
            .seed
            .wrapping_mul(Self::MULTIPLIER)
            .wrapping_add(Self::ADDEND)
            & Self::MASK;
        (self.seed >> (48 - bits)) as i32
    }

    /// `nextInt()`.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`, uniform in `[0, bound)`.
    ///
    /// # Panics
    /// If `bound` is not positive.
    pub fn next_int_below(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            let r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextBoolean()`.
    pub fn next_boolean(&mut self) -> bool {
        self.next(1) != 0
    }

    /// `nextDouble()`: 53 random bits in `[0, 1)`.
    pub fn next_double(&mut self) -> f64 {
        let high = i64::from(self.next(26)) << 27;
        let low = i64::from(self.next(27));
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `nextGaussian()`: standard normal by the polar method; every other call returns the cached
    /// second value.
    pub fn next_gaussian(&mut self) -> f64 {
        if let Some(g) = self.next_gaussian.take() {
            return g;
        }
        loop {
            let v1 = 2.0 * self.next_double() - 1.0;
            let v2 = 2.0 * self.next_double() - 1.0;
            let s = v1 * v1 + v2 * v2;
            if s < 1.0 && s != 0.0 {
                let multiplier = (-2.0 * s.ln() / s).sqrt();
                self.next_gaussian = Some(v2 * multiplier);
                return v1 * multiplier;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{JavaRandom, PseudoRandom};

    /// Values printed by a JVM (OpenJDK 17): `new Random(42).nextInt()` is -1170105035,
    /// `new Random(0).nextInt()` is -1155484576, `new Random(42).nextDouble()` is
    /// 0.7275636800328681 and `new Random(42).nextGaussian()` is 1.1419053154730547.
    #[test]
    fn java_random_matches_the_jvm() {
        assert_eq!(JavaRandom::new(42).next_int(), -1_170_105_035);
        assert_eq!(JavaRandom::new(0).next_int(), -1_155_484_576);
        assert_eq!(JavaRandom::new(42).next_double(), 0.727_563_680_032_868_1);
        let g = JavaRandom::new(42).next_gaussian();
        assert!((g - 1.141_905_315_473_054_7).abs() < 1e-15, "{g}");
        let mut r = JavaRandom::new(42);
        let got: Vec<i32> = (0..10).map(|_| r.next_int_below(10)).collect();
        assert_eq!(got, [0, 3, 8, 4, 0, 5, 5, 8, 9, 3]);
        // new Random(5): nextGaussian() twice (the second from the cache), nextInt(100),
        // nextBoolean(), nextInt(7).
        let mut r = JavaRandom::new(5);
        assert!((r.next_gaussian() - 0.235_063_669_969_562_74).abs() < 1e-15);
        assert!((r.next_gaussian() + 0.419_857_481_186_427_35).abs() < 1e-15);
        assert_eq!(r.next_int_below(100), 6);
        assert!(r.next_boolean());
        assert_eq!(r.next_int_below(7), 1);
    }

    /// `nextBoolean` is the top bit of the same step as `nextInt`; `nextInt(2^k)` takes the top
    /// bits of `next(31)`.
    #[test]
    fn java_random_bits() {
        let (mut a, mut b) = (JavaRandom::new(7), JavaRandom::new(7));
        for _ in 0..64 {
            assert_eq!(a.next_boolean(), b.next_int() < 0);
        }
        let (mut a, mut b) = (JavaRandom::new(7), JavaRandom::new(7));
        for _ in 0..100 {
            let x = a.next_int_below(16);
            assert!((0..16).contains(&x));
            assert_eq!(x, ((i64::from(b.next(31)) * 16) >> 31) as i32);
        }
    }

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
