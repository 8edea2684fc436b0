//! Chameneos on the peer runtimes: one program per crate, each the flow of SPEC.md section 3.6
//! (the main thread creates the mall, whose start hook creates the `C` creatures; the mall pairs
//! `M` meetings, then answers every `Meet` with `Exit`; each creature reports its meetings to the
//! mall, which sums them and exits after all `C` reports).

mod actix;
mod kameo;
mod ractor;

use super::Color;
use super::Config;
use crate::bench::{Outcome, Variant};

/// The actix, ractor and kameo variants.
pub(super) fn variants() -> Vec<Variant> {
    crate::peers::variants(actix::prepare, ractor::prepare, kameo::prepare)
}

/// The mall's bookkeeping, the same for every crate.
struct Mall<R> {
    /// Meetings still to pair.
    meetings_left: u64,
    /// The creature waiting for a partner, with its color.
    waiting: Option<(Color, R)>,
    /// Meetings reported by faded creatures.
    sum_meetings: u64,
    /// Creatures that have reported.
    faded: usize,
    /// How many creatures there are.
    creatures: usize,
}

/// What the mall does with a `Meet`.
enum Pairing<R> {
    /// Nobody was waiting: the creature now waits.
    Wait,
    /// Forward the `Meet` (color and sender) to the waiting creature `to`.
    Forward { to: R, color: Color, from: R },
    /// No meetings left: answer `Exit` to the sender.
    Exit(R),
}

impl<R> Mall<R> {
    fn new(creatures: usize, meetings: u64) -> Mall<R> {
        Mall {
            meetings_left: meetings,
            waiting: None,
            sum_meetings: 0,
            faded: 0,
            creatures,
        }
    }

    /// Handles `Meet(color, from)`.
    fn meet(&mut self, color: Color, from: R) -> Pairing<R> {
        if self.meetings_left == 0 {
            return Pairing::Exit(from);
        }
        match self.waiting.take() {
            None => {
                self.waiting = Some((color, from));
                Pairing::Wait
            }
            Some((_, to)) => {
                self.meetings_left -= 1;
                Pairing::Forward { to, color, from }
            }
        }
    }

    /// Handles `MeetingCount(k)`; returns the sum once every creature has reported.
    fn meeting_count(&mut self, k: u64) -> Option<u64> {
        self.sum_meetings += k;
        self.faded += 1;
        (self.faded == self.creatures).then_some(self.sum_meetings)
    }
}

/// Validates the mall's sum of meetings with the benchmark's check.
fn outcome(Config { m, .. }: Config, reports: &[u64]) -> Outcome {
    match reports {
        [sum] => super::check(m, *sum),
        _ => Outcome::failed(format!("expected one sum from the mall, got {reports:?}")),
    }
}
