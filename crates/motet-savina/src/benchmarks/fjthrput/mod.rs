//! 3. Fork Join, throughput (micro): `a` actors each handle `n` messages of fork-join work.
//!
//! Flow (SPEC.md section 3.3): the main thread creates A actors, then for each of N rounds sends one
//! message to every actor in index order. Per message an actor computes `sin(37.2)²`
//! (`perform_computation`), counts, and exits after N messages. Savina's
//! `-c` and `-p` flags are ignored by its Akka port and are not taken here. Every default program
//! sends the rounds from the harness thread; `actor-tuned` and `process-tuned` send them from a
//! driver actor or process (`driver-actor`).
//!
//! Validation: every one of the A actors handled exactly N messages. The result is the total, A·N.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod boc;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Fork Join, throughput (Savina 3).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "fjthrput",
    id: 3,
    title: "Fork Join (throughput): A actors each handle N messages of sin(x)^2 work",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` messages per actor and `-a` actors; "small" sends a tenth of the messages.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 10_000.0, small = 1_000.0, min = 1, help = "messages per actor")]
        n: u64,
        #[param("a", default = 60.0, small = 60.0, min = 1, help = "actors")]
        a: usize,
    }
}

variants!(
    actor,
    actor_tuned["driver-actor"],
    process,
    process_tuned["driver-actor"],
    boc(own_protocol),
    reactor(own_protocol),
    floor,
    peers,
);

/// Validates a run: `counts` holds how many messages each actor handled; there must be `a` of them,
/// each equal to `n`. The result is their sum.
pub(crate) fn check(n: u64, a: usize, counts: &[u64]) -> Outcome {
    let total: u64 = counts.iter().sum();
    let check = if counts.len() != a {
        Err(format!("expected {a} actors, got {}", counts.len()))
    } else if let Some((i, c)) = counts.iter().enumerate().find(|(_, &c)| c != n) {
        Err(format!("actor {i} handled {c} messages, expected {n}"))
    } else {
        Ok(())
    };
    Outcome {
        result: total.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn check_wants_every_actor_at_n() {
        let ok = check(3, 2, &[3, 3]);
        assert!(ok.check.is_ok());
        assert_eq!(ok.result, serde_json::json!(6));
        assert!(check(3, 2, &[3, 2]).check.is_err());
        assert!(check(3, 3, &[3, 3]).check.is_err());
    }
}
