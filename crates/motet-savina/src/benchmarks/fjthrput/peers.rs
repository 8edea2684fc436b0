//! Fork Join (throughput) on the peer runtimes: one program per crate, each the flow of SPEC.md
//! section 3.3 (`A` workers get `N` rounds of one message each, in index order; a worker does
//! Savina's unit of work per message and exits after `N`). As in the motet version, the main
//! thread creates the workers and sends the messages.

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates the workers' reports (messages processed, one per worker) with the benchmark's check.
fn outcome(Config { n, a }: Config, reports: &[u64]) -> Outcome {
    super::check(n, a, reports)
}
