//! The physical clock: nanoseconds since a process-wide origin, and the platform that sleeps on it.
//!
//! motet-reactor installs this clock into motet-reactor-core (for stamping physical actions when they
//! are sent) the first time a runner is made, so that tags of physical actions and the scheduler's
//! view of physical time come from one clock.

use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use motet_reactor_core::{Clock, Inbox, Platform};

static ORIGIN: OnceLock<Instant> = OnceLock::new();

/// Nanoseconds since the process-wide origin.
pub fn now_ns() -> u64 {
    let origin = *ORIGIN.get_or_init(Instant::now);
    u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Makes physical sends stamp with [`now_ns`] (idempotent).
pub(crate) fn install() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| motet_reactor_core::set_clock(now_ns));
}

/// The std clock as core's [`Clock`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StdClock;

impl Clock for StdClock {
    fn now(&self) -> u64 {
        now_ns()
    }
}

/// Wakes the thread sleeping in [`StdPlatform::wait`] when a physical action arrives.
#[derive(Debug, Default)]
pub(crate) struct Waker {
    lock: Mutex<()>,
    cv: Condvar,
}

impl Waker {
    pub(crate) fn wake(&self) {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.cv.notify_all();
    }
}

/// Sleeps on the physical clock, interruptibly (see core's inbox protocol: the emptiness check is
/// made under the waker's lock, and senders notify under it).
#[derive(Debug)]
pub(crate) struct StdPlatform {
    waker: Arc<Waker>,
}

impl StdPlatform {
    /// A platform for a program whose inbox is `inbox`: installs the notifier.
    pub(crate) fn new(inbox: &Inbox) -> StdPlatform {
        install();
        let waker = Arc::new(Waker::default());
        let w = waker.clone();
        if !inbox.set_notify(Box::new(move || w.wake())) {
            // A notifier was installed by an earlier run of this program: never happens, since a
            // program runs once; without ours, sleeps are still bounded by their deadlines.
        }
        StdPlatform { waker }
    }
}

impl Clock for StdPlatform {
    fn now(&self) -> u64 {
        now_ns()
    }
}

/// How long before a deadline [`StdPlatform::wait`] stops sleeping and spins instead. A timed
/// condition-variable wait on Linux returns tens to hundreds of microseconds late (timer slack and
/// wake-up latency, as the `timing` example shows with sleeping alone), so the platform sleeps
/// until this much before the deadline and
/// polls the clock and the inbox for the rest. The price is this much busy CPU per wait that
/// reaches its deadline (a 1 kHz timer spins at most 15% of a core).
const SPIN_NS: u64 = 150_000;

/// Polls the clock and the inbox until `deadline` or until a value arrives, whichever is first.
fn spin_until(inbox: &Inbox, deadline: u64) {
    while inbox.is_empty() && now_ns() < deadline {
        std::hint::spin_loop();
    }
}

impl Platform for StdPlatform {
    fn wait(&mut self, inbox: &Inbox, deadline: Option<u64>) {
        if let Some(d) = deadline {
            if d.saturating_sub(now_ns()) <= SPIN_NS {
                spin_until(inbox, d);
                return;
            }
        }
        let guard = self.waker.lock.lock().unwrap_or_else(|e| e.into_inner());
        if !inbox.is_empty() {
            return;
        }
        match deadline {
            Some(d) => {
                // Sleep until SPIN_NS before the deadline; the caller waits again (an early
                // return is allowed) and the last stretch is spun.
                let now = now_ns();
                if d > now + SPIN_NS {
                    let _ = self
                        .waker
                        .cv
                        .wait_timeout(guard, Duration::from_nanos(d - now - SPIN_NS));
                }
            }
            None => {
                if inbox.keepalive() {
                    let _g = self.waker.cv.wait(guard);
                }
            }
        }
    }
}
