//! Optional per-worker counters (feature `metrics`); with the feature off, every counter update
//! compiles to nothing.

#[cfg(feature = "metrics")]
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Counters of one worker, updated only by that worker (relaxed atomics, read by snapshots).
#[derive(Debug, Default)]
pub(crate) struct WorkerCounters {
    #[cfg(feature = "metrics")]
    tasks: AtomicU64,
    #[cfg(feature = "metrics")]
    slot: AtomicU64,
    #[cfg(feature = "metrics")]
    steals: AtomicU64,
    #[cfg(feature = "metrics")]
    parks: AtomicU64,
    #[cfg(feature = "metrics")]
    slot_steals: AtomicU64,
    #[cfg(feature = "metrics")]
    failed_steals: AtomicU64,
    #[cfg(feature = "metrics")]
    wakes: AtomicU64,
    #[cfg(feature = "metrics")]
    backoffs: AtomicU64,
}

/// Which counter to bump.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    /// A task turn ran.
    Task,
    /// A task was taken from the next-task slot.
    Slot,
    /// Tasks were taken from another worker or the injector.
    Steal,
    /// The worker parked.
    Park,
    /// A task was taken from another worker's next-task slot.
    SlotSteal,
    /// A search of every other worker's queues and the injector found nothing.
    FailedSteal,
    /// The worker woke another one (a futex wake on its behalf).
    Wake,
    /// The worker backed off before searching, after steals that did not pay.
    Backoff,
}

impl WorkerCounters {
    /// Adds one to `c`.
    #[cfg(feature = "metrics")]
    #[inline(always)]
    pub(crate) fn bump(&self, c: Counter) {
        let cell = match c {
            Counter::Task => &self.tasks,
            Counter::Slot => &self.slot,
            Counter::Steal => &self.steals,
            Counter::Park => &self.parks,
            Counter::SlotSteal => &self.slot_steals,
            Counter::FailedSteal => &self.failed_steals,
            Counter::Wake => &self.wakes,
            Counter::Backoff => &self.backoffs,
        };
        cell.store(cell.load(Relaxed) + 1, Relaxed);
    }

    #[cfg(feature = "metrics")]
    pub(crate) fn snapshot(&self) -> WorkerMetrics {
        WorkerMetrics {
            tasks_run: self.tasks.load(Relaxed),
            slot_handoffs: self.slot.load(Relaxed),
            steals: self.steals.load(Relaxed),
            parks: self.parks.load(Relaxed),
            slot_steals: self.slot_steals.load(Relaxed),
            failed_steals: self.failed_steals.load(Relaxed),
            wakes: self.wakes.load(Relaxed),
            backoffs: self.backoffs.load(Relaxed),
        }
    }
}

/// What one worker has done since the runtime started (feature `metrics`).
#[cfg(feature = "metrics")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerMetrics {
    /// Task turns run.
    pub tasks_run: u64,
    /// Turns whose task came from the next-task slot (a direct hand-off).
    pub slot_handoffs: u64,
    /// Successful steals from the injector or another worker.
    pub steals: u64,
    /// Times the worker went to sleep.
    pub parks: u64,
    /// Tasks taken from another worker's next-task slot (also counted in `steals`).
    pub slot_steals: u64,
    /// Searches of the other workers' queues and the injector that found nothing.
    pub failed_steals: u64,
    /// Parked workers this worker woke.
    pub wakes: u64,
    /// Times the worker backed off before searching, after steals that did not pay.
    pub backoffs: u64,
}
