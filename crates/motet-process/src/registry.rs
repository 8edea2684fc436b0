//! The registry of a process system's processes: what lets `wait` count them and `shutdown` reach
//! the ones parked on channels (a parked process is referenced only by the wait queues it sits in,
//! so without the registry a cycle of parked processes could never be released).
//!
//! It keeps two things, both sharded by thread (threads are dealt shards in turn, see
//! [`home_shard`]), so that the workers rarely write a cache line another worker writes too:
//!
//! - **Counts.** Each shard counts the processes spawned and the processes finished on its
//!   threads. A process spawned on one worker and finished on another (the common case on a pool:
//!   a driver forks, the other worker steals) bumps one counter on each side instead of moving a
//!   shared counter's cache line between the two workers. The number alive is the sum of the
//!   spawned counts less the sum of the finished ones, read finished first (see [`Registry::live`]).
//! - **Parked processes.** A process registers the first time it parks (its poll returns
//!   `Pending`), in the shard of the thread that runs it then, and leaves when it finishes. A
//!   process that never parks (a forked worker that finds its one message waiting) never touches
//!   the registry; one that parks is found by `shutdown` wherever it sits. Each shard is a slab: a
//!   vector of entries, each either a process pointer (even: headers are aligned) or a link in the
//!   list of free entries (odd). Registering takes a free entry, leaving puts it back; neither
//!   touches another process's memory. The process keeps its shard and entry in its header (a
//!   32-bit slot).
//!
//! Measured on Fork Join creation (40,000 processes, each spawned by a driver process, sent one
//! message and finished) on 2 workers: registering every process at its spawn in the spawner's
//! shard made the other worker, which finished most of them, take that shard's lock and write its
//! entries once per process, moving both cache lines between the workers twice per process.

use std::ptr::NonNull;

use crossbeam_utils::CachePadded;

use crate::lock::SpinLock;
use crate::process::Header;
use crate::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// Number of shards (a power of two); two in the loom models, whose state space grows with every lock.
const SHARDS: usize = if cfg!(loom) { 2 } else { 32 };

#[derive(Default)]
struct Shard {
    /// Process pointers (even) and free-list links (odd: `(next_free + 1) << 1 | 1`, 0 = end).
    entries: Vec<usize>,
    /// The first free entry plus one; 0 if none.
    free: usize,
    /// Set by `close`: no process may register any more.
    closed: bool,
}

/// The processes spawned and finished on the threads of one shard.
#[derive(Default)]
struct Counts {
    spawned: AtomicUsize,
    finished: AtomicUsize,
}

