//! 1. Ping Pong (micro): two actors exchange `n` round trips.
//!
//! motet follows the Pony and Verona ports' flow rather than Akka's (SPEC.md section 3.1, "Ports'
//! variation"): the main thread sends `Start` to Ping; Ping sends `SendPing(self)` to Pong and
//! decrements `pings_left`; Pong counts it and replies `SendPong`; on `SendPong`, Ping sends the next
//! `SendPing` directly (no self-message) while `pings_left > 0`, and otherwise sends `Stop` to Pong
//! and both exit. That is 2N + 2 messages (Akka's flow, with a `Ping` self-message per round trip,
//! has 3N + 1). Every variant uses this flow, so the models are compared on the same work.
//!
//! Validation: Pong counted N `SendPing`s and Ping received N `SendPong`s.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Model, Outcome, Variant};
use crate::params::{ParamSpec, Params};

/// Ping Pong (Savina 1).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "pingpong",
    id: 1,
    title: "Ping Pong: two actors exchange N round trips",
    params: PARAMS,
    variants,
};

/// `-n`: round trips. "small" is a tenth of Savina's default: LF's small size (300,000) belongs to
/// LF's 1,000,000-ping default and is larger than Savina's.
const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "n",
    default: 40_000.0,
    small: 4_000.0,
    help: "round trips (pings)",
}];

/// The implementations, the sequential floor first.
fn variants() -> Vec<Variant> {
    #[cfg_attr(not(feature = "peers"), allow(unused_mut))]
    let mut v = vec![
        Variant {
            model: Model::Actor,
            prepare: actor::prepare,
        },
        Variant {
            model: Model::Reactor,
            prepare: reactor::prepare,
        },
        Variant {
            model: Model::ReactorLevel,
            prepare: reactor::prepare_level,
        },
        Variant {
            model: Model::Floor,
            prepare: floor::prepare,
        },
    ];
    #[cfg(feature = "peers")]
    v.extend(peers::variants());
    v
}

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Round trips (`-n`), at least 1.
    pub(crate) n: u64,
}

impl Config {
    /// Reads and checks the parameters.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        Ok(Config {
            n: params.integer("n", 1)?,
        })
    }
}

/// Validates a run: Pong counted `pong_count` pings and Ping received `pongs_received` pongs; both
/// must equal `n`. The result is Pong's count.
pub(crate) fn check(n: u64, pong_count: u64, pongs_received: u64) -> Outcome {
    let mut outcome = Outcome::expect_eq("pings counted by Pong", n, pong_count);
    if outcome.check.is_ok() && pongs_received != n {
        outcome.check = Err(format!(
            "pongs received by Ping: expected {n}, got {pongs_received}"
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn check_accepts_n_and_rejects_others() {
        assert!(check(10, 10, 10).check.is_ok());
        assert_eq!(check(10, 10, 10).result, serde_json::json!(10));
        assert!(check(10, 9, 10).check.is_err());
        assert!(check(10, 10, 11).check.is_err());
    }
}
