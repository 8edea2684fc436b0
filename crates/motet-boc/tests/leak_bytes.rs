//! No bytes are left behind: a counting allocator checks that, after a warm-up, a mixed scenario
//! on the deterministic runtime frees every byte it allocated once the runtime is gone and this
//! thread's block cache is released.
//!
//! The count covers the whole process, so this file holds this one test alone: the test harness
//! allocates on its own thread as other tests finish, which would blur an exact count.

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed, Ordering::SeqCst};

use motet_boc::release_thread_cache;
use motet_runtime::Runtime;
use support::mixed::{mixed, Census};

/// `System`, counting the bytes currently allocated.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments; counting does not touch
// the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, forwarded.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: allocated by `System` through this wrapper with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE_BYTES.fetch_sub(layout.size() as isize, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as in `dealloc`, with the caller's new size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(new_size as isize - layout.size() as isize, Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn no_bytes_are_left_behind() {
    // On the deterministic runtime: a thread pool's deques free their old buffers through
    // epoch-based reclamation, at times of its own, which would blur an exact byte count. The
    // pools' behaviours are covered by the census of the other tests.
    let run = || {
        let census = Census::default();
        let rt = Runtime::builder().deterministic(9).build().unwrap();
        mixed(&rt, &census);
        drop(rt);
        assert_eq!(census.live(), 0);
        release_thread_cache();
    };
    // The default hook may capture a backtrace for the scenario's panic, and caches what it
    // loads for that: keep panics quiet here.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    run(); // warm-up: lazily initialised state of the process
    let before = LIVE_BYTES.load(SeqCst);
    run();
    let after = LIVE_BYTES.load(SeqCst);
    std::panic::set_hook(hook);
    assert_eq!(after, before, "{} bytes leaked", after - before);
}
