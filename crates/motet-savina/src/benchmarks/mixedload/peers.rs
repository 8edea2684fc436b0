//! Mixed load on the peer runtimes: one program per crate, each the flow of the module
//! documentation (masters build their rings from their handlers; the collector reports its tally
//! once complete). A master also tells its worker to exit when it is done, since actix and ractor
//! actors do not stop when the last address to them goes.

mod actix;
mod kameo;
mod ractor;

use super::{Config, Tally};
use crate::bench::{Outcome, Variant};
use crate::peers::Reporter;

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

/// The collector's bookkeeping, the same for every crate: the tally so far, and where it goes once
/// complete. It holds the reporter until the collector is dropped.
struct Collection {
    /// What the tally waits for.
    cfg: Config,
    /// What has arrived so far.
    tally: Tally,
    /// Where the complete tally goes.
    done: Reporter<Tally>,
}

impl Collection {
    /// An empty tally for `cfg`, reported to `done` once complete.
    fn new(cfg: Config, done: Reporter<Tally>) -> Collection {
        Collection {
            cfg,
            tally: Tally::default(),
            done,
        }
    }

    /// Handles `Factors(factors)`; true once the tally is complete (and reported): the collector
    /// then stops.
    #[inline]
    fn factors(&mut self, factors: Vec<u64>) -> bool {
        self.tally.factors(factors, &self.cfg.factors);
        self.report_if_complete()
    }

    /// Handles `Done(tokens)`; true once the tally is complete, as for [`Collection::factors`].
    #[inline]
    fn done(&mut self, tokens: u64) -> bool {
        self.tally.done(tokens);
        self.report_if_complete()
    }

    /// Reports the tally if everything has arrived; whether it has.
    fn report_if_complete(&mut self) -> bool {
        if !self.tally.complete(&self.cfg) {
            return false;
        }
        self.done.report(std::mem::take(&mut self.tally));
        true
    }
}
