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
//! Validation: no pong from an unexpected neighbor, and W exits at the Sink. The result is the
//! Sink's exit count.
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
    process["channels-at-spawn"],
    reactor(own_protocol),
    floor,
    peers,
);

/// Validates a run: the Sink counted `sink_exits` exits, which must be `w`, and `unexpected_pongs`
/// pongs came from a neighbor other than the one pinged, which must be 0. The result is
/// `sink_exits`.
pub(crate) fn check(w: usize, sink_exits: u64, unexpected_pongs: u64) -> Outcome {
    let mut outcome = Outcome::expect_eq("exits at the sink", w as u64, sink_exits);
    if outcome.check.is_ok() && unexpected_pongs != 0 {
        outcome.check = Err(format!(
            "{unexpected_pongs} pongs came from a neighbor other than the one pinged"
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::random::PseudoRandom;

    #[test]
    fn check_wants_w_exits_and_no_stray_pongs() {
        assert!(check(120, 120, 0).check.is_ok());
        assert!(check(120, 119, 0).check.is_err());
        assert!(check(120, 120, 1).check.is_err());
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
