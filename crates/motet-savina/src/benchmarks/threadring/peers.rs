//! Thread Ring on the peer runtimes: one program per crate, each the flow of SPEC.md section 3.5
//! (`N` ring members linked by `Data(next)`; `Ping(R)` goes round the ring counting down; the
//! member that gets `Ping(0)` starts an exit wave of `N + 1` `Exit` messages, the last of which
//! reaches an actor that has already exited and is dropped).

mod actix;
mod kameo;
mod ractor;

use super::{Config, Counts};
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// What a ring member reports.
#[derive(Clone, Copy, Debug)]
enum Report {
    /// It received the zero ping; its index.
    ZeroAt(usize),
    /// It handled an exit and stops, having handled this many pings.
    Exited(u64),
}

/// Validates the reports (where the zero ping arrived, each member's pings on its exit) with the
/// benchmark's check; exactly one member should get the zero ping.
fn outcome(cfg: Config, reports: &[Report]) -> Outcome {
    let mut zero_at = Vec::new();
    let (mut pings, mut exits) = (0, 0);
    for r in reports {
        match *r {
            Report::ZeroAt(i) => zero_at.push(i),
            Report::Exited(p) => {
                pings += p;
                exits += 1;
            }
        }
    }
    if zero_at.len() > 1 {
        return Outcome::failed(format!(
            "expected one ring member to get the zero ping, got {zero_at:?}"
        ));
    }
    let counts = Counts {
        zero_at: zero_at.first().copied(),
        pings,
        exits: Some(exits),
    };
    super::check(cfg, counts)
}
