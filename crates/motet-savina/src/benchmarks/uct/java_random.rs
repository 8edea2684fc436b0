//! `java.util.Random`, which UCT's root uses for its decisions (SPEC.md section 2).
//!
//! A 48-bit LCG (multiplier `0x5DEECE66D`, increment `0xB`, seed scrambled by XOR with the
//! multiplier); `next_int(bound)` rejects the top of the range as Java does, `next_double` joins
//! 26 and 27 bits, and `next_gaussian` is the polar method, caching its second value.

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// Java's `java.util.Random`.
#[derive(Clone, Debug)]
pub(crate) struct JavaRandom {
    seed: u64,
    next_gaussian: Option<f64>,
}

impl JavaRandom {
    /// `new Random(seed)`.
    pub(crate) fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            seed: (seed as u64 ^ MULTIPLIER) & MASK,
            next_gaussian: None,
        }
    }

    /// `next(bits)`: the top `bits` bits of the stepped state, as a Java `int`.
    fn next(&mut self, bits: u32) -> i32 {
        self.seed = self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND) & MASK;
        (self.seed >> (48 - bits)) as i64 as i32
    }

    /// `nextBoolean()`.
    pub(crate) fn next_boolean(&mut self) -> bool {
        self.next(1) != 0
    }

    /// `nextInt(bound)`, uniform in `[0, bound)`.
    ///
    /// # Panics
    /// If `bound` is not positive.
    pub(crate) fn next_int(&mut self, bound: i32) -> i32 {
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

    /// `nextDouble()`, in `[0, 1)`.
    pub(crate) fn next_double(&mut self) -> f64 {
        let hi = i64::from(self.next(26)) << 27;
        let lo = i64::from(self.next(27));
        (hi + lo) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `nextGaussian()`: standard normal by the polar method; every other call returns the cached
    /// second value.
    pub(crate) fn next_gaussian(&mut self) -> f64 {
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
    use super::JavaRandom;

    /// Values printed by OpenJDK 17's `java.util.Random`.
    #[test]
    fn matches_java() {
        let mut r = JavaRandom::new(42);
        let got: Vec<i32> = (0..10).map(|_| r.next_int(10)).collect();
        assert_eq!(got, [0, 3, 8, 4, 0, 5, 5, 8, 9, 3]);
        // new Random(42).nextDouble() is 0.7275636800328681.
        assert_eq!(JavaRandom::new(42).next_double(), 0.7275636800328681);
        // new Random(42).nextGaussian() is 1.1419053154730547.
        let g = JavaRandom::new(42).next_gaussian();
        assert!((g - 1.1419053154730547).abs() < 1e-15, "{g}");
        // new Random(5): nextGaussian() twice (the second from the cache), nextInt(100),
        // nextBoolean(), nextInt(7).
        let mut r = JavaRandom::new(5);
        assert!((r.next_gaussian() - 0.23506366996956274).abs() < 1e-15);
        assert!((r.next_gaussian() + 0.41985748118642735).abs() < 1e-15);
        assert_eq!(r.next_int(100), 6);
        assert!(r.next_boolean());
        assert_eq!(r.next_int(7), 1);
    }

    #[test]
    fn power_of_two_bounds_take_the_high_bits() {
        let mut a = JavaRandom::new(7);
        let mut b = JavaRandom::new(7);
        for _ in 0..100 {
            let x = a.next_int(16);
            assert!((0..16).contains(&x));
            assert_eq!(x, ((b.next(31) as i64 * 16) >> 31) as i32);
        }
    }
}
