//! How a thread waits for a channel lock that another thread holds: spin, then yield, then sleep.
//!
//! # Why it cannot starve the holder
//!
//! A holder runs a short critical section that never blocks and runs no user code (see the
//! [parent module](super)). It can only be kept from finishing by losing its processor: the OS
//! preempted it, and the waiters occupy the processors it could run on. A waiter that spins or
//! yields stays runnable, and under `SCHED_FIFO` (or any policy where the waiter outranks the
//! holder) `sched_yield` hands the processor only to threads of the waiter's own priority, so a
//! yielding waiter can keep a lower-priority holder off its processor for good. Here a waiter spins
//! [`SPINS`] times and yields [`YIELDS`] times, then sleeps between looks at the lock word, for
//! [`MIN_SLEEP`] at first and twice as long after each look that finds the lock still held, up to
//! [`MAX_SLEEP`]. A sleeping thread is not runnable under any scheduling policy, so after a bounded
//! number of looks every waiter leaves the holder's processor to the holder for at least
//! [`MIN_SLEEP`] out of each cycle of sleeping and looking, and the holder finishes its section.
//!
//! The waiters that sleep are not woken by the unlock: a wake-up would cost every unlock a
//! read-modify-write (to learn whether anyone sleeps), where unlocking is now a plain store. A
//! sleeper notices the free lock at its next look, which is late by at most [`MAX_SLEEP`]; it
//! sleeps only once the lock has been held through all of its spins and yields, which in practice
//! means the holder was preempted, a delay of the order of the OS's time slice already.

use std::time::Duration;

use crate::sync::spin;

/// How many times a waiter spins (a CPU pause hint each) before it starts yielding its thread.
pub(crate) const SPINS: u32 = 64;
/// How many times a waiter yields its thread before it starts sleeping.
pub(crate) const YIELDS: u32 = 16;
/// A waiter's first sleep.
pub(crate) const MIN_SLEEP: Duration = Duration::from_micros(10);
/// A waiter's longest sleep.
pub(crate) const MAX_SLEEP: Duration = Duration::from_millis(1);

/// A waiter's progress through spinning, yielding and sleeping.
pub(crate) struct Backoff {
    /// How many times the waiter has waited so far.
    step: u32,
    /// The next sleep, once the waiter sleeps.
    sleep: Duration,
}

impl Backoff {
    pub(crate) fn new() -> Backoff {
        Backoff {
            step: 0,
            sleep: MIN_SLEEP,
        }
    }

    /// Waits once, before the caller looks at the lock word again.
    #[inline]
    pub(crate) fn wait(&mut self) {
        if self.step < SPINS {
            self.step += 1;
            spin();
        } else if self.step < SPINS + YIELDS {
            self.step += 1;
            std::thread::yield_now();
        } else {
            self.sleep_once();
        }
    }

    #[cold]
    fn sleep_once(&mut self) {
        std::thread::sleep(self.sleep);
        self.sleep = (self.sleep * 2).min(MAX_SLEEP);
    }
}
