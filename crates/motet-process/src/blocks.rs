//! The block cache of processes and channels (see `motet_runtime::alloc`), so that a spawn reuses
//! the memory of a process that finished instead of asking the allocator for fresh memory.
//!
//! Every process is one allocation (its header and future) and most come with a channel (one
//! 64-byte line). Through the global allocator each spawn took a block from a page's free list,
//! which mimalloc builds lazily in fresh pages, and each finish gave one back to a list the
//! allocator only reads once the first runs dry: the memory a spawn got was rarely the memory
//! that was hot.
//!
//! The parameters, and why:
//!
//! - **16-byte classes up to 512 bytes, aligned to 16, and four line classes**: futures are
//!   16-aligned more often than not, and a channel is a line-aligned line.
//! - **No padding to whole lines**: a block a few bytes short of whole lines could be padded to
//!   them and line-aligned (`CacheConfig::pad_to_lines`), so that it touches as few lines as it
//!   can. A process's cell is now a motet-runtime task's (a few bytes smaller than before), and
//!   padding put it in a line-aligned class: every block the cache did not have then came from
//!   the allocator's aligned, over-allocating path, which costs far more than its plain one
//!   (docs/measurements/2026-11-28-task-api.md).
//! - **Bins of 512, full bins shared, at most 32 MiB on the shelves in all**: the shared bins let
//!   a worker that only frees (processes stolen from a driver on another worker) feed a thread
//!   that only spawns, and keep the blocks of a whole benchmark iteration (a ring of 100,000
//!   processes with their channels) for the next one.
//! - **Prefetching the next block**: a spawn writes the whole block at once, and a freed block
//!   that waited in a bin is usually out of the first-level caches; the stores to missing lines
//!   stalled the spawning loop of Fork Join creation.

use motet_runtime::alloc::CacheConfig;

motet_runtime::block_cache! {
    /// Process cells and channels.
    pub(crate) struct Blocks = CacheConfig::new()
        .grain(16)
        .align(16)
        .classes(32)
        .line_classes(4)
        .bin_blocks(512)
        .share_full_bins(usize::MAX, 32 << 20)
        .prefetch_next(true);
}
