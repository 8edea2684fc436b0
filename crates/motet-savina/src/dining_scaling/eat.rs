//! A fork's record and the meal's busy-wait, shared by both versions.

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::Clock;

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
pub(crate) fn meal(left: &mut Fork, right: &mut Fork, eat: Duration, clock: Clock) {
    left.take();
    right.take();
    match clock {
        Clock::Cpu => spin(eat),
        Clock::Wall => spin_wall(eat),
    }
    left.put_down();
    right.put_down();
}

/// Busy-waits (no sleep, no yield) until this thread has run for `length` of CPU time, as the
/// paper's meals spin for 1 ms. CPU time rather than wall-clock time: a thread preempted in the
/// middle of a meal (the mutex version runs a hundred threads on W CPUs; a loaded machine preempts
/// anything) must not count the time another thread ran as eating.
fn spin(length: Duration) {
    let start = thread_cpu_time();
    while thread_cpu_time().saturating_sub(start) < length {
        std::hint::spin_loop();
    }
}

/// Busy-waits for `length` of wall-clock time.
fn spin_wall(length: Duration) {
    let start = Instant::now();
    while start.elapsed() < length {
        std::hint::spin_loop();
    }
}

/// The CPU time this thread has used.
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a live, writable `timespec`; CLOCK_THREAD_CPUTIME_ID is always supported on
    // Linux, and on the impossible failure `now` stays zero (the spin then ends at once).
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Elsewhere, wall-clock time since the first call stands in for the thread's CPU time.
#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Duration {
    use std::sync::OnceLock;
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed()
}
