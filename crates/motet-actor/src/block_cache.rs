//! A per-thread cache of freed small blocks: message nodes and actor cells.
//!
//! Every message is one node, allocated by the sender and freed by the receiver; on one worker (and
//! for actors that talk within a worker) that is the same thread, and a node freed by one turn is
//! the next one another turn allocates. Actors that live briefly (fib's and uct's trees, fjcreate's
//! workers) are the same story with cells. A small free list per size class per thread serves those
//! allocations without a call into the allocator: measured with callgrind on the Savina micro
//! benchmarks, malloc and free took about a quarter of all instructions before it.
//!
//! Every layout with an alignment of at most 8 and a size of at most `8 * CLASSES` bytes belongs to
//! the class of its size rounded up to a multiple of 8, and every block of a class is allocated and
//! freed with that class's layout (size rounded up, alignment 8), so any cached block can serve any
//! layout of its class and can go back to the global allocator with the layout it came from. Each
//! class keeps at most [`CAP`] blocks; beyond that, and for larger or over-aligned layouts, the
//! global allocator is used directly. The cache is emptied when its thread exits (by a guard
//! registered with the first block kept, so that the cache itself needs no destructor and its
//! accesses no registration check).

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

/// Size classes: 8, 16, ..., 8 * CLASSES bytes.
const CLASSES: usize = 32;
/// Blocks kept per class per thread.
const CAP: usize = 512;

/// The cache's life on its thread: blocks are kept only while a [`Guard`] will free them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing cached yet, no guard registered.
    Unguarded,
    /// The thread's guard will empty the cache when the thread exits.
    Guarded,
    /// The guard has run (the thread is exiting): blocks go straight to the allocator.
    Closed,
}

struct Cache {
    bins: [Vec<NonNull<u8>>; CLASSES],
    state: State,
}

impl Cache {
    /// Frees every cached block and the bins' own buffers; later releases bypass the cache.
    fn close(&mut self) {
        for (class, bin) in self.bins.iter_mut().enumerate() {
            let layout = class_layout(class);
            for p in bin.drain(..) {
                // SAFETY: every cached block was allocated with its class's layout.
                unsafe { dealloc(p.as_ptr(), layout) };
            }
            *bin = Vec::new();
        }
        self.state = State::Closed;
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
    // No destructor of its own (`ManuallyDrop`), so every access is a plain thread-local access,
    // without the registration check a thread-local with a destructor pays on each use; the
    // `GUARD`, registered when the first block is cached, empties it instead.
    static CACHE: UnsafeCell<ManuallyDrop<Cache>> = const {
        UnsafeCell::new(ManuallyDrop::new(Cache {
            bins: [const { Vec::new() }; CLASSES],
            state: State::Unguarded,
        }))
    };
    static GUARD: Guard = const { Guard };
}

/// The layout every block of `class` is allocated and freed with.
#[inline]
fn class_layout(class: usize) -> Layout {
    // SAFETY: sizes are non-zero multiples of 8 far below isize::MAX; 8 is a power of two.
    unsafe { Layout::from_size_align_unchecked((class + 1) * 8, 8) }
}

/// The class of `layout`, if it is cached.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if layout.align() <= 8 && size > 0 && size <= CLASSES * 8 {
        Some(size.div_ceil(8) - 1)
    } else {
        None
    }
}

/// Allocates a block for `layout` (non-zero size), from this thread's cache if it has one.
#[inline]
pub(crate) fn allocate(layout: Layout) -> NonNull<u8> {
    let Some(class) = class_of(layout) else {
        // SAFETY: callers pass a non-zero-sized layout.
        let p = unsafe { alloc(layout) };
        return NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout));
    };
    // SAFETY: the cache is only touched by this thread, and not re-entrantly (no call in here can
    // reach `allocate` or `release` again).
    let cached = CACHE
        .try_with(|c| unsafe { (&mut *c.get()).bins[class].pop() })
        .ok()
        .flatten();
    if let Some(p) = cached {
        return p;
    }
    let layout = class_layout(class);
    // SAFETY: a class layout has a non-zero size.
    let p = unsafe { alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout))
}

/// Frees a block that [`allocate`] returned for `layout`.
///
/// # Safety
/// `p` was returned by [`allocate`] with the same `layout` and is not used afterwards.
#[inline]
pub(crate) unsafe fn release(p: NonNull<u8>, layout: Layout) {
    let Some(class) = class_of(layout) else {
        // SAFETY: the caller's contract: `allocate` took this layout straight to the allocator.
        unsafe { dealloc(p.as_ptr(), layout) };
        return;
    };
    // SAFETY: as in `allocate`.
    let kept = CACHE
        .try_with(|c| unsafe {
            let cache = &mut *c.get();
            let bin = &mut cache.bins[class];
            if bin.len() >= CAP {
                return false;
            }
            if cache.state != State::Guarded && !guard(cache) {
                return false;
            }
            cache.bins[class].push(p);
            true
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: blocks of a class are allocated with the class's layout.
        unsafe { dealloc(p.as_ptr(), class_layout(class)) };
    }
}

/// Registers this thread's guard before the first block is cached; false once the thread is
/// exiting (the block must go to the allocator).
#[cold]
fn guard(cache: &mut Cache) -> bool {
    if cache.state == State::Closed || GUARD.try_with(|_| ()).is_err() {
        cache.state = State::Closed;
        return false;
    }
    cache.state = State::Guarded;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size in and beyond the classes come back aligned, usable, and recycled
    /// within a class whatever the exact size asked for.
    #[test]
    fn blocks_are_recycled_within_their_class() {
        for align in [1usize, 2, 4, 8, 16] {
            for size in [1usize, 7, 8, 9, 24, 100, 256, 257, 1000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                let p = allocate(layout);
                assert_eq!(p.as_ptr().addr() % align, 0);
                // SAFETY: the block has `size` bytes; it is released once with its layout.
                unsafe {
                    std::ptr::write_bytes(p.as_ptr(), 0xA5, size);
                    release(p, layout);
                }
                let again = allocate(layout);
                if align <= 8 && size <= CLASSES * 8 {
                    assert_eq!(again, p, "size {size} align {align} is cached");
                    // Another size of the same class gets the same block.
                    let sibling = Layout::from_size_align(size.div_ceil(8) * 8, 8).unwrap();
                    // SAFETY: as above.
                    unsafe { release(again, layout) };
                    let third = allocate(sibling);
                    assert_eq!(third, p);
                    // SAFETY: as above.
                    unsafe { release(third, sibling) };
                } else {
                    // SAFETY: as above.
                    unsafe { release(again, layout) };
                }
            }
        }
    }

    /// Past `CAP` blocks a class frees to the allocator; nothing is lost or handed out twice.
    #[test]
    fn overflow_goes_to_the_allocator() {
        let layout = Layout::new::<[u64; 3]>();
        let blocks: Vec<_> = (0..CAP * 2 + 5).map(|_| allocate(layout)).collect();
        let mut distinct = blocks.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), blocks.len());
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { release(p, layout) };
        }
        let again: Vec<_> = (0..CAP * 2).map(|_| allocate(layout)).collect();
        let mut distinct = again.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), again.len());
        for p in again {
            // SAFETY: as above.
            unsafe { release(p, layout) };
        }
    }
}
