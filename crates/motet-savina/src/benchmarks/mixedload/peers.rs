//! Mixed load on the peer runtimes: one program per crate, each the flow of the module
//! documentation (masters build their rings from their handlers; the collector reports its tally
//! once complete). A master also tells its worker to exit when it is done, since actix and ractor
//! actors do not stop when the last address to them goes.

mod actix;
mod kameo;
mod ractor;

use super::{Config, Tally};
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Every peer's program, by model, built from a [`Config`] (for the tests).
#[cfg(test)]
pub(super) fn programs() -> Vec<(crate::bench::Model, super::Program)> {
    use crate::bench::Model;
    vec![
        (Model::Actix, actix::program),
        (Model::Ractor, ractor::program),
        (Model::Kameo, kameo::program),
    ]
}

/// Validates the collector's report (the only one) with the benchmark's check.
fn outcome(cfg: Config, reports: &[Tally]) -> Outcome {
    match reports {
        [tally] => super::check(&cfg, Some(tally)),
        _ => super::check(&cfg, None),
    }
}
