//! mimalloc as the global allocator, called the way its C API is fastest (feature `mimalloc`).
//!
//! The `mimalloc` crate's `GlobalAlloc` passes every request to `mi_malloc_aligned(size,
//! align)`. In mimalloc 3 that call serves a block directly only if the first free block of the
//! size class happens to be aligned; otherwise it takes the generic path, which for a size that
//! is not a power of two (an actor cell of 88 bytes, a message node of 24, a behaviour of 112)
//! over-allocates by the alignment and marks the page as holding interior pointers, and costs
//! many times a plain allocation. `mi_malloc` already returns blocks aligned to 16 bytes
//! (`MI_MAX_ALIGN_SIZE` on the 64-bit targets motet runs on), and 8-byte blocks to 8, so
//! [`Mimalloc`] calls the plain functions whenever the alignment is at most 16 and at most the
//! size (every layout Rust asks for that is not over-aligned), and the aligned ones otherwise.
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: motet_runtime::alloc::Mimalloc = motet_runtime::alloc::Mimalloc;
//! ```

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as ffi;

/// The largest alignment `mi_malloc` guarantees for a block at least that large.
const MIN_ALIGN: usize = 16;

/// mimalloc as the global allocator, through its plain functions where they are aligned enough
/// (see the module docs). Feature `mimalloc`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mimalloc;

/// Whether `mi_malloc` alone satisfies `layout`'s alignment.
#[inline]
fn plain(layout: Layout) -> bool {
    layout.align() <= MIN_ALIGN && layout.align() <= layout.size()
}

// SAFETY: every method forwards to mimalloc, which returns blocks of at least the requested size,
// aligned as requested (the plain functions for alignments they guarantee, see `plain`, the aligned
// ones otherwise), or null on failure; `dealloc` and `realloc` receive blocks mimalloc allocated.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain C calls; any size is accepted.
        unsafe {
            if plain(layout) {
                ffi::mi_malloc(layout.size()).cast()
            } else {
                ffi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe {
            if plain(layout) {
                ffi::mi_zalloc(layout.size()).cast()
            } else {
                ffi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` was allocated by mimalloc (the caller's contract); mimalloc frees aligned and
        // plain blocks alike.
        unsafe { ffi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by mimalloc with `layout` (the caller's contract); the new
        // layout keeps the alignment (valid by `realloc`'s contract), so the same rule picks the
        // function.
        unsafe {
            let new = Layout::from_size_align_unchecked(new_size, layout.align());
            if plain(new) {
                ffi::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                ffi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size and alignment comes back aligned and usable, and realloc keeps the contents.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let a = Mimalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in [1usize, 3, 8, 12, 24, 88, 100, 1000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero size; the block is written within its size and freed once.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p.addr() % align, 0, "size {size} align {align}");
                    for i in 0..size {
                        p.add(i).write(i as u8);
                    }
                    let q = a.realloc(p, layout, size * 3);
                    assert!(!q.is_null());
                    assert_eq!(q.addr() % align, 0, "realloc size {size} align {align}");
                    for i in 0..size {
                        assert_eq!(q.add(i).read(), i as u8);
                    }
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z.addr() % align, 0);
                    assert!((0..size).all(|i| z.add(i).read() == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