/// A process system's live processes: their counts, and the ones that have parked.
pub(crate) struct Registry {
    shards: Box<[CachePadded<SpinLock<Shard>>]>,
    counts: Box<[CachePadded<Counts>]>,
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            shards: (0..SHARDS)
                .map(|_| CachePadded::new(SpinLock::new(Shard::default())))
                .collect(),
            counts: (0..SHARDS)
                .map(|_| CachePadded::new(Counts::default()))
                .collect(),
        }
    }

    /// Counts a process as spawned: before it is scheduled, so that it is alive for
    /// [`live`](Registry::live) until its [`finished`](Registry::finished).
    #[inline]
    pub(crate) fn spawned(&self) {
        // SeqCst, as every access to the counts: see `live`.
        self.counts[home_shard()].spawned.fetch_add(1, SeqCst);
    }

    /// Counts a process as finished: the last thing its run does with the system.
    #[inline]
    pub(crate) fn finished(&self) {
        self.counts[home_shard()].finished.fetch_add(1, SeqCst);
    }

    /// The number of processes alive (spawned and not finished).
    ///
    /// Every finished count is read before any spawned count. A process's spawn is counted before
    /// it can run (its spawner counts it, then schedules it), so a finish seen by the first pass
    /// has its spawn seen by the second: the result is never below the number alive when the
    /// second pass ends, and zero means that every process counted as spawned had finished. (A
    /// process spawned after that by another process would have a spawner alive then.)
    pub(crate) fn live(&self) -> usize {
        let finished: usize = self
            .counts
            .iter()
            .map(|c| c.finished.load(SeqCst))
            .fold(0, usize::wrapping_add);
        let spawned: usize = self
            .counts
            .iter()
            .map(|c| c.spawned.load(SeqCst))
            .fold(0, usize::wrapping_add);
        spawned.wrapping_sub(finished)
    }

    /// Registers a process as parked (the first time it parks); false if the registry was closed
    /// (the system shut down: the caller cancels the process).
    ///
    /// # Safety
    /// `header` is a live process that is not registered, run by the calling thread.
    pub(crate) unsafe fn insert(&self, header: NonNull<Header>) -> bool {
        let home = home_shard();
        let mut shard = self.shards[home].lock();
        if shard.closed {
            return false;
        }
        let index = if shard.free != 0 {
            let index = shard.free - 1;
            shard.free = shard.entries[index] >> 1;
            shard.entries[index] = header.as_ptr() as usize;
            if let Some(next) = shard.free.checked_sub(1) {
                // The next registration reads that entry's link first: a line often gone cold
                // since the entry was freed (a ring of 100,000 processes comes between), which
                // the load would wait for.
                motet_runtime::hint::prefetch((&shard.entries[next] as *const usize).cast());
            }
            index
        } else {
            shard.entries.push(header.as_ptr() as usize);
            shard.entries.len() - 1
        };
        let slot = u32::try_from(index * SHARDS + home + 1).unwrap_or_else(|_| too_many());
        // SAFETY: the slot is written and read only by the thread running the process: here, in
        // a run, and in `remove`, in a later run (runs are ordered by the process's state word).
        unsafe { *header.as_ref().registry_slot.get() = slot };
        true
    }

    /// Unregisters a process if it registered.
    ///
    /// # Safety
    /// `header` is a live process, run by the calling thread.
    pub(crate) unsafe fn remove(&self, header: NonNull<Header>) {
        // SAFETY: as in `insert`.
        let slot = unsafe { *header.as_ref().registry_slot.get() } as usize;
        if slot == 0 {
            return;
        }
        let (index, home) = ((slot - 1) / SHARDS, (slot - 1) % SHARDS);
        let mut shard = self.shards[home].lock();
        debug_assert_eq!(shard.entries[index], header.as_ptr() as usize);
        shard.entries[index] = (shard.free << 1) | 1;
        shard.free = index + 1;
    }

    /// Closes every shard (later inserts fail) and calls `f` on every registered process, under its
    /// shard's lock (so the process cannot leave and be freed meanwhile). `f` must not block and
    /// must not run user code.
    pub(crate) fn close_and_for_each(&self, mut f: impl FnMut(NonNull<Header>)) {
        for shard in self.shards.iter() {
            let mut shard = shard.lock();
            shard.closed = true;
            for &entry in &shard.entries {
                if entry & 1 == 0 {
                    // SAFETY: even entries are registered processes, alive while registered.
                    f(unsafe { NonNull::new_unchecked(entry as *mut Header) });
                }
            }
        }
    }
}

/// Ends the process: a shard holds more entries than a process's header can name (its slot is 32
/// bits: over 2^27 processes parked on the threads of one shard). Aborting, since the process
/// that could not register is in the middle of its run.
#[cold]
#[inline(never)]
fn too_many() -> ! {
    eprintln!("motet-process: too many parked processes in one registry shard");
    std::process::abort()
}

/// The shard the calling thread registers its spawns in: dealt in turn to threads as they first
/// spawn (a worker keeps its shard for its life), so that up to `SHARDS` threads spawn without
/// sharing a lock.
fn home_shard() -> usize {
    #[cfg(not(loom))]
    {
        use std::cell::Cell;
        use std::sync::atomic::{AtomicUsize, Ordering};

        /// The next shard to deal.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        thread_local! {
            static HOME: Cell<usize> = const { Cell::new(usize::MAX) };
        }
        HOME.with(|home| {
            let mut shard = home.get();
            if shard == usize::MAX {
                // Relaxed: only spreads threads over shards; any value is correct.
                shard = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
                home.set(shard);
            }
            shard
        })
    }
    // Under loom one shard serves every thread: every spawn and completion meets on one lock, the
    // case worth exploring.
    #[cfg(loom)]
    0
}
