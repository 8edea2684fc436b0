//! A per-thread cache of freed behaviour blocks.
//!
//! Every `when` allocates one block (header, slots, closure, result) and the worker that runs the
//! behaviour frees it; in a chain of behaviours on one worker the block one behaviour frees is the
//! next one a spawn allocates. A small free list per size class per thread serves those
//! allocations without a call into the allocator (the actor crate measured malloc and free at a
//! quarter of the instructions of its message path without such a cache).
//!
//! Cached blocks have a size that is a multiple of [`GRAIN`] and are allocated with alignment
//! [`ALIGN`], whatever alignment (up to [`ALIGN`]) the caller asked for, so a class holds blocks of
//! exactly one layout and can hand any of them to any request of that class. (Behaviour blocks are
//! 8-aligned unless a closure needs more; allocators serve 8-aligned requests on their fastest
//! path.) Each class keeps at
//! most [`CAP`] blocks; beyond that, and for large or over-aligned blocks, the global allocator is
//! used directly. A thread's cache is emptied when the thread exits (by a guard registered when the
//! first block is kept, so that the cache itself needs no destructor, and its accesses no check of
//! one: measured with callgrind, a few instructions per allocation and per free), or by
//! [`release_thread_cache`].
//!
//! # Blocks freed on another thread
//!
//! On two workers a block is often freed by another thread than the one that allocated it (a
//! driver's long turn spawns, the other worker runs): that thread's bin fills, and the rest go to
//! mimalloc's cross-thread free, which the allocating thread collects page by page. `perf record
//! -e cpu-clock` of Savina's banking for BoC at two workers puts 13 to 24 % of the samples in
//! `mi_free`, `_mi_page_free_collect` and `_mi_theap_malloc_zero`, against 2 % at one worker.
//! Handing such blocks back in batches was tried: a full bin spilled its newest 128 blocks into a
//! process-wide depot per class (at most 2 MiB of blocks), and an empty bin took a batch from it
//! before asking the allocator. Against the cache as it is, the two binaries alternating, `chrt
//! -f 10 motet-savina run banking fib philosopher fjthrput --model boc --threads 1,2 --iterations
//! 9 --warmup 1`, four rounds, medians of the rounds' medians, ms: banking at two workers 5.14 →
//! 4.21 and fjthrput 28.9 → 12.8 (mimalloc left their profiles), but philosopher at two workers
//! 3.83 → 12.1 and fjthrput at one worker 17.0 → 102 (its 600,000 blocks came back from the
//! depot in an order that ran `behaviour::run` into cache misses). Spilling only while another
//! thread ran short of the class and the freeing thread's own bin had not, taking the oldest
//! batch first, or always leaving four batches to cool, brought fjthrput at one worker back to
//! within 5 to 15 %, but not philosopher at two workers (9 to 23 ms against 3.5 to 6.7 in the
//! same rounds). So blocks still go back through the allocator.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

/// Size granule of cached blocks.
const GRAIN: usize = 16;
/// Alignment of cached blocks.
const ALIGN: usize = 8;
/// Size classes: 16, 32, ..., 16 * CLASSES bytes.
const CLASSES: usize = 32;
/// Blocks kept per class per thread.
const CAP: usize = 256;

/// The cache's life on its thread: blocks are kept only while a [`Guard`] will free them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing kept yet, no guard registered.
    Unguarded,
    /// The thread's guard empties the cache when the thread exits.
    Guarded,
    /// The guard has run (the thread is exiting): blocks go straight to the allocator.
    Closed,
}

struct Cache {
    bins: [Bin; CLASSES],
    state: State,
}

/// One class's free list, and its limit next to it (one cache line holds what a free reads).
struct Bin {
    blocks: Vec<NonNull<u8>>,
    /// How many blocks the bin may hold without a check: [`CAP`] once the thread's guard is
    /// registered and the buffer holds [`CAP`] blocks, 0 before (and once the guard has run). A
    /// free then costs one comparison of the bin's length with it: measured with callgrind,
    /// about 5 instructions less per behaviour than checking the cap, the guard's state and the
    /// buffer's capacity on each free.
    limit: usize,
}

