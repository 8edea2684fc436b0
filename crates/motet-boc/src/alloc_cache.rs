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
//! used directly. A thread's cache is emptied when the thread exits, or by [`release_thread_cache`].

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::UnsafeCell;
use std::ptr::NonNull;

/// Size granule of cached blocks.
const GRAIN: usize = 16;
/// Alignment of cached blocks.
const ALIGN: usize = 8;
/// Size classes: 16, 32, ..., 16 * CLASSES bytes.
const CLASSES: usize = 32;
/// Blocks kept per class per thread.
const CAP: usize = 256;

struct Cache {
    bins: [Vec<NonNull<u8>>; CLASSES],
}

impl Cache {
    fn clear(&mut self) {
        for (class, bin) in self.bins.iter_mut().enumerate() {
            let layout = class_layout(class);
            for p in bin.drain(..) {
                // SAFETY: every cached block was allocated with its class's layout.
                unsafe { dealloc(p.as_ptr(), layout) };
            }
        }
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        self.clear();
    }
}

thread_local! {
    static CACHE: UnsafeCell<Cache> = const {
        UnsafeCell::new(Cache {
            bins: [const { Vec::new() }; CLASSES],
        })
    };
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
                .try_with(|c| unsafe { (*c.get()).bins[class].pop() })
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
                    let bin = &mut (*c.get()).bins[class];
                    if bin.len() < CAP {
                        bin.push(p);
                        true
                    } else {
                        false
                    }
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
    let _ = CACHE.try_with(|c| unsafe { (*c.get()).clear() });
}
