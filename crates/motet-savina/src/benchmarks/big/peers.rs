//! Big on the peer runtimes: one program per crate, each the flow of SPEC.md section 3.7 (`W`
//! actors that each send `N` pings to neighbors picked by their own LCG, waiting for each pong;
//! a sink that counts their exits and then stops them all).

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};
use crate::random::PseudoRandom;

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// A Big actor's bookkeeping, the same for every crate.
struct Pinger {
    /// The actor's index among the `W`, also its LCG seed and its id in pings and pongs.
    id: usize,
    /// Pings each actor sends.
    n: u64,
    /// Pings sent so far.
    num_pings: u64,
    /// The id the next pong must come from; `-1` before the first ping, as in Savina.
    exp_pinger: i64,
    /// Pongs from an unexpected sender (Savina prints an "Expected…" line for each).
    errors: u64,
    /// Pings answered.
    pings_handled: u64,
    rng: PseudoRandom,
}

/// What a Big actor does after a pong.
enum AfterPong {
    /// Send `Ping(id)` to neighbor `target`.
    Ping(usize),
    /// All `N` pings are done: send `Exit` to the sink.
    Exit,
}

impl Pinger {
    fn new(id: usize, n: u64) -> Pinger {
        Pinger {
            id,
            n,
            num_pings: 0,
            exp_pinger: -1,
            errors: 0,
            pings_handled: 0,
            rng: PseudoRandom::new(id as i64),
        }
    }

    /// Handles a `Ping`: counts it, and returns the id to answer the pinger with (`Pong(id)`).
    fn ping(&mut self) -> i64 {
        self.pings_handled += 1;
        self.id as i64
    }

    /// The actor's report when it exits.
    fn report(&self) -> Report {
        Report::Big {
            pings_handled: self.pings_handled,
            errors: self.errors,
        }
    }

    /// Handles `Pong(sender)` among `w` neighbors.
    fn pong(&mut self, sender: i64, w: usize) -> AfterPong {
        if sender != self.exp_pinger {
            self.errors += 1;
        }
        if self.num_pings == self.n {
            return AfterPong::Exit;
        }
        let target = self.rng.next_int_below(w as i32) as usize;
        self.exp_pinger = target as i64;
        self.num_pings += 1;
        AfterPong::Ping(target)
    }
}

/// What the actors report when they exit.
#[derive(Clone, Copy, Debug)]
enum Report {
    /// A Big actor's counts: the pings it answered and the unexpected pongs.
    Big {
        /// Pings answered.
        pings_handled: u64,
        /// Pongs from an unexpected sender.
        errors: u64,
    },
    /// The sink's count of exits.
    Exits(u64),
}

/// Validates the reports (the sink's exits, the Big actors' pings answered and errors) with
/// the benchmark's check.
fn outcome(cfg: Config, reports: &[Report]) -> Outcome {
    let w = cfg.w;
    let mut exits = None;
    let (mut pings_handled, mut errors) = (0, 0);
    let mut bigs = 0;
    for r in reports {
        match *r {
            Report::Exits(k) => exits = Some(k),
            Report::Big {
                pings_handled: p,
                errors: e,
            } => {
                pings_handled += p;
                errors += e;
                bigs += 1;
            }
        }
    }
    match exits {
        Some(exits) if bigs == w => super::check(cfg, exits, pings_handled, errors),
        _ => Outcome::failed(format!(
            "expected one report from the sink and {w} from the Big actors, got {} and {bigs}",
            u8::from(exits.is_some())
        )),
    }
}
