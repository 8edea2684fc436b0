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
    process["channels-at-spawn"],
    reactor(own_protocol),
    floor,
    peers,
);

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
