//! The block cache: the trait a cache declared with [`block_cache!`](crate::block_cache)
//! implements, and its allocation and free paths.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;

use super::config::CacheConfig;
#[cfg(not(loom))]
use super::{
    bin::Bin,
    shared::SharedBins,
    thread_cache::{State, ThreadCache},
};

/// A per-thread cache of freed blocks, declared with [`block_cache!`](crate::block_cache) (see
/// the [module docs](super) for what it does).
///
/// ```
/// use std::alloc::Layout;
/// use motet_runtime::alloc::{BlockCache, CacheConfig};
///
/// motet_runtime::block_cache! {
///     /// Blocks of up to 512 bytes.
///     struct Blocks = CacheConfig::new();
/// }
///
/// let layout = Layout::new::<[u64; 4]>();
/// let block = Blocks::allocate(layout);
/// // SAFETY: allocated just above with this layout, and not used afterwards.
/// unsafe { Blocks::release(block, layout) };
/// assert_eq!(Blocks::allocate(layout), block); // the block freed last comes back first
/// # unsafe { Blocks::release(block, layout) };
/// ```
///
/// Under `cfg(loom)` every cache is off: blocks come from and go to the global allocator (loom
/// models check the protocols of the models, not this thread-local store; the shared part has
/// loom models of its own).
///
/// # Safety
/// Implemented by [`block_cache!`](crate::block_cache) only: `thread_cache` and `shared_bins`
/// return, on every call, a thread-local and a static that belong to this cache alone.
pub unsafe trait BlockCache: Sized + 'static {
    /// The classes and limits of this cache.
    const CONFIG: CacheConfig;

    /// This cache's bins on the calling thread.
    #[doc(hidden)]
    #[cfg(not(loom))]
    fn thread_cache() -> &'static std::thread::LocalKey<ThreadCache>;

    /// This cache's shared bins.
    #[doc(hidden)]
    #[cfg(not(loom))]
    fn shared_bins() -> &'static SharedBins;

    /// Allocates a block for `layout` (of non-zero size): the block of its class that this
    /// thread freed last, else a full bin's from the shared bins, else one from the global
    /// allocator. Aborts, as `Box` does, if the allocator fails.
    #[inline(always)]
    fn allocate(layout: Layout) -> NonNull<u8> {
        allocate::<Self>(layout)
    }

    /// Frees a block that [`allocate`](Self::allocate) returned: into this thread's bin of its
    /// class if it has room.
    ///
    /// # Safety
    /// `block` was returned by this cache's [`allocate`](Self::allocate) for `layout` (on any
    /// thread), and is not used afterwards.
    #[inline(always)]
    unsafe fn release(block: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { release::<Self>(block, layout) }
    }

    /// The layout a block for a `T` is allocated with: `T`'s own, or padded to whole lines (see
    /// [`CacheConfig::pad_to_lines`]).
    #[inline(always)]
    fn layout_for<T>() -> Layout {
        Self::CONFIG.block_layout(Layout::new::<T>())
    }

    /// Allocates uninitialised memory for a `T` (of non-zero size), with
    /// [`layout_for`](Self::layout_for).
    #[inline(always)]
    fn allocate_for<T>() -> NonNull<T> {
        Self::allocate(Self::layout_for::<T>()).cast()
    }

    /// Drops the `T` at `p` and frees its block.
    ///
    /// # Safety
    /// `p` came from [`allocate_for::<T>`](Self::allocate_for), holds an initialised `T` that
    /// nothing else uses, and is not used afterwards.
    #[inline(always)]
    unsafe fn drop_and_release<T>(p: NonNull<T>) {
        // SAFETY: the caller's contract.
        unsafe {
            std::ptr::drop_in_place(p.as_ptr());
            Self::release(p.cast(), Self::layout_for::<T>());
        }
    }

    /// Frees the blocks this thread's bins hold. A thread's bins are emptied when it exits; call
    /// this where an exact count of live memory matters before then (a test that counts the
    /// bytes a workload leaves behind, on a thread that goes on).
    fn release_thread_cache() {
        #[cfg(not(loom))]
        // SAFETY: on the owning thread; nothing else in here holds a reference to the cache.
        let _ = Self::thread_cache().try_with(|c| unsafe { c.get().clear::<Self>() });
    }

    /// Switches the sharing of full bins between threads off (or back on; on by default, where
    /// the configuration shares them). Off, a full bin keeps its blocks and every further block
    /// of its class goes to the allocator, and an empty bin does not look at the shared bins, so
    /// each thread keeps at most a bin per class: what a test that counts the bytes a workload
    /// leaves behind needs. Blocks already shared stay there. Not for production use.
    fn set_sharing(on: bool) {
        #[cfg(not(loom))]
        Self::shared_bins().set_on(on);
        #[cfg(loom)]
        let _ = on;
    }
}

