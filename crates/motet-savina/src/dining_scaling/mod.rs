//! The Dining Philosophers scaling experiment of the BoC paper (section 5.4, Fig. 5b): how close
//! behaviours come to the ideal time as workers are added, next to OS threads with mutexes.
//!
//! N philosophers (100 by default, so at most 50 eat at once) sit at a round table with a fork
//! between each two neighbours; each eats M times, and eating is a busy-wait of E (1 ms) while
//! holding both forks (E of the thread's CPU time, so that preemption does not count as eating;
//! [`Clock::Wall`] spins on wall-clock time instead).
//! Three figures per worker count W:
//!
//! - **BoC** ([`boc`]): the forks are cowns and a meal is one behaviour over both of a
//!   philosopher's forks, on a motet runtime with W workers. The meals are spawned up front round
//!   by round, first the odd philosophers' and then the even ones', as the paper schedules them:
//!   happens-before then keeps that order, so the odd meals of a round run side by side, then the
//!   even ones.
//! - **Mutex threads** ([`threads`]): one OS thread per philosopher, all confined to W CPUs, each
//!   fork a `std::sync::Mutex`; a philosopher locks one fork and try-locks the other, and when that
//!   fails lets both go, yields and starts from the other fork (the back-off of C++'s `std::lock`
//!   that the paper compares against).
//! - **Ideal**: the total eating time N·M·E over min(W, N / 2) workers.
//!
//! Both runs are validated: every fork served exactly 2·M meals and no fork was held by two meals
//! at once.
//!
//! Run it with `cargo run --release -p motet-savina --example dining_scaling -- --workers 1,2`
//! (`--size small` for a tenth of the meals; see the example's `--help`).

pub mod boc;
mod eat;
pub mod threads;

use std::time::Duration;

pub use eat::Fork;

/// The experiment's workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Philosophers (and forks) around the table; at least 2.
    pub philosophers: usize,
    /// Meals each philosopher eats.
    pub meals: u64,
    /// How long a meal busy-waits while holding both forks.
    pub eat: Duration,
    /// Which clock the busy-wait reads.
    pub clock: Clock,
}

/// The clock a meal's busy-wait reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// The eating thread's CPU time: a preempted meal does not eat, so the times are the real cost
    /// of the meals on W CPUs (and grow with the machine's load).
    Cpu,
    /// Wall-clock time: a meal eats while preempted too, so BoC's time shows how many meals the
    /// runtime keeps in flight, whatever the load (for the mutex version, whose hundred threads
    /// share W CPUs, preempted meals overlap and the time can fall below the ideal).
    Wall,
}

impl Config {
    /// The paper's table (100 philosophers, 1 ms meals) with 100 meals each: 10 s of eating.
    pub const DEFAULT: Config = Config {
        philosophers: 100,
        meals: 100,
        eat: Duration::from_millis(1),
        clock: Clock::Cpu,
    };

    /// A tenth of [`Config::DEFAULT`]'s meals: 1 s of eating.
    pub const SMALL: Config = Config {
        meals: 10,
        ..Config::DEFAULT
    };

    /// Checks that the table can be laid: at least two philosophers, so that every one has two
    /// distinct forks.
    pub fn validate(&self) -> Result<(), String> {
        if self.philosophers < 2 {
            return Err(format!(
                "at least 2 philosophers are needed, got {}",
                self.philosophers
            ));
        }
        Ok(())
    }

    /// Philosopher `i`'s forks: fork `i` on the left, fork `i + 1` (mod N) on the right.
    pub fn forks_of(&self, i: usize) -> (usize, usize) {
        (i, (i + 1) % self.philosophers)
    }

    /// The total eating time, N·M·E.
    pub fn total_eating(&self) -> Duration {
        let meals = self.philosophers as u128 * u128::from(self.meals);
        Duration::from_nanos((self.eat.as_nanos() * meals).min(u64::MAX as u128) as u64)
    }

    /// The ideal time on `workers` workers: the total eating time over the most meals that can
    /// run at once, min(W, ⌊N / 2⌋).
    pub fn ideal(&self, workers: usize) -> Duration {
        let parallel = workers.clamp(1, (self.philosophers / 2).max(1));
        self.total_eating() / parallel as u32
    }
}

/// Checks the forks after a run: every one served 2·M meals and saw no overlap.
pub fn check(cfg: &Config, forks: &[Fork]) -> Result<(), String> {
    if forks.len() != cfg.philosophers {
        return Err(format!(
            "{} forks reported, expected {}",
            forks.len(),
            cfg.philosophers
        ));
    }
    for (i, fork) in forks.iter().enumerate() {
        if fork.overlaps != 0 {
            return Err(format!(
                "fork {i} was taken {} times while another meal held it",
                fork.overlaps
            ));
        }
        if fork.meals != 2 * cfg.meals {
            return Err(format!(
                "fork {i} served {} meals, expected {}",
                fork.meals,
                2 * cfg.meals
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{boc, check, threads, Clock, Config, Fork};
    use std::time::Duration;

    fn tiny() -> Config {
        Config {
            philosophers: 7,
            meals: 20,
            eat: Duration::from_micros(20),
            clock: Clock::Cpu,
        }
    }

    #[test]
    fn ideal_divides_by_at_most_half_the_table() {
        let cfg = Config::DEFAULT;
        assert_eq!(cfg.total_eating(), Duration::from_secs(10));
        assert_eq!(cfg.ideal(1), Duration::from_secs(10));
        assert_eq!(cfg.ideal(2), Duration::from_secs(5));
        assert_eq!(cfg.ideal(64), Duration::from_millis(200));
        assert_eq!(Config::SMALL.total_eating(), Duration::from_secs(1));
    }

    #[test]
    fn the_check_catches_missing_meals_and_overlaps() {
        let cfg = Config {
            philosophers: 2,
            meals: 3,
            eat: Duration::ZERO,
            clock: Clock::Cpu,
        };
        let good = Fork {
            meals: 6,
            ..Fork::default()
        };
        assert_eq!(check(&cfg, &[good.clone(), good.clone()]), Ok(()));
        let short = Fork {
            meals: 5,
            ..Fork::default()
        };
        assert!(check(&cfg, &[good.clone(), short]).is_err());
        let shared = Fork {
            overlaps: 1,
            ..good.clone()
        };
        assert!(check(&cfg, &[good.clone(), shared]).is_err());
        assert!(check(&cfg, &[good]).is_err());
    }

    #[test]
    fn a_table_of_one_is_rejected() {
        let cfg = Config {
            philosophers: 1,
            ..tiny()
        };
        assert!(cfg.validate().is_err());
        assert!(boc::run(&cfg, 1).is_err());
        assert!(threads::run(&cfg, 1).is_err());
    }

    #[test]
    fn boc_meals_validate_on_one_and_two_workers() {
        for workers in [1, 2, 3] {
            boc::run(&tiny(), workers).unwrap();
        }
        let wall = Config {
            clock: Clock::Wall,
            ..tiny()
        };
        boc::run(&wall, 2).unwrap();
        let pair = Config {
            philosophers: 2,
            ..tiny()
        };
        boc::run(&pair, 2).unwrap();
    }

    #[test]
    fn mutex_threads_validate_on_one_and_two_workers() {
        for workers in [1, 2, 3] {
            threads::run(&tiny(), workers).unwrap();
        }
        let wall = Config {
            clock: Clock::Wall,
            ..tiny()
        };
        threads::run(&wall, 2).unwrap();
        let pair = Config {
            philosophers: 2,
            ..tiny()
        };
        threads::run(&pair, 2).unwrap();
    }
}
