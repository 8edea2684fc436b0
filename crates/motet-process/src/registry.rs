//! The registry of a process system's live processes: what lets `wait` count them and `shutdown`
//! reach the ones parked on channels (a parked process is referenced only by the wait queues it sits
//! in, so without the registry a cycle of parked processes could never be released).
//!
//! It is sharded to keep spawning and finishing cheap on several workers: each thread registers the
//! processes it spawns in a shard of its own (threads are dealt shards in turn, see [`home_shard`]),
//! so spawns on different workers rarely meet on one lock, and one thread's spawns fill consecutive
//! entries of one vector instead of scattering over every shard (a driver that forks thousands of
//! processes touches a few cache lines of the registry, not one per shard). Each shard is a slab: a
//! vector of entries, each either a process pointer (even: headers are aligned) or a link in the list
//! of free entries (odd). Registering takes a free entry, leaving puts it back; neither touches
//! another process's memory. The process keeps its shard and entry index in its header.

use std::ptr::NonNull;

use crossbeam_utils::CachePadded;

use crate::lock::SpinLock;
use crate::process::Header;

/// Number of shards (a power of two); two in the loom models, whose state space grows with every lock.
const SHARDS: usize = if cfg!(loom) { 2 } else { 32 };

#[derive(Default)]
struct Shard {
    /// Process pointers (even) and free-list links (odd: `(next_free + 1) << 1 | 1`, 0 = end).
    entries: Vec<usize>,
    /// The first free entry plus one; 0 if none.
    free: usize,
    /// Registered processes.
    live: usize,
    /// Set by `close`: no process may register any more.
    closed: bool,
}

/// A process system's live processes.
pub(crate) struct Registry {
    shards: Box<[CachePadded<SpinLock<Shard>>]>,
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            shards: (0..SHARDS)
                .map(|_| CachePadded::new(SpinLock::new(Shard::default())))
                .collect(),
        }
    }

    /// Registers a process; false if the registry was closed (the system shut down).
    ///
    /// # Safety
    /// `header` is a live process that is not registered.
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
            index
        } else {
            shard.entries.push(header.as_ptr() as usize);
            shard.entries.len() - 1
        };
        shard.live += 1;
        // SAFETY: the slot is written here, before the process is shared, and read by `remove`,
        // which the process's run calls after it was scheduled (a release/acquire hand-over).
        unsafe { *header.as_ref().registry_slot.get() = index * SHARDS + home };
        true
    }

    /// Unregisters a process; returns whether its shard is now empty.
    ///
    /// # Safety
    /// `header` is a live, registered process.
    pub(crate) unsafe fn remove(&self, header: NonNull<Header>) -> bool {
        // SAFETY: as in `insert`.
        let slot = unsafe { *header.as_ref().registry_slot.get() };
        let (index, home) = (slot / SHARDS, slot % SHARDS);
        let mut shard = self.shards[home].lock();
        debug_assert_eq!(shard.entries[index], header.as_ptr() as usize);
        shard.entries[index] = (shard.free << 1) | 1;
        shard.free = index + 1;
        shard.live -= 1;
        shard.live == 0
    }

    /// The number of registered processes.
    pub(crate) fn live(&self) -> usize {
        self.shards.iter().map(|s| s.lock().live).sum()
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
