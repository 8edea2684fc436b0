//! Nothing leaks: every behaviour block, closure, cown, result and deferred value is freed.
//!
//! Closures, cown values and results are `Tracked` values that count themselves; after each
//! scenario (runtime quiescent or shut down, handles dropped) the count is back to zero. A counting
//! allocator checks the same for whole blocks: after a warm-up, a mixed scenario on the
//! deterministic runtime leaves no bytes behind once the runtime is gone and this thread's block
//! cache is released.

use std::alloc::{GlobalAlloc, Layout, System};
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard};

use motet_boc::{read_all, release_thread_cache, when, Batch, Cown, Deferred, WhenError};
use motet_runtime::{testing, Runtime};

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

/// The byte count covers the whole process: the tests of this file run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Live `Tracked` values.
#[derive(Clone, Default)]
struct Census(Arc<AtomicIsize>);

impl Census {
    fn track(&self) -> Tracked {
        self.0.fetch_add(1, SeqCst);
        Tracked(self.0.clone())
    }

    fn live(&self) -> isize {
        self.0.load(SeqCst)
    }
}

struct Tracked(Arc<AtomicIsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_sub(1, SeqCst);
    }
}

/// Every kind of behaviour, kept and dropped promises, panics, rejections, batches, deferred
/// values, backpressure.
fn mixed(rt: &Runtime, census: &Census) {
    let h = rt.handle();
    let a = Cown::new(h, census.track());
    let b = Cown::new(h, census.track());
    let set: Vec<_> = (0..4).map(|_| Cown::new(h, census.track())).collect();
    let bounded = Cown::bounded(h, census.track(), NonZeroUsize::new(2).unwrap());
    for i in 0..200 {
        let t = census.track();
        let r = census.track();
        let p = when((&a, b.read()), move |_| {
            drop(t);
            r
        });
        if i % 3 == 0 {
            drop(p.wait());
        }
        let t = census.track();
        drop(when(&set, move |_| drop(t)));
        let t = census.track();
        drop(when(read_all(&set), move |_| drop(t)));
        let (b2, t) = (b.clone(), census.track());
        when(&a, move |_| {
            let t2 = census_free(t);
            when(&b2, move |_| drop(t2));
        });
        let t = census.track();
        let r = census.track();
        when(&bounded, move |_| {
            drop(t);
            r
        });
    }
    let t = census.track();
    let panicked = when(&a, move |_| -> Tracked {
        let _t = t;
        panic!("tracked panic")
    });
    assert!(matches!(panicked.wait(), Err(WhenError::Panicked(_))));
    let t = census.track();
    assert_eq!(
        when((&a, &a), move |_| drop(t)).wait(),
        Err(WhenError::DuplicateCown)
    );
    let mut batch = Batch::new();
    for _ in 0..10 {
        let (t, r) = (census.track(), census.track());
        drop(batch.when((&a, &set[0]), move |_| {
            drop(t);
            r
        }));
    }
    batch.spawn();
    let (d, resolver) = Deferred::<Tracked>::new(h);
    let t = census.track();
    let waiting = when((&d, &b), move |(v, _)| {
        drop(t);
        v.is_ok()
    });
    resolver.resolve(census.track());
    assert_eq!(waiting.wait(), Ok(true));
    let (broken, resolver) = Deferred::<Tracked>::new(h);
    let t = census.track();
    drop(when(&broken, move |_| drop(t)));
    drop(resolver);
    rt.wait_quiescent();
}

/// Moves a tracked value through (used to move it across a nested spawn).
fn census_free(t: Tracked) -> Tracked {
    t
}

#[test]
fn tracked_values_are_all_dropped() {
    let _serial = serial();
    testing::check(|rt| {
        let census = Census::default();
        mixed(rt, &census);
        assert_eq!(census.live(), 0, "a closure, value or result leaked");
    });
}

#[test]
fn cancelled_behaviours_drop_their_closures() {
    let _serial = serial();
    for deterministic in [false, true] {
        let census = Census::default();
        let rt = if deterministic {
            Runtime::builder().deterministic(5).build().unwrap()
        } else {
            Runtime::builder().workers(2).build().unwrap()
        };
        let cowns: Vec<_> = (0..4)
            .map(|_| Cown::new(rt.handle(), census.track()))
            .collect();
        let mut kept = Vec::new();
        for i in 0..5_000 {
            let (t, r) = (census.track(), census.track());
            let p = when((&cowns[i % 4], &cowns[(i + 1) % 4]), move |_| {
                drop(t);
                r
            });
            if i % 2 == 0 {
                kept.push(p);
            }
        }
        drop(rt);
        for p in kept {
            let _ = p.wait();
        }
        drop(cowns);
        assert_eq!(census.live(), 0);
    }
}

#[test]
fn no_bytes_are_left_behind() {
    let _serial = serial();
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
