//! A per-thread cache of freed message nodes.
//!
//! Every message is one node, allocated by the sender and freed by the receiver; on one worker (and
//! for actors that talk within a worker) that is the same thread, and a node freed by one turn is
//! the next one another turn allocates. A small free list per size class per thread serves those
//! allocations without a call into the allocator: measured with callgrind on the Savina micro
//! benchmarks, malloc and free took about a quarter of all instructions before it.
//!
//! Nodes are 8-aligned and their size is a multiple of 8, so a class holds blocks of exactly one
//! layout, and a cached block can be freed with the global allocator's `dealloc` (a `Box` of the
//! same node type does just that). Each class keeps at most [`CAP`] blocks; beyond that, and for
//! large nodes, the global allocator is used directly. The cache is emptied when its thread exits.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::UnsafeCell;
use std::ptr::NonNull;

/// Size classes: 8, 16, ..., 8 * CLASSES bytes.
const CLASSES: usize = 32;
/// Blocks kept per class per thread.
const CAP: usize = 512;

struct Cache {
    bins: [Vec<NonNull<u8>>; CLASSES],
}

impl Drop for Cache {
    fn drop(&mut self) {
        for (class, bin) in self.bins.iter_mut().enumerate() {
            let layout = class_layout(class);
            for p in bin.drain(..) {
                // SAFETY: every cached block was allocated with its class's layout.
                unsafe { dealloc(p.as_ptr(), layout) };
            }
        }
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
    // SAFETY: sizes are non-zero multiples of 8 far below isize::MAX; 8 is a power of two.
    unsafe { Layout::from_size_align_unchecked((class + 1) * 8, 8) }
}

/// The class of `layout`, if it is cached.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if layout.align() == 8 && size.is_multiple_of(8) && size > 0 && size <= CLASSES * 8 {
        Some(size / 8 - 1)
    } else {
        None
    }
}

/// Allocates a block for `layout` (non-zero size), from this thread's cache if it has one.
#[inline]
pub(crate) fn allocate(layout: Layout) -> NonNull<u8> {
    if let Some(class) = class_of(layout) {
        // SAFETY: the cache is only touched by this thread, and not re-entrantly (no call in here can
        // reach `allocate` or `release` again).
        let cached = CACHE
            .try_with(|c| unsafe { (*c.get()).bins[class].pop() })
            .ok()
            .flatten();
        if let Some(p) = cached {
            return p;
        }
    }
    // SAFETY: callers pass a non-zero-sized layout (a node).
    let p = unsafe { alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout))
}

/// Frees a block allocated for `layout` (by [`allocate`] or by the global allocator).
///
/// # Safety
/// `p` was allocated with `layout` by the global allocator (directly or through [`allocate`]) and is
/// not used afterwards.
#[inline]
pub(crate) unsafe fn release(p: NonNull<u8>, layout: Layout) {
    if let Some(class) = class_of(layout) {
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
    }
    // SAFETY: the caller's contract.
    unsafe { dealloc(p.as_ptr(), layout) };
}
