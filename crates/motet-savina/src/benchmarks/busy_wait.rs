//! The busy-wait of Sleeping Barber, Cigarette Smokers and A-star search.
//!
//! Savina's `busyWait(k)` calls `Math.random()` k times and throws the values away: work whose cost
//! grows with k. In the JVM that is one shared `java.util.Random`, whose state is an `AtomicLong`
//! advanced by a compare-and-swap loop, so its cost depends on contention as much as on k (SPEC.md
//! section 6). [`math_random`] is that generator: one process-wide state, the same 48-bit LCG, the
//! same compare-and-swap; the default programs busy-wait with it ([`spin_shared`]).
//!
//! The tuned programs (deviation `private-random`) give each actor that busy-waits a generator of
//! its own ([`BusyWait`]): wyrand (the generator of wyhash: a Weyl sequence whose state is mixed by
//! one 64×64→128 bit multiplication per draw), which costs a few nanoseconds per draw and shares
//! nothing. Every draw goes through [`std::hint::black_box`], so the compiler cannot drop the loop.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// `java.util.Random`'s multiplier, increment and mask.
const JAVA_MULTIPLIER: u64 = 0x5_DEEC_E66D;
const JAVA_INCREMENT: u64 = 0xB;
const JAVA_MASK: u64 = (1 << 48) - 1;

/// The state of the process's `Math.random()` generator (Java seeds it from the clock; any seed
/// does for a busy-wait).
static MATH_RANDOM: AtomicU64 = AtomicU64::new(0x2545_F491_4F6C ^ JAVA_MULTIPLIER);

/// `java.util.Random.next(bits)` on a shared state: one compare-and-swap step of the LCG, as
/// Java's `AtomicLong` loop does.
fn next_on(state: &AtomicU64, bits: u32) -> u64 {
    let step = |s: u64| s.wrapping_mul(JAVA_MULTIPLIER).wrapping_add(JAVA_INCREMENT) & JAVA_MASK;
    let mut old = state.load(Ordering::Relaxed);
    loop {
        let new = step(old);
        match state.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return new >> (48 - bits),
            Err(seen) => old = seen,
        }
    }
}

/// `nextDouble()` on a shared state: 26 then 27 bits.
fn double_on(state: &AtomicU64) -> f64 {
    let high = next_on(state, 26);
    let low = next_on(state, 27);
    ((high << 27) + low) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `Math.random()`: a double in `[0, 1)` from the one shared generator.
pub(crate) fn math_random() -> f64 {
    double_on(&MATH_RANDOM)
}

/// Savina's `busyWait(k)`: `k` calls of [`math_random`], each kept opaque to the optimiser.
pub(crate) fn spin_shared(k: u32) {
    for _ in 0..k {
        black_box(math_random());
    }
}

/// wyrand's increment and mixing constant.
const WY_INCREMENT: u64 = 0xa076_1d64_78bd_642f;
const WY_MIX: u64 = 0xe703_7ed1_a0b4_28db;

/// One actor's busy-waits on the shared [`math_random`], counted.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedWait {
    /// Draws made so far.
    draws: u64,
}

impl SharedWait {
    /// No draws made yet.
    pub(crate) fn new() -> SharedWait {
        SharedWait::default()
    }

    /// Savina's `busyWait(k)`: [`spin_shared`]`(k)`.
    pub(crate) fn spin(&mut self, k: u32) {
        spin_shared(k);
        self.draws += u64::from(k);
    }

    /// The draws made so far.
    pub(crate) fn draws(&self) -> u64 {
        self.draws
    }
}

/// One actor's own busy-wait generator (the tuned programs').
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
    use super::{double_on, math_random, next_on, spin_shared, BusyWait, JAVA_MULTIPLIER};
    use crate::random::JavaRandom;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// The shared generator is `java.util.Random`: from the same state it gives the same doubles.
    #[test]
    fn the_shared_generator_is_javas() {
        let state = AtomicU64::new(42 ^ JAVA_MULTIPLIER);
        let mut java = JavaRandom::new(42);
        for _ in 0..100 {
            assert_eq!(double_on(&state).to_bits(), java.next_double().to_bits());
        }
        assert_eq!(next_on(&state, 31), java.next_int() as u32 as u64 >> 1);
        assert!((0.0..1.0).contains(&math_random()));
        spin_shared(10);
        let mut wait = super::SharedWait::new();
        wait.spin(7);
        wait.spin(3);
        assert_eq!(wait.draws(), 10);
    }

    /// Threads drawing from one state at once lose no step: after 4 × 1,000 draws the state is
    /// the one 4,000 steps from the start.
    #[test]
    fn shared_draws_lose_no_step() {
        let state = Arc::new(AtomicU64::new(7 ^ JAVA_MULTIPLIER));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let state = state.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        next_on(&state, 32);
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let mut java = JavaRandom::new(7);
        for _ in 0..4000 {
            java.next_int();
        }
        let want = java.next_int() as u32 as u64;
        assert_eq!(next_on(&state, 32), want);
        assert_eq!(state.load(Ordering::Relaxed) >> 16, want);
    }

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
