//! Thread Ring on the peer runtimes: one program per crate, each the flow of SPEC.md section 3.5
//! (`N` ring members linked by `Data(next)`; `Ping(R)` goes round the ring counting down; the
//! member that gets `Ping(0)` starts an exit wave of `N + 1` `Exit` messages, the last of which
//! reaches an actor that has already exited and is dropped).

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates where the zero ping arrived (the index of each member that got one; exactly one
/// should) with the benchmark's check.
fn outcome(Config { n, r }: Config, reports: &[usize]) -> Outcome {
    match reports {
        [] => super::check(n, r, None),
        [zero_at] => super::check(n, r, Some(*zero_at)),
        _ => Outcome::failed(format!(
            "expected one ring member to get the zero ping, got {reports:?}"
        )),
    }
}
