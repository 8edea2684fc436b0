//! Fork Join (actor creation) on the peer runtimes: one program per crate, each the flow of
//! SPEC.md section 3.4 (the main thread `N` times creates a worker and sends it one message; the
//! worker does Savina's unit of work once and exits).

mod actix;
mod kameo;
mod ractor;

use crate::bench::{Model, Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    vec![
        Variant {
            model: Model::Actix,
            prepare: actix::prepare,
        },
        Variant {
            model: Model::Ractor,
            prepare: ractor::prepare,
        },
        Variant {
            model: Model::Kameo,
            prepare: kameo::prepare,
        },
    ]
}

/// Validates the workers' completions (one report each) with the benchmark's check.
fn outcome(n: u64, reports: &[()]) -> Outcome {
    super::check(n, reports.len() as u64)
}
