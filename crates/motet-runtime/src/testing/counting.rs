//! A global allocator that counts the bytes currently allocated, for the tests of every crate
//! that check that a workload leaves no bytes behind.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed, Ordering::SeqCst};

/// The bytes currently allocated through [`CountingAllocator`] (requested sizes).
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

/// `System`, counting the bytes currently allocated. Install it in a test binary and read
/// [`CountingAllocator::live_bytes`] before and after a workload:
///
/// ```
/// use motet_runtime::testing::CountingAllocator;
///
/// #[global_allocator]
/// static GLOBAL: CountingAllocator = CountingAllocator;
///
/// let before = CountingAllocator::live_bytes();
/// let kept = vec![0u8; 1000];
/// assert_eq!(CountingAllocator::live_bytes() - before, 1000);
/// drop(kept);
/// assert_eq!(CountingAllocator::live_bytes(), before);
/// ```
///
/// The count covers the whole process: a test that reads it must not run beside others that
/// allocate (run such tests one at a time, or alone in their file).
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAllocator;

impl CountingAllocator {
    /// The bytes allocated through this allocator and not freed yet.
    pub fn live_bytes() -> isize {
        LIVE_BYTES.load(SeqCst)
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments, whose contracts are those
// of `GlobalAlloc`; the counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout (non-zero size, by `GlobalAlloc`'s contract).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this wrapper) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE_BYTES.fetch_sub(layout.size() as isize, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as in `dealloc`, and `new_size` satisfies `realloc`'s contract (the caller's).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(new_size as isize - layout.size() as isize, Relaxed);
        }
        p
    }
}
