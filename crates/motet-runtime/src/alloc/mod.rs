//! The allocation layer the models use: per-thread caches of freed blocks, and (feature
//! `mimalloc`) mimalloc as a global allocator.
//!
//! # Block caches
//!
//! Every actor message is a node allocated by its sender and freed by its receiver, every
//! behaviour one block, every process one block and most of them a channel; on one worker the
//! block one turn frees is the one the next allocates. A per-thread cache of freed blocks, a
//! *bin* of blocks per size class, serves those allocations without a call into the allocator
//! (whose malloc and free otherwise weigh heavily on the message and spawn paths), and hands out
//! the block freed last, whose lines are the likeliest to be in cache.
//!
//! A model declares its cache with [`block_cache!`](crate::block_cache), naming a
//! [`CacheConfig`], and allocates through the [`BlockCache`] trait:
//!
//! ```
//! use std::alloc::Layout;
//! use motet_runtime::alloc::{BlockCache, CacheConfig};
//!
//! motet_runtime::block_cache! {
//!     /// Cells of 8-byte classes up to 256 bytes; full bins shared between threads.
//!     pub(crate) struct Cells = CacheConfig::new()
//!         .grain(8)
//!         .align(8)
//!         .classes(32)
//!         .bin_blocks(512)
//!         .share_full_bins(512 << 10, usize::MAX);
//! }
//!
//! let cell = Cells::allocate_for::<[u64; 5]>();
//! // SAFETY: a fresh block for a `[u64; 5]`, written before it is read, released once.
//! unsafe {
//!     cell.as_ptr().write([1; 5]);
//!     Cells::drop_and_release(cell);
//! }
//! ```
//!
//! Each declared cache has its own bins on each thread and its own shared bins, so the models'
//! caches do not mix blocks, and each keeps the parameters measured for its use:
//!
//! - **classes**: a size step ([`CacheConfig::grain`]) and the alignment blocks get
//!   ([`CacheConfig::align`]); a cache of 8-byte classes keeps a 24-byte message node in a 24-byte
//!   block, one of 16-byte classes in 32. Line classes ([`CacheConfig::line_classes`]) take
//!   line-aligned blocks, and [`CacheConfig::pad_to_lines`] pads a type to whole lines where that
//!   is cheap;
//! - **bin size** ([`CacheConfig::bin_blocks`]): how many blocks a thread keeps per class;
//! - **sharing full bins** ([`CacheConfig::share_full_bins`]): a thread whose bin is full hands it
//!   whole to the cache's shared bins, and a thread whose bin is empty takes one, as Bonwick's
//!   slab allocator trades full and empty magazines through its depot. That pays where blocks are
//!   allocated on one thread and freed on another (messages between workers, processes spawned
//!   by one worker and finished by another): one lock per bin of blocks instead of the
//!   allocator's cross-thread free per block. It does not pay everywhere: for behaviours it made
//!   blocks come back in an order that ran into cache misses, so a cache without it sends a full
//!   bin's further frees to the allocator;
//! - **prefetching** ([`CacheConfig::prefetch_next`]) of the block the next allocation returns.
//!
//! A thread's bins are emptied when it exits (by a hook registered with the first block it keeps,
//! so that the bins themselves need no destructor and their accesses no registration check); the
//! shared bins are emptied when the last thread that cached blocks exits. Layouts outside the
//! classes go to the global allocator directly.
//!
//! The pieces, a file each: `config` (classes and limits), `bin` (a bin of blocks), `thread_cache`
//! (a thread's bins and their life), `shared` (the shared bins and their loom models), `cache`
//! (the allocation and free paths), `mimalloc` (the global allocator).

#[cfg_attr(loom, allow(dead_code))]
mod bin;
mod cache;
#[cfg_attr(loom, allow(dead_code))]
mod config;
#[cfg(feature = "mimalloc")]
mod mimalloc;
#[cfg_attr(loom, allow(dead_code))]
mod shared;
#[cfg(all(test, not(loom)))]
mod tests;
#[cfg(not(loom))]
mod thread_cache;

pub use cache::BlockCache;
pub use config::CacheConfig;
#[cfg(feature = "mimalloc")]
pub use mimalloc::Mimalloc;
#[doc(hidden)]
pub use shared::SharedBins;
#[doc(hidden)]
#[cfg(not(loom))]
pub use thread_cache::ThreadCache;

/// Declares a block cache: a unit struct implementing [`BlockCache`] with the given
/// [`CacheConfig`], its bins on every thread and its shared bins.
///
/// ```
/// use motet_runtime::alloc::{BlockCache, CacheConfig};
/// motet_runtime::block_cache! {
///     /// Behaviour blocks.
///     pub struct Blocks = CacheConfig::new().grain(16).align(8).bin_blocks(256);
/// }
/// let block = Blocks::allocate(std::alloc::Layout::new::<u64>());
/// // SAFETY: allocated just above with this layout, released once.
/// unsafe { Blocks::release(block, std::alloc::Layout::new::<u64>()) };
/// ```
///
/// The configuration is checked when the crate compiles ([`CacheConfig::checked`](crate::alloc::CacheConfig::checked)).
#[macro_export]
macro_rules! block_cache {
    ($(#[$attr:meta])* $vis:vis struct $name:ident = $config:expr;) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug)]
        $vis struct $name;

        // SAFETY: the thread-local and the static returned below are declared here, for this
        // cache alone, and every call returns the same ones.
        unsafe impl $crate::alloc::BlockCache for $name {
            const CONFIG: $crate::alloc::CacheConfig = $config.checked();

            $crate::__cache_storage! {
                #[inline(always)]
                fn thread_cache() -> &'static ::std::thread::LocalKey<$crate::alloc::ThreadCache> {
                    ::std::thread_local! {
                        static CACHE: $crate::alloc::ThreadCache =
                            const { $crate::alloc::ThreadCache::new() };
                    }
                    &CACHE
                }

                #[inline(always)]
                fn shared_bins() -> &'static $crate::alloc::SharedBins {
                    static SHARED: $crate::alloc::SharedBins = $crate::alloc::SharedBins::new();
                    &SHARED
                }
            }
        }
    };
}

/// The storage of a block cache; nothing under `cfg(loom)`, where caches are off (decided by this
/// crate's configuration, whatever the crate that declares the cache).
#[doc(hidden)]
#[cfg(not(loom))]
#[macro_export]
macro_rules! __cache_storage {
    ($($item:item)*) => { $($item)* };
}

/// The storage of a block cache; nothing under `cfg(loom)`, where caches are off.
#[doc(hidden)]
#[cfg(loom)]
#[macro_export]
macro_rules! __cache_storage {
    ($($item:item)*) => {};
}
