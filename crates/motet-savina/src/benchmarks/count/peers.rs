//! Counting Actor on the peer runtimes: one program per crate, each the flow of SPEC.md section
//! 3.2 (the producer sends `N` increments and a `Retrieve` from one handler; the counter answers
//! with its count).

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates the producer's report (the counter's `Result`) with the benchmark's check.
fn outcome(Config { n }: Config, reports: &[u64]) -> Outcome {
    match reports {
        [count] => super::check(n, *count),
        _ => Outcome::failed(format!(
            "expected one result from the producer, got {reports:?}"
        )),
    }
}
