//! 7. Big (micro): `w` actors each send `n` pings to random neighbors and wait for each pong.
//!
//! Flow (SPEC.md section 3.7): a Sink and W Big actors. `Neighbor(all W)` goes to the Sink and to
//! every Big actor, then every Big actor gets `Pong(−1)`. On `Pong(s)` an actor checks that `s` is
//! the neighbor it pinged last (`exp_pinger`; a mismatch is an error); after N pings it sends `Exit`
//! to the Sink, otherwise it draws `target = next_int(W)` from its own [`PseudoRandom`] seeded with
//! its id (the target can be itself), records it as `exp_pinger`, and sends `Ping(id)` to it. On
//! `Ping(s)` an actor replies `Pong(id)` to neighbor s. With W exits the Sink sends `Exit` to every
//! Big actor and exits. 2WN + 4W + 1 messages.
//!
//! Validation: W exits at the Sink, W x N pings handled (counted by the actors that answer them),
//! and no pong from an unexpected neighbor. The result is the Sink's exit count.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Big (Savina 7).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "big",
    id: 7,
    title: "Big: W actors each ping random neighbors N times",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` pings per actor and `-w` actors; "small" is LF's small size (500 pings).
    const PARAMS: &[ParamSpec] = [n, w];

    /// The decoded parameters, shared by every variant (`w` is checked first).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// Savina draws targets as `int`s.
        #[param("w", default = 120.0, small = 120.0, min = 1, fits = i32, help = "actors")]
        w: usize,
        #[param("n", default = 20_000.0, small = 500.0, min = 0, help = "pings per actor")]
        n: u64,
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

/// Validates a run: the Sink counted `sink_exits` exits, which must be `w`; the Big actors
/// answered `pings_handled` pings, which must be `w` x `n` (every actor sends `n` and waits for each
/// pong, so by the time the Sink has `w` exits every ping has been answered); and
/// `unexpected_pongs` pongs came from a neighbor other than the one pinged, which must be 0. The
/// result is `sink_exits`.
pub(crate) fn check(
    Config { n, w }: Config,
    sink_exits: u64,
    pings_handled: u64,
    unexpected_pongs: u64,
) -> Outcome {
    let mut outcome = Outcome::expect_eq("exits at the sink", w as u64, sink_exits);
    let expected_pings = w as u64 * n;
    if outcome.check.is_ok() && pings_handled != expected_pings {
        outcome.check = Err(format!(
            "pings handled: expected {expected_pings} (W x N), got {pings_handled}"
        ));
    }
    if outcome.check.is_ok() && unexpected_pongs != 0 {
        outcome.check = Err(format!(
            "{unexpected_pongs} pongs came from a neighbor other than the one pinged"
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, BENCHMARK};
    use crate::benchmarks::testing;
    use crate::random::PseudoRandom;

    /// The actor program on one and two workers and the floor hand their counts to `check` (the
    /// process, reactor and peer programs are run by the crate's integration tests).
    #[test]
    fn actor_and_floor_validate() {
        for (n, w) in [(50, 12), (0, 3)] {
            let sets = [("n", f64::from(n)), ("w", f64::from(w))];
            for outcome in testing::validates(&BENCHMARK, &sets) {
                assert_eq!(outcome.result, serde_json::json!(w));
            }
        }
    }

    #[test]
    fn check_wants_w_exits_w_times_n_pings_and_no_stray_pongs() {
        let cfg = Config { n: 500, w: 120 };
        let ok = check(cfg, 120, 60_000, 0);
        assert!(ok.check.is_ok());
        assert_eq!(ok.result, serde_json::json!(120));
        assert!(check(cfg, 119, 60_000, 0).check.is_err());
        assert!(check(cfg, 120, 59_999, 0).check.is_err());
        assert!(check(cfg, 120, 60_001, 0).check.is_err());
        assert!(check(cfg, 120, 60_000, 1).check.is_err());
        assert!(check(Config { n: 0, w: 3 }, 3, 0, 0).check.is_ok());
    }

    /// SPEC.md: "In the LCG era 19,978 of the 2.4 M pings are self-pings".
    #[test]
    fn default_size_has_savinas_self_ping_count() {
        let (w, n) = (120, 20_000);
        let self_pings: usize = (0..w)
            .map(|id| {
                let mut rng = PseudoRandom::new(id as i64);
                (0..n).filter(|_| rng.next_int_below(w) == id).count()
            })
            .sum();
        assert_eq!(self_pings, 19_978);
    }
}
