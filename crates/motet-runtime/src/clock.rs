//! Time as the runtime sees it: the physical clock, or a virtual one that only moves when the
//! deterministic scheduler runs out of work and jumps to the next timer.

use std::time::{Duration, Instant};

use crate::sync::{lock, Mutex};

/// The runtime's clock.
#[derive(Debug)]
pub(crate) enum Clock {
    /// `Instant::now()`.
    Physical,
    /// A logical clock: starts at `base` and advances only by [`Clock::advance_to`].
    Virtual {
        base: Instant,
        offset: Mutex<Duration>,
    },
}

impl Clock {
    /// A virtual clock starting now.
    pub(crate) fn new_virtual() -> Clock {
        Clock::Virtual {
            base: Instant::now(),
            offset: Mutex::new(Duration::ZERO),
        }
    }

    /// The current time.
    pub(crate) fn now(&self) -> Instant {
        match self {
            Clock::Physical => Instant::now(),
            Clock::Virtual { base, offset } => *base + *lock(offset),
        }
    }

    /// Moves a virtual clock forward to `t` (never backwards); no effect on the physical clock.
    pub(crate) fn advance_to(&self, t: Instant) {
        if let Clock::Virtual { base, offset } = self {
            let mut off = lock(offset);
            let target = t.saturating_duration_since(*base);
            if target > *off {
                *off = target;
            }
        }
    }
}
