//! The completion counters of the actor and process programs: shard 0 alone in the default
//! programs, shard `i mod SHARDS` for actor or process i in the tuned ones (`sharded-counter`).
//! One benchmark runs at a time, and each iteration resets them.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// The shards, each on a cache line of its own.
static DONE: [CachePadded<AtomicU64>; SHARDS] =
    [const { CachePadded::new(AtomicU64::new(0)) }; SHARDS];

/// How many shards the tuned programs spread the completions over.
pub(super) const SHARDS: usize = 16;

/// Sets every shard to zero, at the start of an iteration.
pub(super) fn reset() {
    for shard in &DONE {
        shard.store(0, Ordering::Relaxed);
    }
}

/// Counts one completion on `shard` (below [`SHARDS`]).
#[inline]
pub(super) fn complete(shard: usize) {
    DONE[shard].fetch_add(1, Ordering::Relaxed);
}

/// The completions counted since the last [`reset`], over every shard.
pub(super) fn completions() -> u64 {
    DONE.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}
