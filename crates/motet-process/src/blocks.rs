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
//! - **Padding to whole lines, at most 16 bytes over the grain class**: a process's block is
//!   touched in whole passes (written at its spawn, read and written when it first parks, when it
//!   ends), each a cache miss per line once many processes outgrow the caches; a block of 3.5
//!   lines (a Thread Ring process) padded to four and aligned touches four lines always, and one
//!   of 2.75 lines three.
//! - **Bins of 512, full bins shared, at most 32 MiB on the shelves in all**: the shared bins let
//!   a worker that only frees (processes stolen from a driver on another worker) feed a thread
//!   that only spawns, and keep the blocks of a whole benchmark iteration (a ring of 100,000
//!   processes with their channels, about 21 MB) for the next one.
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
        .pad_to_lines(16)
        .bin_blocks(512)
        .share_full_bins(usize::MAX, 32 << 20)
        .prefetch_next(true);
}
