//! 4. Fork Join, actor creation (micro): `n` actors, each created to handle one message.
//!
//! Flow (SPEC.md section 3.4): the main thread loops N times: create an actor and send it one
//! message. The actor computes `sin(37.2)²` once (`perform_computation`)
//! and exits. Actor creation is inside the timed run (the benchmark measures it). Every default
//! program (actor, process, floor, the peers) creates the actors from the harness thread;
//! `actor-tuned` and `process-tuned` create them from a driver actor or process and count
//! completions on sharded counters (`driver-actor`, `sharded-counter`).
//!
//! Validation: N completions. The result is the number of actors that completed.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod boc;
mod completions;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Fork Join, actor creation (Savina 4).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "fjcreate",
    id: 4,
    title: "Fork Join (actor creation): N actors, each created for one message",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`: actors; "small" is a tenth (SPEC.md gives no LF small size; LF has no port).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 40_000.0, small = 4_000.0, min = 0, help = "actors created")]
        n: u64,
    }
}

variants!(
    actor,
    actor_tuned ["driver-actor", "sharded-counter"],
    process,
    process_tuned ["driver-actor", "sharded-counter"],
    boc (own_protocol),
    floor,
    reactor,
    peers,
);

/// Validates a run: `completions` actors finished their message; there must be `n`. The result is
/// `completions`.
pub(crate) fn check(n: u64, completions: u64) -> Outcome {
    Outcome::expect_eq("completions", n, completions)
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn check_counts_completions() {
        assert!(check(4, 4).check.is_ok());
        assert!(check(4, 3).check.is_err());
    }
}
