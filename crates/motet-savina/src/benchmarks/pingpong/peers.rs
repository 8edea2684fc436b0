//! Ping Pong on the peer runtimes: one program per crate, each SPEC.md section 3.1's flow (after
//! each `SendPong`, Ping sends itself a `Ping` while pings are left and sends the next `SendPing`
//! on it; 3N + 1 messages).

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};
use crate::params::Params;

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// The parameters of a peer's program: one pair only (Effpi's sweep over the number of pairs is
/// run by motet's models and the floor).
fn config(params: &Params) -> Result<Config, String> {
    let cfg = Config::from_params(params)?;
    if cfg.p != 1 {
        return Err(format!(
            "parameter `p` must be 1 for the peers' pingpong (one pair), got {}",
            cfg.p
        ));
    }
    Ok(cfg)
}

/// What the two actors report when they exit.
#[derive(Clone, Copy, Debug)]
enum Report {
    /// Ping's count of `SendPong` messages received.
    PongsReceived(u64),
    /// Pong's count of `SendPing` messages answered.
    PingsAnswered(u64),
}

/// Validates the two reports with the benchmark's check (a missing report counts as 0).
fn outcome(Config { n, .. }: Config, reports: &[Report]) -> Outcome {
    let (mut pong_count, mut pongs_received) = (0, 0);
    for r in reports {
        match *r {
            Report::PongsReceived(k) => pongs_received = k,
            Report::PingsAnswered(k) => pong_count = k,
        }
    }
    super::check(n, pong_count, pongs_received)
}
