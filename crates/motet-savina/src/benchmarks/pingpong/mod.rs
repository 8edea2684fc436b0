//! 1. Ping Pong (micro): two actors exchange `n` round trips.
//!
//! Flow (SPEC.md section 3.1): the main thread sends `Start` to Ping; Ping sends `SendPing(self)`
//! to Pong and decrements `pings_left`; Pong counts it and replies `SendPong`; on `SendPong`, Ping
//! sends itself a `Ping` message while `pings_left > 0`, and on `Ping` sends the next `SendPing`;
//! when no pings are left it sends `Stop` to Pong and both exit. That is 3N + 1 messages per pair:
//! `Start`, N `SendPing`, N `SendPong`, N − 1 `Ping` and `Stop`. The actor, process, BoC, floor
//! and peers' programs follow it (BoC's `Ping` is a behaviour on Ping's own cown). `boc-tuned`
//! follows the Verona port, which sends the next `SendPing` straight from the `SendPong` behaviour
//! (2N + 2 behaviours; deviation `no-self-message`), and the reactor program follows LF's port,
//! whose logical action stands for the self-message (its own protocol).
//!
//! `p` independent pairs (default 1) run at once: Effpi's ping-pong sweep (the Effpi runtime
//! thesis, section 5.3.5) grows the number of pairs with 200 round trips each. The actor, process
//! and floor versions take any `p`; the peers' versions take only 1.
//!
//! Validation: in every pair, Pong counted N `SendPing`s and Ping received N `SendPong`s. The
//! result is the pings counted by all the Pongs, N·p.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod boc;
mod floor;
mod process;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Ping Pong (Savina 1).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "pingpong",
    id: 1,
    title: "Ping Pong: two actors exchange N round trips",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`: round trips per pair; `-p`: independent pairs (Effpi's sweep parameter; Savina has one
    /// pair). "small" is a tenth of Savina's default: LF's small size (300,000) belongs to LF's
    /// 1,000,000-ping default and is larger than Savina's.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 40_000.0, small = 4_000.0, min = 1,
            help = "round trips (pings) per pair")]
        n: u64,
        #[param("p", default = 1.0, small = 1.0, min = 1,
            help = "independent Ping-Pong pairs (Effpi's sweep; the peers take 1 only)")]
        p: usize,
    }
}

variants!(
    actor,
    process,
    boc(own_protocol),
    boc_tuned["no-self-message"](own_protocol),
    reactor(own_protocol),
    floor,
    peers,
);

/// What the pairs report as they finish, one slot per pair, shared by the threads of a parallel
/// run: the pings Pong counted and the pongs Ping received.
#[derive(Clone)]
pub(crate) struct Tallies(Arc<[PairTally]>);

/// One pair's report.
#[derive(Default)]
pub(crate) struct PairTally {
    /// The pings this pair's Pong counted.
    pub(crate) pings_counted: AtomicU64,
    /// The pongs this pair's Ping received.
    pub(crate) pongs_received: AtomicU64,
}

impl Tallies {
    /// A zeroed slot for each of `p` pairs.
    pub(crate) fn new(p: usize) -> Tallies {
        Tallies((0..p).map(|_| PairTally::default()).collect())
    }

    /// Pair `i`'s slot.
    pub(crate) fn pair(&self, i: usize) -> &PairTally {
        &self.0[i]
    }

    /// Validates every pair's report (read after the run has finished) with [`check_pairs`].
    pub(crate) fn check(&self, n: u64) -> Outcome {
        check_pairs(
            n,
            self.0.len(),
            self.0.iter().map(|t| {
                (
                    t.pings_counted.load(Ordering::Relaxed),
                    t.pongs_received.load(Ordering::Relaxed),
                )
            }),
        )
    }
}

/// Validates a run: Pong counted `pong_count` pings and Ping received `pongs_received` pongs; both
/// must equal `n`. The result is Pong's count.
#[cfg_attr(not(feature = "peers"), allow(dead_code))]
pub(crate) fn check(n: u64, pong_count: u64, pongs_received: u64) -> Outcome {
    check_pairs(n, 1, [(pong_count, pongs_received)])
}

/// Validates a run of `p` pairs: `pairs` yields each pair's (pings counted by Pong, pongs received
/// by Ping); there must be `p` of them, each equal to `(n, n)`. The result is the sum of the Pongs'
/// counts, `n·p`.
pub(crate) fn check_pairs(
    n: u64,
    p: usize,
    pairs: impl IntoIterator<Item = (u64, u64)>,
) -> Outcome {
    let mut counted = 0u64;
    let mut seen = 0usize;
    let mut first_error = None;
    for (i, (pong_count, pongs_received)) in pairs.into_iter().enumerate() {
        seen += 1;
        counted += pong_count;
        if first_error.is_some() {
            continue;
        }
        let pair = if p == 1 {
            String::new()
        } else {
            format!(" (pair {i})")
        };
        if pong_count != n {
            first_error = Some(format!(
                "pings counted by Pong{pair}: expected {n}, got {pong_count}"
            ));
        } else if pongs_received != n {
            first_error = Some(format!(
                "pongs received by Ping{pair}: expected {n}, got {pongs_received}"
            ));
        }
    }
    let check = match first_error {
        _ if seen != p => Err(format!("expected {p} pairs to report, got {seen}")),
        Some(e) => Err(e),
        None => Ok(()),
    };
    Outcome {
        result: counted.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{check, check_pairs, BENCHMARK};
    use crate::bench::Model;
    use crate::benchmarks::testing;

    #[test]
    fn check_accepts_n_and_rejects_others() {
        assert!(check(10, 10, 10).check.is_ok());
        assert_eq!(check(10, 10, 10).result, serde_json::json!(10));
        assert!(check(10, 9, 10).check.is_err());
        assert!(check(10, 10, 11).check.is_err());
    }

    #[test]
    fn check_wants_every_pair_at_n() {
        let ok = check_pairs(5, 3, [(5, 5); 3]);
        assert_eq!(ok.check, Ok(()));
        assert_eq!(ok.result, serde_json::json!(15));
        let err = check_pairs(5, 3, [(5, 5), (5, 4), (5, 5)])
            .check
            .unwrap_err();
        assert!(err.contains("pair 1"), "{err}");
        assert!(check_pairs(5, 3, [(5, 5); 2]).check.is_err());
        assert!(check_pairs(5, 3, [(5, 5); 4]).check.is_err());
    }

    #[test]
    fn every_model_runs_many_pairs() {
        let models = [Model::Actor, Model::Process, Model::Boc, Model::Floor];
        testing::expect_result(
            &BENCHMARK,
            &testing::on_one_and_two(&models, 1),
            &[("n", 200.0), ("p", 37.0)],
            serde_json::json!(200 * 37),
        );
    }
}
