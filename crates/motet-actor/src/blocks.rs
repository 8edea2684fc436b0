//! The block cache of message nodes and actor cells (see `motet_runtime::alloc`).
//!
//! Every message is one node, allocated by the sender and freed by the receiver; on one worker
//! (and for actors that talk within a worker) that is the same thread, and a node freed by one
//! turn is the next one another turn allocates. Actors that live briefly (fib's and uct's trees,
//! fjcreate's workers) are the same story with cells.
//!
//! The parameters, and why:
//!
//! - **8-byte classes up to 256 bytes, aligned to 8**: message nodes are small (a link and the
//!   message, 16 to 40 bytes for most messages), and rounding them to 16 would put them in larger
//!   blocks than the allocator itself gives them.
//! - **Bins of 512, full bins shared between threads, at most 512 KiB a class**: on two workers a
//!   message is often allocated on one thread and freed on the other (a producer on one worker
//!   flooding a consumer stolen by the other; neighbours of a grid spread over both). One thread's
//!   bin then only fills and the other's only empties, and without sharing every message costs an
//!   allocation on one side and the allocator's cross-thread free on the other (in mimalloc an
//!   atomic push, collected later by the owner). Sharing full bins costs one lock per bin instead.

use motet_runtime::alloc::CacheConfig;

motet_runtime::block_cache! {
    /// Message nodes and actor cells.
    pub(crate) struct Blocks = CacheConfig::new()
        .grain(8)
        .align(8)
        .classes(32)
        .bin_blocks(512)
        .share_full_bins(512 << 10, usize::MAX);
}
