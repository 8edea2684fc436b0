//! mimalloc as the global allocator through its C API, the way motet-savina links it: plain
//! `mi_malloc` for every layout whose alignment the allocator guarantees anyway (up to 16 bytes),
//! `mi_malloc_aligned` only beyond. The `mimalloc` crate's allocator sends every layout through
//! `mi_malloc_aligned`, whose generic path some block sizes (112 bytes, for one) take
//! on most calls; measuring with it would charge `when` a cost the benchmark suite does not pay.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as ffi;

/// The alignment every mimalloc block of at least that size has.
const MIN_ALIGN: usize = 16;

/// The global allocator of motet-boc's bench and profiling example and of motet-actor's
/// profiling example.
pub struct PlainMimalloc;

#[inline]
fn plain(layout: Layout) -> bool {
    layout.align() <= MIN_ALIGN && layout.align() <= layout.size()
}

// SAFETY: every method forwards to the mimalloc function for its contract; `plain` sends a layout
// to the unaligned functions only when mimalloc's blocks of that size are aligned enough.
unsafe impl GlobalAlloc for PlainMimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe {
            if plain(layout) {
                ffi::mi_malloc(layout.size()).cast()
            } else {
                ffi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator.
        unsafe { ffi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above; the new layout is valid by `GlobalAlloc::realloc`'s contract.
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
