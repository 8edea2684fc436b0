//! Fork Join (throughput) on the peer runtimes: one program per crate, each the flow of SPEC.md
//! section 3.3 (`A` workers get `N` rounds of one message each, in index order; a worker does
//! Savina's unit of work per message and exits after `N`). As in the motet version, the main
//! thread creates the workers and sends the messages.

mod actix;
mod kameo;
mod ractor;

use super::Config;
use crate::bench::{Outcome, Variant};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::peers::Reporter;

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// Validates the workers' reports (messages processed, one per worker) with the benchmark's check.
fn outcome(Config { n, a }: Config, reports: &[u64]) -> Outcome {
    super::check(n, a, reports)
}

/// A worker's count, the same for every crate: the messages it handled out of its `n`, and where
/// it reports once it has handled them all. It holds the reporter until the worker is dropped.
struct Quota {
    /// The messages the worker gets (`N`).
    n: u64,
    /// The messages handled so far.
    processed: u64,
    /// Where the worker reports its count.
    done: Reporter<u64>,
}

impl Quota {
    /// A count from 0 for a worker that gets `n` messages.
    fn new(n: u64, done: Reporter<u64>) -> Quota {
        Quota {
            n,
            processed: 0,
            done,
        }
    }

    /// Handles one message: Savina's unit of work, then the count. True once the `n`-th has been
    /// handled and the count reported: the worker then stops.
    #[inline]
    fn work(&mut self) -> bool {
        perform_computation(FJ_THETA);
        self.processed += 1;
        if self.processed == self.n {
            self.done.report(self.processed);
            return true;
        }
        false
    }
}
