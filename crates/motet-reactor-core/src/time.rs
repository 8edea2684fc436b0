//! Tags: the logical timeline every event and reaction of a program is ordered on.
//!
//! A [`Tag`] is a pair (time, microstep), ordered lexicographically. Time is counted in nanoseconds
//! from the program's start tag (T0, 0), so a tag reads the same in every run; the runtime maps it to
//! physical time only to wait for it (physical time chasing) and to check deadlines. Scheduling with a
//! zero delay gives the next microstep at the same time; a positive delay gives microstep 0 at the
//! later time.

use core::fmt;
use core::time::Duration;

/// A point on the logical timeline: time since the start tag, and microstep.
///
/// ```
/// use core::time::Duration;
/// use motet_reactor_core::Tag;
///
/// let t = Tag::new(Duration::from_millis(10), 0);
/// assert_eq!(t.delay(Duration::ZERO), Tag::new(Duration::from_millis(10), 1));
/// assert_eq!(t.delay(Duration::from_millis(5)), Tag::new(Duration::from_millis(15), 0));
/// assert!(Tag::new(Duration::from_millis(10), 1) < Tag::new(Duration::from_millis(11), 0));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Tag {
    /// Nanoseconds since the start tag. Declared first so that the derived order is lexicographic.
    time: u64,
    microstep: u32,
}

impl Tag {
    /// The start tag (T0, 0).
    pub const ZERO: Tag = Tag {
        time: 0,
        microstep: 0,
    };

    /// The tag at `time` after the start, microstep `microstep`.
    pub fn new(time: Duration, microstep: u32) -> Tag {
        Tag {
            time: nanos(time),
            microstep,
        }
    }

    /// The tag `time_ns` nanoseconds after the start, microstep `microstep`.
    pub const fn from_nanos(time_ns: u64, microstep: u32) -> Tag {
        Tag {
            time: time_ns,
            microstep,
        }
    }

    /// Logical time since the start tag.
    pub fn time(self) -> Duration {
        Duration::from_nanos(self.time)
    }

    /// Logical time since the start tag, in nanoseconds.
    pub const fn nanos(self) -> u64 {
        self.time
    }

    /// The microstep.
    pub const fn microstep(self) -> u32 {
        self.microstep
    }

    /// The tag `d` later: the next microstep if `d` is zero, else microstep 0 at time + `d`.
    pub fn delay(self, d: Duration) -> Tag {
        self.delay_nanos(nanos(d))
    }

    /// As [`Tag::delay`], with the delay in nanoseconds.
    pub const fn delay_nanos(self, d: u64) -> Tag {
        if d == 0 {
            Tag {
                time: self.time,
                microstep: self.microstep.saturating_add(1),
            }
        } else {
            Tag {
                time: self.time.saturating_add(d),
                microstep: 0,
            }
        }
    }
}

/// A duration in nanoseconds, saturating at `u64::MAX` (584 years).
#[inline]
pub(crate) fn nanos(d: Duration) -> u64 {
    d.as_secs()
        .checked_mul(1_000_000_000)
        .and_then(|s| s.checked_add(u64::from(d.subsec_nanos())))
        .unwrap_or(u64::MAX)
}

/// Writes a nanosecond count in the largest unit that divides it (`10 ms`, `1500 us`, `3 s`).
pub(crate) fn fmt_nanos(ns: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    const UNITS: [(u64, &str); 4] = [
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    for (scale, unit) in UNITS {
        if ns == 0 {
            return f.write_str("0");
        }
        if ns.is_multiple_of(scale) {
            return write!(f, "{} {}", ns / scale, unit);
        }
    }
    write!(f, "{ns} ns")
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        fmt_nanos(self.time, f)?;
        write!(f, ", {})", self.microstep)
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn order_is_lexicographic() {
        let a = Tag::from_nanos(5, 9);
        let b = Tag::from_nanos(6, 0);
        assert!(a < b);
        assert!(Tag::from_nanos(5, 1) < Tag::from_nanos(5, 2));
    }

    #[test]
    fn display_picks_the_unit() {
        assert_eq!(format!("{}", Tag::from_nanos(10_000_000, 1)), "(10 ms, 1)");
        assert_eq!(format!("{}", Tag::ZERO), "(0, 0)");
        assert_eq!(format!("{}", Tag::from_nanos(1_500, 0)), "(1500 ns, 0)");
    }

    #[test]
    fn delay_saturates() {
        assert_eq!(
            Tag::from_nanos(u64::MAX - 1, 0).delay_nanos(5).nanos(),
            u64::MAX
        );
    }
}
