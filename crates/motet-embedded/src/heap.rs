//! The heap `alloc` uses: embedded-alloc's linked-list allocator over a static buffer whose size
//! each program chooses ([`init_heap!`](crate::init_heap)), with a count of the bytes in use and
//! their peak, so that a program can report how much of its reservation it needed.
//!
//! Allocation happens in thread mode only (the reactor core allocates while building a program
//! and while its scheduler runs, never in an interrupt handler); the allocator still takes a
//! critical section, so a handler that allocated would be safe, only not timely.

use core::alloc::{GlobalAlloc, Layout};
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use embedded_alloc::LlffHeap;

/// The allocator with its counts.
pub struct CountingHeap {
    heap: LlffHeap,
    size: AtomicUsize,
    used: AtomicUsize,
    peak: AtomicUsize,
}

#[global_allocator]
static HEAP: CountingHeap = CountingHeap {
    heap: LlffHeap::empty(),
    size: AtomicUsize::new(0),
    used: AtomicUsize::new(0),
    peak: AtomicUsize::new(0),
};

/// Gives the heap its memory. Use [`init_heap!`](crate::init_heap), which reserves it.
///
/// # Safety
/// Call once, before the first allocation; `start..start + size` is memory nothing else uses,
/// for the rest of the program.
pub unsafe fn init(start: usize, size: usize) {
    HEAP.size.store(size, Relaxed);
    // SAFETY: forwarded from this function's contract.
    unsafe { HEAP.heap.init(start, size) }
}

/// The heap's size in bytes (0 before [`init`]).
pub fn size() -> usize {
    HEAP.size.load(Relaxed)
}

/// The most bytes in use at once so far (requested sizes; the allocator's own overhead is not
/// counted).
pub fn peak() -> usize {
    HEAP.peak.load(Relaxed)
}

/// Bytes in use now.
pub fn used() -> usize {
    HEAP.used.load(Relaxed)
}

// SAFETY: every method forwards to embedded-alloc's heap, which upholds `GlobalAlloc`'s contract;
// the counts are bookkeeping on the side.
unsafe impl GlobalAlloc for CountingHeap {
    // Not inlined: every allocation site would otherwise carry the counting (atomic read-modify-
    // write loops) in its own copy.
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded from the caller.
        let p = unsafe { self.heap.alloc(layout) };
        if !p.is_null() {
            let now = self.used.fetch_add(layout.size(), Relaxed) + layout.size();
            self.peak.fetch_max(now, Relaxed);
        }
        p
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.used.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded from the caller.
        unsafe { self.heap.dealloc(ptr, layout) }
    }
}

/// Reserves `$bytes` of RAM (in `.bss`) for the heap and hands them to it. Call once, first thing
/// in `main`.
#[macro_export]
macro_rules! init_heap {
    ($bytes:expr) => {{
        const BYTES: usize = $bytes;
        static mut MEMORY: [core::mem::MaybeUninit<u8>; BYTES] =
            [core::mem::MaybeUninit::uninit(); BYTES];
        // SAFETY: this block runs once per expansion (in `main`, before any allocation), and
        // `MEMORY` is private to it, so the heap is its only user.
        unsafe { $crate::heap::init(core::ptr::addr_of_mut!(MEMORY) as usize, BYTES) }
    }};
}
