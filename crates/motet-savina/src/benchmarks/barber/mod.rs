//! 12. Sleeping Barber (concurrency): `n` customers, created while it runs, wait for one barber.
//!
//! Flow (SPEC.md section 3.12): on `Start` the CustomerFactory, in that one handler, N times creates
//! a Customer (dynamic actor creation), sends `Enter(customer)` to the WaitingRoom and busy-waits
//! `next_int(APR) + 10` calls of the shared `Math.random()` (the lengths from its own
//! [`PseudoRandom`], default seed). The room answers `Full` when W customers wait; otherwise it
//! queues the customer and either wakes the barber (a `Next` to itself) or tells the customer to
//! `Wait`. On `Next` the room sends the first customer to the Barber, or `Wait` to the barber, who
//! falls asleep. The Barber sends `Start` to the customer, busy-waits `next_int(AHR) + 10` calls
//! (lengths from its own generator, default seed), sends `Done` to the customer and `Next` to the
//! room. A customer turned away sends `Returned(self)` to the factory, which counts an attempt and
//! sends it back in; a served customer tells the factory `Done` and stops. After N `Done`s the
//! factory sends `Exit` to the room, which forwards it to the barber.
//!
//! The tuned programs (`actor-tuned`, `floor-tuned`) make one customer per message the factory
//! sends itself, yielding after each (batch 1), and busy-wait on generators of their own.
//!
//! Validation: N haircuts at the factory, N customers created, N + returns ≥ N attempts, and each
//! busy-waiting actor made the draws its generator asks for (2,543,428 each at the defaults). The
//! result is the haircuts and the attempts (which depend on the schedule).
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod boc;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::benchmarks::busy_wait::{BusyWait, SharedWait};
use crate::random::PseudoRandom;

