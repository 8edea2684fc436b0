//! Actor creation on the peer runtimes: one program per crate, each the flow of the module
//! documentation (every testee spawns its two children from its handler; the root reports the
//! number of leaves to the main thread).

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates the root's report (the only one) with the benchmark's check.
fn outcome(Config { n }: Config, reports: &[u64]) -> Outcome {
    match reports {
        [leaves] => super::check(n, Some(*leaves)),
        [] => super::check(n, None),
        _ => Outcome::failed(format!("{} roots reported", reports.len())),
    }
}
