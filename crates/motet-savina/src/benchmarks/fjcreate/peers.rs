//! Fork Join (actor creation) on the peer runtimes: one program per crate, each the flow of
//! SPEC.md section 3.4 (`N` times a worker is created and sent one message; the worker does
//! Savina's unit of work once and exits). As in the motet version, the main thread creates the
//! workers and sends them their messages.

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates the workers' completions (one report each) with the benchmark's check.
fn outcome(Config { n }: Config, reports: &[()]) -> Outcome {
    super::check(n, reports.len() as u64)
}
