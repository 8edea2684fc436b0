//! The busy-wait of Sleeping Barber and Cigarette Smokers.
//!
//! Savina's `busyWait(k)` calls `Math.random()` k times and throws the values away: work whose cost
//! grows with k. In the JVM that is one shared, synchronised `java.util.Random`, so its cost depends
//! on contention as much as on k (SPEC.md section 6). Here each actor that busy-waits owns a
//! generator: wyrand (the generator of wyhash: a Weyl sequence whose state is mixed by one 64×64→128
//! bit multiplication per draw), which costs a few nanoseconds per draw and shares nothing. Every
//! draw goes through [`std::hint::black_box`], so the compiler cannot drop the loop.

use std::hint::black_box;

/// wyrand's increment and mixing constant.
const WY_INCREMENT: u64 = 0xa076_1d64_78bd_642f;
const WY_MIX: u64 = 0xe703_7ed1_a0b4_28db;

/// One actor's busy-wait generator.
#[derive(Clone, Debug)]
pub(crate) struct BusyWait {
    state: u64,
    /// Draws made so far.
    draws: u64,
}

impl BusyWait {
    /// A generator starting from `seed`.
    pub(crate) fn new(seed: u64) -> BusyWait {
        BusyWait {
            state: seed,
            draws: 0,
        }
    }

    /// One draw, in `[0, 1)` like `Math.random()`.
    #[inline]
    fn draw(&mut self) -> f64 {
        self.state = self.state.wrapping_add(WY_INCREMENT);
        let product = u128::from(self.state) * u128::from(self.state ^ WY_MIX);
        let mixed = (product >> 64) as u64 ^ product as u64;
        (mixed >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Savina's `busyWait(k)`: `k` draws, each kept opaque to the optimiser.
    pub(crate) fn spin(&mut self, k: u32) {
        for _ in 0..k {
            black_box(self.draw());
        }
        self.draws += u64::from(k);
    }

    /// The draws made so far.
    pub(crate) fn draws(&self) -> u64 {
        self.draws
    }
}

#[cfg(test)]
mod tests {
    use super::BusyWait;

    #[test]
    fn draws_are_counted_and_spread_over_the_unit_interval() {
        let mut b = BusyWait::new(1);
        b.spin(10);
        b.spin(0);
        assert_eq!(b.draws(), 10);
        let values: Vec<f64> = (0..10_000).map(|_| b.draw()).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }
}
