//! 6. Chameneos (micro): `c` creatures meet in pairs at a mall until `m` meetings have happened.
//!
//! Flow (SPEC.md section 3.6): the Mall creates the creatures when it starts; creature i starts with
//! color i mod 3 and sends `Meet(color, self)` to the Mall. With meetings left, the Mall stores the
//! first sender and, on the next `Meet`, counts a meeting and forwards that `Meet` to the waiting
//! creature. A creature receiving a forwarded `Meet` takes the complement color,
//! counts the meeting, sends `Change(color)` to the other creature and `Meet` to the Mall; on
//! `Change` a creature takes the color, counts and sends `Meet`. With no meetings left the Mall
//! answers `Meet` with `Exit`; the creature fades, reports `MeetingCount` and exits; the Mall exits
//! after all C reports. 4M + 3C messages.
//!
//! Validation: the sum of the creatures' meeting counts is 2M. The result is that sum.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod boc;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Chameneos (Savina 6).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "chameneos",
    id: 6,
    title: "Chameneos: C creatures meet in pairs at a mall, M meetings",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-c` creatures and `-m` meetings; "small" holds a tenth of the meetings.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// At least 2, so that meetings can happen.
        #[param("c", default = 100.0, small = 100.0, min = 2, help = "creatures (chameneos)")]
        c: usize,
        #[param("m", default = 200_000.0, small = 20_000.0, min = 0, help = "meetings")]
        m: u64,
    }
}

variants!(
    actor,
    process,
    process_tuned["recv-many"],
    boc(own_protocol),
    reactor(own_protocol),
    floor,
    peers,
);

/// A creature's color.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Color {
    Red,
    Yellow,
    Blue,
    /// The color of a creature after the mall has closed.
    Faded,
}

impl Color {
    /// The starting color of creature `i`: RED, YELLOW, BLUE in turn.
    pub(crate) fn initial(i: usize) -> Color {
        [Color::Red, Color::Yellow, Color::Blue][i % 3]
    }

    /// Savina's complement rule: same colors stay the same, two different colors give the third,
    /// FADED with anything gives FADED.
    pub(crate) fn complement(self, other: Color) -> Color {
        use Color::*;
        match (self, other) {
            (Faded, _) | (_, Faded) => Faded,
            (a, b) if a == b => a,
            (Red, Yellow) | (Yellow, Red) => Blue,
            (Red, Blue) | (Blue, Red) => Yellow,
            (Yellow, Blue) | (Blue, Yellow) => Red,
            _ => unreachable!("all pairs are covered"),
        }
    }
}

/// Validates a run: the creatures' meeting counts sum to `sum_meetings`, which must be `2 m`. The
/// result is `sum_meetings`.
pub(crate) fn check(m: u64, sum_meetings: u64) -> Outcome {
    Outcome::expect_eq("sum of meetings", 2 * m, sum_meetings)
}

#[cfg(test)]
mod tests {
    use super::{check, Color};

    #[test]
    fn complement_follows_savina() {
        use Color::*;
        assert_eq!(Red.complement(Red), Red);
        assert_eq!(Red.complement(Yellow), Blue);
        assert_eq!(Yellow.complement(Blue), Red);
        assert_eq!(Blue.complement(Red), Yellow);
        assert_eq!(Blue.complement(Faded), Faded);
        assert_eq!(Faded.complement(Blue), Faded);
        assert_eq!(Color::initial(4), Yellow);
    }

    #[test]
    fn check_wants_twice_the_meetings() {
        assert!(check(10, 20).check.is_ok());
        assert!(check(10, 10).check.is_err());
    }
}
