//! A fork's record and the meal's busy-wait, shared by both versions.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// What a fork saw: the meals it served and the times it was taken while another meal held it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fork {
    /// Meals this fork served (as a left or a right fork).
    pub meals: u64,
    /// Takes of this fork while it was marked held: each one is a broken exclusion.
    pub overlaps: u64,
    /// Whether a meal holds the fork now.
    pub(super) held: bool,
}

impl Fork {
    /// Marks the fork held by a meal, counting an overlap if it already was.
    fn take(&mut self) {
        if black_box(&mut *self).held {
            self.overlaps += 1;
        }
        self.held = true;
        black_box(&mut *self);
    }

    /// Marks the fork free again and counts the meal.
    fn put_down(&mut self) {
        self.held = false;
        self.meals += 1;
    }
}

/// One meal: takes both forks, busy-waits `eat`, puts them down.
pub(crate) fn meal(left: &mut Fork, right: &mut Fork, eat: Duration) {
    left.take();
    right.take();
    spin(eat);
    left.put_down();
    right.put_down();
}

/// Busy-waits (no sleep, no yield) for `length` of wall-clock time, as the paper's meals do.
fn spin(length: Duration) {
    let start = Instant::now();
    while start.elapsed() < length {
        std::hint::spin_loop();
    }
}