impl Bin {
    const EMPTY: Bin = Bin {
        blocks: Vec::new(),
        limit: 0,
    };
}

impl Cache {
    fn clear(&mut self) {
        for (class, bin) in self.bins.iter_mut().enumerate() {
            let layout = class_layout(class);
            for p in bin.blocks.drain(..) {
                // SAFETY: every cached block was allocated with its class's layout.
                unsafe { dealloc(p.as_ptr(), layout) };
            }
        }
    }

    /// Frees every cached block and the bins' own buffers; later frees bypass the cache.
    fn close(&mut self) {
        self.clear();
        self.bins = [Bin::EMPTY; CLASSES];
        self.state = State::Closed;
    }

    /// A free that found `class`'s bin at its limit: opens the bin (registers the guard, reserves
    /// the bin's buffer) and keeps `p` if the bin is below [`CAP`]; false if the block must go to
    /// the allocator (the bin is full, or the thread is exiting).
    #[cold]
    fn keep_slow(&mut self, class: usize, p: NonNull<u8>) -> bool {
        if self.bins[class].blocks.len() >= CAP || (self.state != State::Guarded && !guard(self)) {
            return false;
        }
        let bin = &mut self.bins[class];
        bin.blocks.reserve_exact(CAP - bin.blocks.len());
        bin.blocks.push(p);
        bin.limit = CAP;
        true
    }
}

/// Empties this thread's cache when the thread exits.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: the cache is only touched by this thread, and not re-entrantly.
        let _ = CACHE.try_with(|c| unsafe { (&mut *c.get()).close() });
    }
}

thread_local! {
    // No destructor of its own (`ManuallyDrop`): every access is a plain thread-local access,
    // without the registration check that a thread-local with a destructor pays on each use. The
    // `GUARD`, registered when the first block is kept, empties it instead.
    static CACHE: UnsafeCell<ManuallyDrop<Cache>> = const {
        UnsafeCell::new(ManuallyDrop::new(Cache {
            bins: [Bin::EMPTY; CLASSES],
            state: State::Unguarded,
        }))
    };
    static GUARD: Guard = const { Guard };
}

/// Registers this thread's guard before the first block is kept; false once the thread is exiting
/// (the block must go to the allocator).
#[cold]
fn guard(cache: &mut Cache) -> bool {
    if cache.state == State::Closed || GUARD.try_with(|_| ()).is_err() {
        cache.state = State::Closed;
        return false;
    }
    cache.state = State::Guarded;
    true
}

fn class_layout(class: usize) -> Layout {
    // SAFETY: sizes are non-zero multiples of GRAIN far below isize::MAX; ALIGN is a power of two.
    unsafe { Layout::from_size_align_unchecked((class + 1) * GRAIN, ALIGN) }
}

/// The class of `layout`, if it is cached.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    if layout.align() <= ALIGN && layout.size() > 0 && layout.size() <= CLASSES * GRAIN {
        Some(layout.size().div_ceil(GRAIN) - 1)
    } else {
        None
    }
}

/// Allocates a block for `layout` (non-zero size), from this thread's cache if it can.
#[inline]
pub(crate) fn allocate(layout: Layout) -> NonNull<u8> {
    let layout = match class_of(layout) {
        Some(class) => {
            // SAFETY: the cache is only touched by this thread, and not re-entrantly (nothing in
            // here calls back into `allocate` or `release`).
            let cached = CACHE
                .try_with(|c| unsafe { (&mut *c.get()).bins[class].blocks.pop() })
                .ok()
                .flatten();
            if let Some(p) = cached {
                return p;
            }
            class_layout(class)
        }
        None => layout,
    };
    // SAFETY: a non-zero-sized layout (callers allocate behaviour blocks, never empty).
    let p = unsafe { alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout))
}

