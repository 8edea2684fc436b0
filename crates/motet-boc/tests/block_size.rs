//! A behaviour is one block, and a small one: an allocator that records the sizes of the
//! allocations made while a `when` is spawned onto a busy cown (so that nothing but the spawn
//! allocates) sees exactly one, of the documented size. The size is what a queue of a million
//! pending behaviours costs in memory.
//!
//! The allocator is the process's, so this file holds this one test alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use motet_boc::{when, when_detached, Cown};
use motet_runtime::Runtime;

/// `System`, recording the sizes of the allocations made by a thread while it is recording.
struct Recording;

const MAX: usize = 8;
static SIZES: [AtomicUsize; MAX] = [const { AtomicUsize::new(0) }; MAX];
static COUNT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: every method forwards to `System` with the caller's arguments; recording does not touch
// the memory handed out, and allocates nothing.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if RECORDING.try_with(Cell::get).unwrap_or(false) {
            let i = COUNT.fetch_add(1, Relaxed);
            if i < MAX {
                SIZES[i].store(layout.size(), Relaxed);
            }
        }
        // SAFETY: the caller's layout, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: allocated by `System` through this wrapper with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Recording = Recording;

/// A spawn, by name, and the size of the one block it must allocate.
type Case<'a> = (&'static str, usize, Box<dyn Fn() + 'a>);

/// The sizes of the allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> Vec<usize> {
    COUNT.store(0, Relaxed);
    RECORDING.with(|r| r.set(true));
    f();
    RECORDING.with(|r| r.set(false));
    let n = COUNT.load(Relaxed).min(MAX);
    SIZES[..n].iter().map(|s| s.load(Relaxed)).collect()
}

#[test]
#[cfg(target_pointer_width = "64")]
fn a_behaviour_is_one_small_block() {
    // Deterministic: nothing runs until the runtime is driven, so the cowns stay busy with the
    // first behaviours below, and every later spawn only enqueues.
    let rt = Runtime::builder().deterministic(1).build().unwrap();
    let (a, b) = (Cown::new(rt.handle(), 0u64), Cown::new(rt.handle(), 0u64));
    when_detached(&a, |_| ()).unwrap();
    when_detached(&b, |_| ()).unwrap();
    let captured = 7u64;
    let (a, b) = (&a, &b);
    let cases: [Case; 5] = [
        (
            "one cown, detached",
            40,
            Box::new(|| when_detached(a, |n| *n += 1).unwrap()),
        ),
        (
            "one cown, detached, a u64 captured",
            48,
            Box::new(move || when_detached(a, move |n| *n += captured).unwrap()),
        ),
        (
            "one cown, a promise of ()",
            80,
            Box::new(|| drop(when(a, |n| *n += 1))),
        ),
        (
            "two cowns, detached",
            72,
            Box::new(|| when_detached((a, b), |(a, b)| *a += *b).unwrap()),
        ),
        (
            "two cowns, a promise of ()",
            104,
            Box::new(|| drop(when((a, b), |(a, b)| *a += *b))),
        ),
    ];
    for (case, size, spawn) in &cases {
        assert_eq!(allocations(spawn), [*size], "{case}");
    }
    rt.wait_quiescent();
    assert_eq!(
        when(a, |n| *n).wait(),
        Ok(2 + 7),
        "every behaviour ran once"
    );
}