/// A block from the global allocator; aborts if it fails.
#[inline(always)]
fn from_allocator(layout: Layout) -> NonNull<u8> {
    // SAFETY: callers pass a layout of non-zero size (a class layout, or the caller's).
    let p = unsafe { alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout))
}

/// [`BlockCache::allocate`].
#[cfg(loom)]
#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)] // the signature of the cached path it stands for
fn allocate<C: BlockCache>(layout: Layout) -> NonNull<u8> {
    debug_assert!(layout.size() > 0);
    from_allocator(layout)
}

/// [`BlockCache::release`].
///
/// # Safety
/// As for [`BlockCache::release`].
#[cfg(loom)]
#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)] // the signature of the cached path it stands for
unsafe fn release<C: BlockCache>(block: NonNull<u8>, layout: Layout) {
    // SAFETY: the caller's contract: under loom, `allocate` took the block from the allocator.
    unsafe { dealloc(block.as_ptr(), layout) }
}

/// [`BlockCache::allocate`].
#[cfg(not(loom))]
#[inline(always)]
fn allocate<C: BlockCache>(layout: Layout) -> NonNull<u8> {
    debug_assert!(layout.size() > 0);
    let config = &C::CONFIG;
    let Some(class) = config.class_of(layout) else {
        return from_allocator(layout);
    };
    let prefetch = config.prefetch.then(|| config.class_layout(class).size());
    // SAFETY: the cache is touched only by its thread, and not re-entrantly: nothing in here
    // calls back into this cache.
    let cached = C::thread_cache()
        .try_with(|c| unsafe { c.get().bins[class].pop(prefetch) })
        .ok()
        .flatten();
    if let Some(block) = cached {
        return block;
    }
    // The bin is empty: a full bin from the shared bins if they seem to hold one (a load tells),
    // or else the allocator.
    if config.sharing.is_some() && C::shared_bins().has_bins(class) {
        if let Some(block) = refill::<C>(class) {
            return block;
        }
    }
    from_allocator(config.class_layout(class))
}

/// Refills this thread's empty bin of `class` with a full bin from the shared bins and takes a
/// block from it. Out of line: it runs once per bin of allocations at most.
#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn refill<C: BlockCache>(class: usize) -> Option<NonNull<u8>> {
    let config = &C::CONFIG;
    let prefetch = config.prefetch.then(|| config.class_layout(class).size());
    // SAFETY: as in `allocate`: the shared bins' locks and vectors use the global allocator,
    // never this cache.
    C::thread_cache()
        .try_with(|c| unsafe {
            let cache = c.get();
            // The thread must be guarded, so that the blocks are freed when it exits.
            if !cache.guard::<C>() {
                return None;
            }
            cache.bins[class] = C::shared_bins().take(class, config)?;
            cache.bins[class].pop(prefetch)
        })
        .ok()
        .flatten()
}

/// What a free did with its block on the fast path.
#[cfg(not(loom))]
enum Kept {
    /// Into the bin.
    Yes,
    /// The bin is full and full bins are not shared: to the allocator.
    Full,
    /// The slow path decides: the bin is not open, or full and shareable, or the thread exiting.
    Slow,
}

