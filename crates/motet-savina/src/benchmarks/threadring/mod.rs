//! 5. Thread Ring (micro): a token passed `r` times around a ring of `n` actors.
//!
//! Flow (SPEC.md section 3.5): N ring actors are created and each receives `Data(next)` linking
//! actor i to actor (i+1) mod N. Actor 0 gets `Ping(R)`; an actor receiving `Ping(k)` forwards
//! `Ping(k−1)` if k > 0, and otherwise sends `Exit(N)` to its next actor. An actor receiving
//! `Exit(e)` forwards `Exit(e−1)` if e > 0 and exits; the one actor that receives a second `Exit`
//! has already exited and drops it. N + (R+1) + (N+1) messages.
//!
//! Validation: the zero ping arrives at actor R mod N. The result is that actor's index.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::{ParamSpec, Params};

/// Thread Ring (Savina 5).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "threadring",
    id: 5,
    title: "Thread Ring: a token passed R times around a ring of N actors",
    params: PARAMS,
    variants,
};

/// `-n` actors and `-r` passes; "small" passes the token a tenth as often.
const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "n",
        default: 100.0,
        small: 100.0,
        help: "actors in the ring",
    },
    ParamSpec {
        name: "r",
        default: 100_000.0,
        small: 10_000.0,
        help: "passes of the token (pings)",
    },
];

variants!(actor, process, reactor, floor, peers);

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Actors in the ring (`-n`), at least 1.
    pub(crate) n: usize,
    /// Passes of the token (`-r`).
    pub(crate) r: u64,
}

impl Config {
    /// Reads and checks the parameters.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        Ok(Config {
            n: params.integer("n", 1)? as usize,
            r: params.integer("r", 0)?,
        })
    }
}

/// Validates a run: `zero_at` is the index of the actor that received `Ping(0)` (`None` if none
/// did); it must be `r mod n`. The result is `zero_at` (null if none).
pub(crate) fn check(n: usize, r: u64, zero_at: Option<usize>) -> Outcome {
    let expected = (r % n as u64) as usize;
    match zero_at {
        Some(at) => Outcome::expect_eq("actor receiving the zero ping", expected as u64, at as u64),
        None => Outcome::failed("no actor received the zero ping"),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn check_wants_r_mod_n() {
        assert!(check(100, 100_000, Some(0)).check.is_ok());
        assert!(check(7, 10, Some(3)).check.is_ok());
        assert!(check(7, 10, Some(2)).check.is_err());
        assert!(check(7, 10, None).check.is_err());
    }
}