/// Frees a block that [`allocate`] returned for `layout`.
///
/// # Safety
/// `p` came from [`allocate`] with the same `layout` and is not used afterwards.
#[inline]
pub(crate) unsafe fn release(p: NonNull<u8>, layout: Layout) {
    let layout = match class_of(layout) {
        Some(class) => {
            // SAFETY: as in `allocate`.
            let kept = CACHE
                .try_with(|c| unsafe {
                    let cache = &mut **c.get();
                    let bin = &mut cache.bins[class];
                    let len = bin.blocks.len();
                    let limit = bin.limit;
                    if len < limit {
                        // SAFETY: below the limit, so the bin's buffer holds CAP blocks, more
                        // than `len` (see `Bin::limit`).
                        bin.blocks.as_mut_ptr().add(len).write(p);
                        bin.blocks.set_len(len + 1);
                        return true;
                    }
                    // A full bin (a burst of frees: a long chain drained) sends the block to the
                    // allocator without a call; only an unopened one takes the slow path.
                    limit != CAP && cache.keep_slow(class, p)
                })
                .unwrap_or(false);
            if kept {
                return;
            }
            class_layout(class)
        }
        None => layout,
    };
    // SAFETY: the caller's contract; cached classes were allocated with their class layout.
    unsafe { dealloc(p.as_ptr(), layout) };
}

/// Frees the blocks cached by the calling thread. Worker threads free theirs when they exit; call
/// this on other threads that spawned or ran behaviours when an exact count of live memory matters
/// (a leak check).
pub fn release_thread_cache() {
    // SAFETY: as in `allocate`.
    let _ = CACHE.try_with(|c| unsafe { (&mut *c.get()).clear() });
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A freed block of a class serves the next allocation of any size of that class; blocks
    /// beyond the classes go to the allocator and back.
    #[test]
    fn blocks_are_recycled_within_their_class() {
        for size in [
            1usize,
            24,
            56,
            100,
            CLASSES * GRAIN,
            CLASSES * GRAIN + 1,
            4096,
        ] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            let p = allocate(layout);
            // SAFETY: the block has `size` bytes; it is released once, with its layout.
            unsafe {
                std::ptr::write_bytes(p.as_ptr(), 0xA5, size);
                release(p, layout);
            }
            let again = allocate(layout);
            if size <= CLASSES * GRAIN {
                assert_eq!(again, p, "size {size} is cached");
                let sibling = Layout::from_size_align(size.div_ceil(GRAIN) * GRAIN, 8).unwrap();
                // SAFETY: as above.
                unsafe { release(again, layout) };
                let third = allocate(sibling);
                assert_eq!(third, p, "size {size}: one class, one block");
                // SAFETY: as above.
                unsafe { release(third, sibling) };
            } else {
                // SAFETY: as above.
                unsafe { release(again, layout) };
            }
        }
        release_thread_cache();
    }

    /// The first block a thread keeps registers its guard; the thread then exits cleanly (the
    /// guard empties the cache; the byte-exact leak test checks that nothing is left).
    #[test]
    fn the_first_kept_block_registers_the_guard() {
        std::thread::spawn(|| {
            let layout = Layout::from_size_align(64, 8).unwrap();
            let class = class_of(layout).unwrap();
            // SAFETY: only this thread touches its cache, and not re-entrantly.
            let state = || CACHE.with(|c| unsafe { (&*c.get()).state });
            assert!(state() == State::Unguarded);
            let blocks: Vec<_> = (0..10).map(|_| allocate(layout)).collect();
            for p in blocks {
                // SAFETY: fresh blocks of this layout, released once.
                unsafe { release(p, layout) };
            }
            assert!(state() == State::Guarded);
            // SAFETY: as above.
            let kept = CACHE.with(|c| unsafe { (&*c.get()).bins[class].blocks.len() });
            assert_eq!(kept, 10);
        })
        .join()
        .unwrap();
    }
}