/// [`BlockCache::release`].
///
/// # Safety
/// As for [`BlockCache::release`].
#[cfg(not(loom))]
#[inline(always)]
unsafe fn release<C: BlockCache>(block: NonNull<u8>, layout: Layout) {
    let config = &C::CONFIG;
    let Some(class) = config.class_of(layout) else {
        // SAFETY: the caller's contract: `allocate` took this layout straight to the allocator.
        unsafe { dealloc(block.as_ptr(), layout) };
        return;
    };
    // SAFETY: as in `allocate`; the block is the caller's to give up.
    let kept = C::thread_cache()
        .try_with(|c| unsafe {
            let bin = &mut c.get().bins[class];
            // A bin has room only while its thread is guarded (see `Bin`), so one comparison
            // decides the common case.
            if bin.try_push(block) {
                Kept::Yes
            } else if config.sharing.is_none() && bin.capacity() != 0 {
                // A burst of frees (a long chain drained) sends the block to the allocator
                // without a call; only an unopened bin takes the slow path.
                Kept::Full
            } else {
                Kept::Slow
            }
        })
        .unwrap_or(Kept::Slow);
    match kept {
        Kept::Yes => {}
        // SAFETY: the caller's contract; blocks of a class are allocated with its layout.
        Kept::Full => unsafe { dealloc(block.as_ptr(), config.class_layout(class)) },
        // SAFETY: the caller's contract.
        Kept::Slow => unsafe { release_slow::<C>(block, class) },
    }
}

/// A free that found its bin not open (the thread's first block of the class, or a thread not
/// guarded yet or exiting), or full with full bins shared: opens the bin, or hands the full bin
/// to the shared bins (or, without room there, its blocks back to the allocator) and starts a
/// new one. Out of line, so that the common case stays a push.
///
/// # Safety
/// As for [`BlockCache::release`]; `class` is the block's class.
#[cfg(not(loom))]
#[cold]
#[inline(never)]
unsafe fn release_slow<C: BlockCache>(block: NonNull<u8>, class: usize) {
    let config = &C::CONFIG;
    // SAFETY: as in `allocate`.
    let kept = C::thread_cache()
        .try_with(|c| unsafe {
            let cache = c.get();
            if cache.state != State::Guarded && !cache.guard::<C>() {
                return false;
            }
            let bin = &mut cache.bins[class];
            if bin.capacity() == 0 {
                // The class's first block on this thread: its bin gets its room.
                bin.open(config.bin_blocks);
            } else if bin.len() >= bin.capacity() && !spill::<C>(bin, class) {
                return false;
            }
            bin.try_push(block)
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: blocks of a class are allocated with the class's layout.
        unsafe { dealloc(block.as_ptr(), config.class_layout(class)) };
    }
}

/// Empties a full bin of `class`: into the shared bins or, if they have no room, back to the
/// allocator, a whole bin at a time (so that a thread that only frees pays this once per bin).
/// False, leaving the bin full, if full bins are not shared (not configured, or switched off):
/// the caller then frees its one block to the allocator.
#[cfg(not(loom))]
fn spill<C: BlockCache>(bin: &mut Bin, class: usize) -> bool {
    let config = &C::CONFIG;
    let shared = C::shared_bins();
    if config.sharing.is_none() || !shared.is_on() {
        return false;
    }
    if shared.has_room(class, config) {
        let full = std::mem::replace(bin, Bin::EMPTY);
        match shared.offer(full, class, config) {
            Ok(()) => {
                bin.open(config.bin_blocks);
                return true;
            }
            // Another thread filled the shelf meanwhile.
            Err(refused) => *bin = refused,
        }
    }
    // No room: the blocks go back to the allocator, and the emptied buffer serves as the new bin.
    bin.free_all(config.class_layout(class));
    true
}