/// Sleeping Barber (Savina 12).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "barber",
    id: 12,
    title: "Sleeping Barber: N customers, created while it runs, wait for one barber",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` haircuts, `-w` waiting room, `-pr` and `-hr` rates; "small" is a tenth of the haircuts.
    const PARAMS: &[ParamSpec] = [haircuts, seats, production, haircut];

    /// The decoded parameters, shared by every variant; the rates are checked before the seats.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 5_000.0, small = 500.0, min = 0, help = "haircuts (customers)")]
        haircuts: u64,
        #[param("pr", default = 1_000.0, small = 1_000.0, min = 1,
            help = "average production rate (busy-wait between customers)")]
        production: i32,
        #[param("hr", default = 1_000.0, small = 1_000.0, min = 1,
            help = "average haircut rate (busy-wait per haircut)")]
        haircut: i32,
        /// At least 1: with none, every customer is turned away for ever.
        #[param("w", default = 1_000.0, small = 1_000.0, min = 1, help = "waiting room seats")]
        seats: usize,
    }
    derived {
        /// The busy-wait draws the factory must make.
        factory_draws: u64 = 0,
        /// The busy-wait draws the barber must make.
        barber_draws: u64 = 0,
    }
    finish = Config::finish;
}

variants!(
    actor,
    actor_tuned ["batch", "customer-per-message", "private-random"],
    boc (own_protocol),
    reactor (own_protocol),
    floor,
    floor_tuned ["batch", "customer-per-message", "private-random"],
);

/// The tuned programs' busy-wait generators' seed (any fixed value: the draws are thrown away).
pub(crate) const BUSY_SEED: u64 = 74_755;

/// Which program the actors and the floor run: Savina's, or the tuned one (`actor-tuned`,
/// `floor-tuned`; deviations `batch`, `customer-per-message`, `private-random`). One program
/// carries both, so that they differ only where the deviations say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Variant {
    /// Savina's: the factory makes every customer in its `Start` handler, and the factory and
    /// the barber busy-wait on the one shared `Math.random()`.
    Savina,
    /// The factory makes one customer per message to itself and handles one message per turn,
    /// and each busy-waiting actor draws from a generator of its own.
    Tuned,
}

impl Variant {
    /// The factory's mailbox batch: the runtime's default, or one message per turn (`batch`).
    pub(crate) fn factory_batch(self, default: u32) -> u32 {
        match self {
            Variant::Savina => default,
            Variant::Tuned => 1,
        }
    }

    /// A busy-waiting actor's generator.
    pub(crate) fn busy_wait(self) -> Wait {
        match self {
            Variant::Savina => Wait::Shared(SharedWait::new()),
            Variant::Tuned => Wait::Own(BusyWait::new(BUSY_SEED)),
        }
    }
}

/// An actor's busy-wait: on the shared `Math.random()`, or on a generator of its own
/// (`private-random`).
pub(crate) enum Wait {
    Shared(SharedWait),
    Own(BusyWait),
}

impl Wait {
    /// Savina's `busyWait(k)`.
    pub(crate) fn spin(&mut self, k: u32) {
        match self {
            Wait::Shared(w) => w.spin(k),
            Wait::Own(w) => w.spin(k),
        }
    }

    /// The draws made so far.
    pub(crate) fn draws(&self) -> u64 {
        match self {
            Wait::Shared(w) => w.draws(),
            Wait::Own(w) => w.draws(),
        }
    }
}

impl Config {
    /// Derives the busy-wait totals.
    fn finish(&mut self) -> Result<(), String> {
        self.factory_draws = total_draws(self.production, self.haircuts);
        self.barber_draws = total_draws(self.haircut, self.haircuts);
        Ok(())
    }
}

/// The draws of `haircuts` busy-waits at `rate`.
fn total_draws(rate: i32, haircuts: u64) -> u64 {
    let mut draws = Draws::new(rate);
    (0..haircuts).map(|_| u64::from(draws.next_wait())).sum()
}

/// The lengths of one actor's busy-waits: `next_int(rate) + 10` from Savina's generator.
pub(crate) struct Draws {
    rng: PseudoRandom,
    rate: i32,
}

impl Draws {
    /// The factory's (`rate` = APR) or the barber's (`rate` = AHR) sequence.
    pub(crate) fn new(rate: i32) -> Draws {
        Draws {
            rng: PseudoRandom::default(),
            rate,
        }
    }

    /// The next busy-wait's length.
    pub(crate) fn next_wait(&mut self) -> u32 {
        (self.rng.next_int_below(self.rate) + 10) as u32
    }
}

/// What a run ends with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// `Done`s received by the factory.
    pub(crate) haircuts: u64,
    /// Customers created plus customers sent back in.
    pub(crate) attempts: u64,
    /// Customers created.
    pub(crate) customers: u64,
    /// Busy-wait draws made by the factory.
    pub(crate) factory_draws: u64,
    /// Busy-wait draws made by the barber.
    pub(crate) barber_draws: u64,
}

/// Validates a run's tally (None if the factory never finished). The result is the haircuts and the
/// attempts.
pub(crate) fn check(cfg: &Config, tally: Option<Tally>) -> Outcome {
    let Some(t) = tally else {
        return Outcome::failed("the factory did not finish");
    };
    let mut outcome = Outcome::expect_eq("haircuts", cfg.haircuts, t.haircuts);
    outcome.result = serde_json::json!({ "haircuts": t.haircuts, "attempts": t.attempts });
    if outcome.check.is_ok() {
        outcome.check = if t.customers != cfg.haircuts {
            Err(format!(
                "{} customers created, expected {}",
                t.customers, cfg.haircuts
            ))
        } else if t.attempts < cfg.haircuts {
            Err(format!(
                "{} attempts for {} haircuts",
                t.attempts, cfg.haircuts
            ))
        } else if t.factory_draws != cfg.factory_draws || t.barber_draws != cfg.barber_draws {
            Err(format!(
                "busy-wait draws: factory {} and barber {}, expected {} and {}",
                t.factory_draws, t.barber_draws, cfg.factory_draws, cfg.barber_draws
            ))
        } else {
            Ok(())
        };
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Tally, BENCHMARK};
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    fn config(sets: &[(&str, f64)]) -> Config {
        Config::from_params(&params(&BENCHMARK, sets)).unwrap()
    }

    /// SPEC.md: 2,543,428 busy-wait calls each for the factory and the barber at the defaults.
    #[test]
    fn default_busy_waits_are_savinas() {
        let cfg = config(&[("n", 5_000.0)]);
        assert_eq!(cfg.factory_draws, 2_543_428);
        assert_eq!(cfg.barber_draws, 2_543_428);
    }

    #[test]
    fn check_wants_every_haircut_and_every_draw() {
        let cfg = config(&[("n", 10.0)]);
        let good = Tally {
            haircuts: 10,
            attempts: 12,
            customers: 10,
            factory_draws: cfg.factory_draws,
            barber_draws: cfg.barber_draws,
        };
        assert!(check(&cfg, Some(good)).check.is_ok());
        assert!(check(&cfg, None).check.is_err());
        for bad in [
            Tally {
                haircuts: 9,
                ..good
            },
            Tally {
                attempts: 9,
                ..good
            },
            Tally {
                customers: 11,
                ..good
            },
            Tally {
                barber_draws: 0,
                ..good
            },
        ] {
            assert!(check(&cfg, Some(bad)).check.is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        let sets = [("n", 300.0), ("w", 20.0), ("pr", 50.0), ("hr", 80.0)];
        for outcome in validates(&BENCHMARK, &sets) {
            assert_eq!(outcome.result["haircuts"], serde_json::json!(300));
        }
        let tuned = [
            (Model::ActorTuned, 1, 1),
            (Model::ActorTuned, 2, 1),
            (Model::FloorTuned, 1, 1),
        ];
        for outcome in testing::cells(&BENCHMARK, &tuned, &sets) {
            assert_eq!(outcome.result["haircuts"], serde_json::json!(300));
        }
        validates(
            &BENCHMARK,
            &[("n", 50.0), ("w", 1.0), ("pr", 5.0), ("hr", 5.0)],
        );
    }

    #[test]
    fn boc_validates_at_a_reduced_size() {
        let sets = [("n", 300.0), ("w", 20.0), ("pr", 50.0), ("hr", 80.0)];
        for outcome in testing::boc_validates(&BENCHMARK, &sets) {
            assert_eq!(outcome.result["haircuts"], serde_json::json!(300));
        }
        testing::boc_validates(
            &BENCHMARK,
            &[("n", 50.0), ("w", 1.0), ("pr", 5.0), ("hr", 5.0)],
        );
        testing::boc_validates(&BENCHMARK, &[("n", 0.0)]);
    }

    #[test]
    fn an_empty_waiting_room_is_rejected() {
        assert!(rejects(&BENCHMARK, &[("w", 0.0)]).contains("`w`"));
    }
}
