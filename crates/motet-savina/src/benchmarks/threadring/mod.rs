//! 5. Thread Ring (micro): a token passed `r` times around a ring of `n` actors.
//!
//! Flow (SPEC.md section 3.5): N ring actors are created and each receives `Data(next)` linking
//! actor i to actor (i+1) mod N. Actor 0 gets `Ping(R)`; an actor receiving `Ping(k)` forwards
//! `Ping(k−1)` if k > 0, and otherwise sends `Exit(N)` to its next actor. An actor receiving
//! `Exit(e)` forwards `Exit(e−1)` if e > 0 and exits; the one actor that receives a second `Exit`
//! has already exited and drops it. N + (R+1) + (N+1) messages.
//!
//! Validation: the zero ping arrives at actor R mod N; the actors handled R + 1 pings in all (the
//! passes, counted where they arrive); and, where the program has the exit wave, each of the N
//! actors handled one `Exit` and stopped (the (N+1)-th reaches a stopped actor and is dropped).
//! The result is the index of the actor that received the zero ping.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Thread Ring (Savina 5).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "threadring",
    id: 5,
    title: "Thread Ring: a token passed R times around a ring of N actors",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` actors and `-r` passes; "small" passes the token a tenth as often.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 100.0, small = 100.0, min = 1, help = "actors in the ring")]
        n: usize,
        #[param("r", default = 100_000.0, small = 10_000.0, min = 0,
            help = "passes of the token (pings)")]
        r: u64,
    }
}

variants!(
    actor,
    process,
    process_tuned["channels-at-spawn"],
    reactor(own_protocol),
    floor,
    peers,
);

/// What a run counted, for [`check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    /// The index of the actor that received `Ping(0)`, `None` if none did.
    pub(crate) zero_at: Option<usize>,
    /// The `Ping` messages the actors handled, summed over the ring.
    pub(crate) pings: u64,
    /// The actors that handled an `Exit` and stopped; `None` for a program without the exit wave
    /// (the reactor program, after LF's port, stops at the zero ping).
    pub(crate) exits: Option<u64>,
}

/// Validates a run: the zero ping arrived at actor `r mod n`, the ring handled `r + 1` pings, and
/// (where counted) all `n` actors handled an exit. The result is `zero_at` (null if none).
pub(crate) fn check(Config { n, r }: Config, counts: Counts) -> Outcome {
    let expected = (r % n as u64) as usize;
    let mut outcome = match counts.zero_at {
        Some(at) => Outcome::expect_eq("actor receiving the zero ping", expected as u64, at as u64),
        None => Outcome::failed("no actor received the zero ping"),
    };
    if outcome.check.is_ok() && counts.pings != r + 1 {
        outcome.check = Err(format!(
            "pings handled: expected {} (R + 1), got {}",
            r + 1,
            counts.pings
        ));
    }
    match counts.exits {
        Some(exits) if outcome.check.is_ok() && exits != n as u64 => {
            outcome.check = Err(format!(
                "actors that handled an exit: expected {n} (N), got {exits}"
            ));
        }
        _ => {}
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Counts, BENCHMARK};
    use crate::benchmarks::testing;

    fn counts(zero_at: Option<usize>, pings: u64, exits: Option<u64>) -> Counts {
        Counts {
            zero_at,
            pings,
            exits,
        }
    }

    #[test]
    fn check_wants_r_mod_n_r_plus_one_pings_and_n_exits() {
        let default = Config { n: 100, r: 100_000 };
        assert!(check(default, counts(Some(0), 100_001, Some(100)))
            .check
            .is_ok());
        let cfg = Config { n: 7, r: 10 };
        let ok = check(cfg, counts(Some(3), 11, Some(7)));
        assert!(ok.check.is_ok());
        assert_eq!(ok.result, serde_json::json!(3));
        assert!(check(cfg, counts(Some(3), 11, None)).check.is_ok());
        assert!(check(cfg, counts(Some(2), 11, Some(7))).check.is_err());
        assert!(check(cfg, counts(None, 11, Some(7))).check.is_err());
        assert!(check(cfg, counts(Some(3), 10, Some(7))).check.is_err());
        assert!(check(cfg, counts(Some(3), 12, Some(7))).check.is_err());
        assert!(check(cfg, counts(Some(3), 11, Some(6))).check.is_err());
        assert!(check(cfg, counts(Some(3), 11, Some(8))).check.is_err());
    }

    /// The actor program on one and two workers and the floor hand their counts to `check` (the
    /// process, reactor and peer programs are run by the crate's integration tests).
    #[test]
    fn actor_and_floor_validate() {
        for (n, r) in [(7, 1_000), (1, 5), (5, 0)] {
            let sets = [("n", f64::from(n)), ("r", f64::from(r))];
            for outcome in testing::validates(&BENCHMARK, &sets) {
                assert_eq!(outcome.result, serde_json::json!(r % n));
            }
        }
    }
}
