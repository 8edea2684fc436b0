//! `java.util.Random`, which Savina's A* still uses for its graph (SPEC.md section 2).

/// Java's 48-bit linear congruential generator.
#[derive(Clone, Debug)]
pub(crate) struct JavaRandom {
    seed: u64,
}

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const INCREMENT: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

impl JavaRandom {
    /// `new Random(seed)`: the seed scrambled with the multiplier.
    pub(crate) fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            seed: (seed as u64 ^ MULTIPLIER) & MASK,
        }
    }

    /// `next(bits)`: steps the generator and returns its top `bits` bits (as Java's `int`).
    fn next(&mut self, bits: u32) -> i32 {
        self.seed = self.seed.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT) & MASK;
        (self.seed >> (48 - bits)) as i32
    }

    /// `nextInt()`.
    #[cfg(test)]
    pub(crate) fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextBoolean()`.
    pub(crate) fn next_boolean(&mut self) -> bool {
        self.next(1) != 0
    }

    /// `nextDouble()`: 53 random bits in [0, 1).
    pub(crate) fn next_double(&mut self) -> f64 {
        let high = i64::from(self.next(26)) << 27;
        let low = i64::from(self.next(27));
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::JavaRandom;

    /// Values printed by a JVM: `new Random(42).nextInt()` is -1170105035,
    /// `new Random(0).nextInt()` is -1155484576 and `new Random(42).nextDouble()` is
    /// 0.7275636800328681.
    #[test]
    fn matches_the_jvm() {
        assert_eq!(JavaRandom::new(42).next_int(), -1_170_105_035);
        assert_eq!(JavaRandom::new(0).next_int(), -1_155_484_576);
        assert_eq!(JavaRandom::new(42).next_double(), 0.727_563_680_032_868_1);
        // `nextBoolean` is the top bit of the same step as `nextInt`.
        let (mut a, mut b) = (JavaRandom::new(7), JavaRandom::new(7));
        for _ in 0..64 {
            assert_eq!(a.next_boolean(), b.next_int() < 0);
        }
    }
}
