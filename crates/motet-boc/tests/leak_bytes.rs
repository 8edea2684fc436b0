//! No bytes are left behind: a counting allocator checks that, after a warm-up, a mixed scenario
//! on the deterministic runtime frees every byte it allocated once the runtime is gone and this
//! thread's block cache is released.
//!
//! The count covers the whole process, so this file holds this one test alone: the test harness
//! allocates on its own thread as other tests finish, which would blur an exact count.

mod support;

use motet_boc::release_thread_cache;
use motet_runtime::testing::CountingAllocator;
use motet_runtime::Runtime;
use support::mixed::{mixed, Census};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

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
    let before = CountingAllocator::live_bytes();
    run();
    let after = CountingAllocator::live_bytes();
    std::panic::set_hook(hook);
    assert_eq!(after, before, "{} bytes leaked", after - before);
}
