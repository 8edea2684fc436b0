//! The block cache of behaviours (see `motet_runtime::alloc`).
//!
//! Every `when` allocates one block (see the `behaviour::block` module) and the worker that runs the
//! behaviour frees it; in a chain of behaviours on one worker the block one behaviour frees is the
//! next one a spawn allocates.
//!
//! The parameters, and why:
//!
//! - **8-byte classes up to 288 bytes (as many as a cache has), aligned to 8**: behaviour blocks
//!   are 8-aligned unless a closure needs more, and allocators serve 8-aligned requests on their
//!   fastest path. The classes follow the blocks' sizes to the word, as the allocator's own small
//!   classes do, so that the blocks a spawn writes and a run reads back are the size of the
//!   behaviour (a single-cown detached behaviour is 40 bytes, which a 16-byte class would round
//!   up to 48). Larger blocks (a closure that captures much, a `when` over ten cowns or more) go
//!   to the allocator.
//! - **Bins of 256, full bins not shared**: on two workers a block is often freed by another thread
//!   than the one that allocated it (a driver's long turn spawns, the other worker runs), so that
//!   thread's bin fills and the rest go to the allocator's cross-thread free. Handing full bins
//!   back through shared bins was measured (see docs/measurements/2026-11-29-runtime.md, "Two
//!   workers on BoC's driver programs"): it sped banking and fjthrput up on two workers, but slowed
//!   philosopher on two workers and fjthrput on one (its blocks came back in an order that ran a
//!   behaviour's turn into cache misses) in every variant tried, and so did sharing a full bin
//!   only while another thread had run out (it slowed count, whose blocks all flow from the
//!   spawning thread to a worker: docs/measurements/2026-11-30-boc-banking-two-workers.md). So a
//!   full bin's further frees go to the allocator, without a call into the cache's slow path.

use motet_runtime::alloc::{BlockCache, CacheConfig};

motet_runtime::block_cache! {
    /// Behaviour blocks.
    pub(crate) struct Blocks = CacheConfig::new()
        .grain(8)
        .align(8)
        .classes(36)
        .bin_blocks(256);
}

/// Frees the blocks cached by the calling thread. Worker threads free theirs when they exit; call
/// this on other threads that spawned or ran behaviours when an exact count of live memory matters
/// (a leak check).
pub fn release_thread_cache() {
    Blocks::release_thread_cache();
}
