//! Tags and offsets as reaction bodies of LF's Rust target name them: [`EventTag`] (a tag relative
//! to the start tag), [`Offset`] (`Asap`, `After(d)`), and the macros `delay!`, `after!`, `tag!` and
//! `assert_tag_is!`, which read LF's time units.

use std::fmt;
use std::time::Duration;

use motet_reactor::Tag;

/// A microstep.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct MicroStep(pub u32);

impl MicroStep {
    /// The microstep `u`.
    pub fn new(u: u32) -> MicroStep {
        MicroStep(u)
    }
}

impl fmt::Display for MicroStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::ops::Add<u32> for MicroStep {
    type Output = MicroStep;
    fn add(self, rhs: u32) -> MicroStep {
        MicroStep(self.0 + rhs)
    }
}

/// A tag: the time since the start tag (T0) and a microstep, ordered lexicographically.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct EventTag {
    /// Logical time since T0.
    pub offset_from_t0: Duration,
    /// The microstep.
    pub microstep: MicroStep,
}

impl EventTag {
    /// The start tag (T0, 0).
    pub const ORIGIN: EventTag = EventTag {
        offset_from_t0: Duration::ZERO,
        microstep: MicroStep(0),
    };

    /// The tag `offset` after T0, at microstep `microstep`.
    pub fn offset(offset: Duration, microstep: u32) -> EventTag {
        EventTag {
            offset_from_t0: offset,
            microstep: MicroStep(microstep),
        }
    }

    /// The tag of a motet tag.
    pub fn from_tag(tag: Tag) -> EventTag {
        EventTag::offset(tag.time(), tag.microstep())
    }

    /// The motet tag.
    pub fn tag(self) -> Tag {
        Tag::new(self.offset_from_t0, self.microstep.0)
    }

    /// Logical time since T0.
    pub fn duration_since_start(self) -> Duration {
        self.offset_from_t0
    }

    /// The microstep.
    pub fn microstep(self) -> u32 {
        self.microstep.0
    }
}

impl fmt::Display for EventTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(T0 + {} ns = {} ms, {})",
            self.offset_from_t0.as_nanos(),
            self.offset_from_t0.as_millis(),
            self.microstep
        )
    }
}

/// When a scheduled event, or a requested stop, takes effect: as soon as possible (one microstep
/// later, after an action's minimum delay), or a duration later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Offset {
    /// A duration later.
    After(Duration),
    /// As soon as possible.
    Asap,
}

impl Offset {
    /// The offset as a duration (`Asap` is zero).
    pub fn to_duration(self) -> Duration {
        match self {
            Offset::After(d) => d,
            Offset::Asap => Duration::ZERO,
        }
    }
}

/// A duration written with an LF time unit: `delay!(10 ms)`, `delay!(2 sec)`, `delay!(x min)`,
/// `delay!((1 + 2) h)`, `delay!(0)`.
///
/// ```
/// use motet_lf_runtime::delay;
/// assert_eq!(delay!(10 msec), std::time::Duration::from_millis(10));
/// assert_eq!(delay!(2 min), delay!(120 s));
/// ```
#[macro_export]
macro_rules! delay {
    (0) => { $crate::Duration::ZERO };
    ($n:tt ns) => { $crate::Duration::from_nanos(($n) as u64) };
    ($n:tt nsec) => { $crate::delay!($n ns) };
    ($n:tt nsecs) => { $crate::delay!($n ns) };
    ($n:tt us) => { $crate::Duration::from_micros(($n) as u64) };
    ($n:tt usec) => { $crate::delay!($n us) };
    ($n:tt usecs) => { $crate::delay!($n us) };
    ($n:tt ms) => { $crate::Duration::from_millis(($n) as u64) };
    ($n:tt msec) => { $crate::delay!($n ms) };
    ($n:tt msecs) => { $crate::delay!($n ms) };
    ($n:tt s) => { $crate::Duration::from_secs(($n) as u64) };
    ($n:tt sec) => { $crate::delay!($n s) };
    ($n:tt secs) => { $crate::delay!($n s) };
    ($n:tt second) => { $crate::delay!($n s) };
    ($n:tt seconds) => { $crate::delay!($n s) };
    ($n:tt min) => { $crate::Duration::from_secs(60 * ($n) as u64) };
    ($n:tt mins) => { $crate::delay!($n min) };
    ($n:tt minute) => { $crate::delay!($n min) };
    ($n:tt minutes) => { $crate::delay!($n min) };
    ($n:tt h) => { $crate::Duration::from_secs(3600 * ($n) as u64) };
    ($n:tt hour) => { $crate::delay!($n h) };
    ($n:tt hours) => { $crate::delay!($n h) };
    ($n:tt d) => { $crate::Duration::from_secs(86400 * ($n) as u64) };
    ($n:tt day) => { $crate::delay!($n d) };
    ($n:tt days) => { $crate::delay!($n d) };
    ($n:tt week) => { $crate::Duration::from_secs(604800 * ($n) as u64) };
    ($n:tt weeks) => { $crate::delay!($n week) };
}

/// `Offset::After(delay!(...))`.
///
/// ```
/// use motet_lf_runtime::{after, Offset};
/// assert_eq!(after!(10 ns), Offset::After(std::time::Duration::from_nanos(10)));
/// ```
#[macro_export]
macro_rules! after {
    ($n:tt $unit:tt) => { $crate::Offset::After($crate::delay!($n $unit)) };
}

/// A tag relative to T0: `tag!(T0)`, `tag!(T0 + 20 ms)`, `tag!(T0, 1)`, `tag!(T0 + 3 sec, 1)`.
///
/// ```
/// use motet_lf_runtime::{tag, EventTag};
/// assert_eq!(tag!(T0), EventTag::ORIGIN);
/// assert!(tag!(T0 + 20 ms) < tag!(T0 + 20 ms, 1));
/// ```
#[macro_export]
macro_rules! tag {
    (T0) => { $crate::EventTag::ORIGIN };
    (T0, $m:expr) => { $crate::EventTag::offset($crate::Duration::ZERO, $m) };
    (T0 + $n:tt $unit:ident) => { $crate::EventTag::offset($crate::delay!($n $unit), 0) };
    (T0 + $n:tt $unit:ident, $m:expr) => { $crate::EventTag::offset($crate::delay!($n $unit), $m) };
}

/// Asserts that the current tag is the one given as in [`tag!`]: `assert_tag_is!(ctx, T0 + 20 ms)`,
/// `assert_tag_is!(ctx, (T0 + 3 sec, 1))`.
#[macro_export]
macro_rules! assert_tag_is {
    ($ctx:tt, T0) => { assert_eq!($crate::tag!(T0), $ctx.get_tag()) };
    ($ctx:tt, (T0, $m:expr)) => { assert_eq!($crate::tag!(T0, $m), $ctx.get_tag()) };
    ($ctx:tt, T0 + $n:tt $unit:ident) => { assert_eq!($crate::tag!(T0 + $n $unit), $ctx.get_tag()) };
    ($ctx:tt, (T0 + $n:tt $unit:ident, $m:expr)) => {
        assert_eq!($crate::tag!(T0 + $n $unit, $m), $ctx.get_tag())
    };
}
