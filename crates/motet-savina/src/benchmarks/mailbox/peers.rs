//! Mailbox N:1 on the peer runtimes: one program per crate, each the flow of the module
//! documentation (the main thread creates the receiver and the senders and sends each sender
//! `Go`; each sender sends its `m` messages in one handler invocation and exits; the receiver
//! reports its tally after the last message).

mod actix;
mod kameo;
mod ractor;

use super::{Config, Tally};
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates the receiver's report (the only one) with the benchmark's check.
fn outcome(cfg: Config, reports: &[Tally]) -> Outcome {
    match reports {
        [tally] => super::check(cfg, Some(tally)),
        _ => super::check(cfg, None),
    }
}
