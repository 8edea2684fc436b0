//! A per-thread cache of freed small blocks: message nodes and actor cells.
//!
//! Every message is one node, allocated by the sender and freed by the receiver; on one worker (and
//! for actors that talk within a worker) that is the same thread, and a node freed by one turn is
//! the next one another turn allocates. Actors that live briefly (fib's and uct's trees, fjcreate's
//! workers) are the same story with cells. A small free list per size class per thread serves those
//! allocations without a call into the allocator: measured with callgrind on the Savina micro
//! benchmarks, malloc and free took about a quarter of all instructions before it.
//!
//! Every layout with an alignment of at most 8 and a size of at most `8 * CLASSES` bytes belongs to
//! the class of its size rounded up to a multiple of 8, and every block of a class is allocated and
//! freed with that class's layout (size rounded up, alignment 8), so any cached block can serve any
//! layout of its class and can go back to the global allocator with the layout it came from. Each
//! class keeps at most [`CAP`] blocks; beyond that, and for larger or over-aligned layouts, the
//! global allocator is used directly. The cache is emptied when its thread exits (by a guard
//! registered with the first block kept, so that the cache itself needs no destructor and its
//! accesses no registration check).
//!
//! # Blocks that cross threads
//!
//! On two workers a message is often allocated on one thread and freed on the other (a producer
//! on one worker flooding a consumer stolen by the other; neighbours of a grid spread over both).
//! One thread's class then only fills and the other's only empties, and without help every
//! message costs an allocation on one side and a cross-thread free on the other: in mimalloc a
//! free to another thread's page is an atomic push, and the owner collects it later (about 100
//! instructions per message, callgrind, count on 2 workers). So full and empty bins are traded
//! whole, as the magazines and depot of Bonwick's slab allocator: a thread whose bin of a class
//! is full hands the bin (a *magazine* of [`CAP`] blocks) to the class's **depot** and starts an
//! empty one; a thread whose bin is empty takes a magazine from the depot before it asks the
//! allocator. One lock per [`CAP`] blocks instead of an atomic per block. The depot keeps at most
//! [`DEPOT_BYTES`] per class; beyond that a full bin's blocks go back to the allocator. Blocks in the depot belong to no thread; they are freed when the last
//! thread that cached blocks exits.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Size classes: 8, 16, ..., 8 * CLASSES bytes.
const CLASSES: usize = 32;
/// Blocks kept per class per thread: a bin, and a magazine traded with the depot.
const CAP: usize = 512;
/// The most bytes of blocks a class's depot keeps (at least two magazines).
const DEPOT_BYTES: usize = 512 * 1024;

/// A full bin on its way between threads.
struct Magazine(Vec<NonNull<u8>>);

// SAFETY: the blocks are plain memory owned by the magazine alone (no thread keeps a pointer to a
// block it handed over); whoever takes the magazine from the depot owns them.
unsafe impl Send for Magazine {}

/// The full magazines of one class that no thread holds.
struct ClassDepot {
    magazines: Mutex<Vec<Magazine>>,
    /// How many magazines there are, written under the lock: a thread with an empty bin reads it
    /// first, so that allocating while the depot is empty (a producer outrunning every consumer)
    /// costs a load, not a lock.
    len: AtomicUsize,
}

impl ClassDepot {
    /// A full magazine, if any.
    fn take(&self) -> Option<Magazine> {
        if self.len.load(Relaxed) == 0 {
            return None;
        }
        let mut magazines = lock(&self.magazines);
        let magazine = magazines.pop();
        self.len.store(magazines.len(), Relaxed);
        magazine
    }

    /// Keeps `magazine` if the depot has room for it (at most `cap` magazines); gives it back
    /// otherwise.
    fn put(&self, magazine: Magazine, cap: usize) -> Result<(), Magazine> {
        let mut magazines = lock(&self.magazines);
        if magazines.len() >= cap {
            return Err(magazine);
        }
        magazines.push(magazine);
        self.len.store(magazines.len(), Relaxed);
        Ok(())
    }

    /// Frees every block in the depot.
    fn drain(&self, class: usize) {
        let mut magazines = lock(&self.magazines);
        for mut magazine in magazines.drain(..) {
            free_blocks(class, &mut magazine.0);
        }
        self.len.store(0, Relaxed);
    }
}

/// The depots of the classes, and the threads that keep blocks.
struct Depot {
    classes: [ClassDepot; CLASSES],
    /// Threads whose guard has not run yet: the last one to exit frees the depot's blocks.
    guarded_threads: Mutex<usize>,
}

static DEPOT: Depot = Depot {
    classes: [const {
        ClassDepot {
            magazines: Mutex::new(Vec::new()),
            len: AtomicUsize::new(0),
        }
    }; CLASSES],
    guarded_threads: Mutex::new(0),
};

/// Locks a mutex of the depot (which holds no invariant a panic could break).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How many magazines a class's depot keeps.
fn depot_cap(class: usize) -> usize {
    (DEPOT_BYTES / (CAP * class_layout(class).size())).max(2)
}

/// Frees every block of a magazine of `class` to the allocator.
fn free_blocks(class: usize, blocks: &mut Vec<NonNull<u8>>) {
    let layout = class_layout(class);
    for p in blocks.drain(..) {
        // SAFETY: every cached block was allocated with its class's layout, and is owned by the
        // bin or magazine it is drained from.
        unsafe { dealloc(p.as_ptr(), layout) };
    }
}

/// The cache's life on its thread: blocks are kept only while a [`Guard`] will free them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing cached yet, no guard registered.
    Unguarded,
    /// The thread's guard will empty the cache when the thread exits.
    Guarded,
    /// The guard has run (the thread is exiting): blocks go straight to the allocator.
    Closed,
}

struct Cache {
    /// The free blocks of each class. A bin's capacity is its room: [`CAP`] (or a little more,
    /// as the allocator rounds) while the thread is guarded and the class in use, 0 before the
    /// class's first release and after the thread's guard has run. So `len < capacity` alone
    /// tells a release whether the block can stay.
    bins: [Vec<NonNull<u8>>; CLASSES],
    state: State,
}

impl Cache {
    /// Frees every cached block and the bins' own buffers; later releases bypass the cache. The
    /// last guarded thread to close also empties the depot.
    fn close(&mut self) {
        for (class, bin) in self.bins.iter_mut().enumerate() {
            free_blocks(class, bin);
            *bin = Vec::new();
        }
        let was_guarded = self.state == State::Guarded;
        self.state = State::Closed;
        if was_guarded {
            let mut threads = lock(&DEPOT.guarded_threads);
            *threads -= 1;
            if *threads == 0 {
                for (class, depot) in DEPOT.classes.iter().enumerate() {
                    depot.drain(class);
                }
            }
        }
    }

    /// An empty bin of `class`: takes a full magazine from the depot, if it has one (the thread
    /// must be guarded, so that the blocks are freed when it exits). Returns whether it got one.
    fn refill(&mut self, class: usize) -> bool {
        if self.state != State::Guarded && !guard(self) {
            return false;
        }
        let Some(magazine) = DEPOT.classes[class].take() else {
            return false;
        };
        self.bins[class] = magazine.0;
        true
    }

    /// Empties a full bin of `class`: into the depot, or, if the depot has no room, back to the
    /// allocator (a whole bin at a time, so that a thread that only frees, such as a consumer
    /// fed by another worker, pays this call once per [`CAP`] blocks). Returns false, leaving
    /// the bin full, if the depot is switched off: the caller then frees its one block to the
    /// allocator, as it did before there was a depot.
    #[cold]
    fn spill(&mut self, class: usize) -> bool {
        if !DEPOT_ON.load(Relaxed) {
            return false;
        }
        let depot = &DEPOT.classes[class];
        let cap = depot_cap(class);
        if depot.len.load(Relaxed) >= cap {
            free_blocks(class, &mut self.bins[class]);
            return true;
        }
        let full = Magazine(std::mem::replace(
            &mut self.bins[class],
            Vec::with_capacity(CAP),
        ));
        if let Err(mut full) = depot.put(full, cap) {
            // Another thread filled the depot meanwhile.
            free_blocks(class, &mut full.0);
            self.bins[class] = full.0;
        }
        true
    }
}

/// Whether full bins go to the depot (see [`set_depot`]).
static DEPOT_ON: AtomicBool = AtomicBool::new(true);

/// Switches the depot on or off (on by default). Off, a full bin keeps its blocks and frees
/// every further block of its class to the allocator, and an empty bin finds the depot empty:
/// each thread's cache then holds a fixed number of blocks once warm, which is what a test that
/// counts the bytes a workload leaves behind needs. Blocks already in the depot stay there.
pub fn set_depot(on: bool) {
    DEPOT_ON.store(on, Relaxed);
}

/// Empties this thread's cache when the thread exits.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: the cache is only touched by this thread, and not re-entrantly.
        let _ = CACHE.try_with(|c| unsafe { (&mut *c.get()).close() });
    }
}

thread_local! {
    // No destructor of its own (`ManuallyDrop`), so every access is a plain thread-local access,
    // without the registration check a thread-local with a destructor pays on each use; the
    // `GUARD`, registered when the first block is cached, empties it instead.
    static CACHE: UnsafeCell<ManuallyDrop<Cache>> = const {
        UnsafeCell::new(ManuallyDrop::new(Cache {
            bins: [const { Vec::new() }; CLASSES],
            state: State::Unguarded,
        }))
    };
    static GUARD: Guard = const { Guard };
}

/// The layout every block of `class` is allocated and freed with.
#[inline]
fn class_layout(class: usize) -> Layout {
    // SAFETY: sizes are non-zero multiples of 8 far below isize::MAX; 8 is a power of two.
    unsafe { Layout::from_size_align_unchecked((class + 1) * 8, 8) }
}

/// The class of `layout`, if it is cached.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if layout.align() <= 8 && size > 0 && size <= CLASSES * 8 {
        Some(size.div_ceil(8) - 1)
    } else {
        None
    }
}

/// Allocates a block for `layout` (non-zero size), from this thread's cache if it has one.
#[inline]
pub(crate) fn allocate(layout: Layout) -> NonNull<u8> {
    let Some(class) = class_of(layout) else {
        // SAFETY: callers pass a non-zero-sized layout.
        let p = unsafe { alloc(layout) };
        return NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout));
    };
    // SAFETY: the cache is only touched by this thread, and not re-entrantly (no call in here can
    // reach `allocate` or `release` again).
    let cached = CACHE
        .try_with(|c| unsafe { (&mut *c.get()).bins[class].pop() })
        .ok()
        .flatten();
    if let Some(p) = cached {
        return p;
    }
    // The bin is empty: a magazine from the depot if it has one (a load tells), or else the
    // allocator.
    if DEPOT.classes[class].len.load(Relaxed) != 0 {
        if let Some(p) = allocate_from_depot(class) {
            return p;
        }
    }
    let layout = class_layout(class);
    // SAFETY: a class layout has a non-zero size.
    let p = unsafe { alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout))
}

/// Refills this thread's empty bin of `class` from the depot and takes a block from it. Out of
/// line: it runs once per [`CAP`] allocations at most.
#[cold]
#[inline(never)]
fn allocate_from_depot(class: usize) -> Option<NonNull<u8>> {
    // SAFETY: as in `allocate`: the depot's lock and the bin's buffer use the global allocator,
    // never this cache.
    CACHE
        .try_with(|c| unsafe {
            let cache = &mut *c.get();
            if cache.refill(class) {
                cache.bins[class].pop()
            } else {
                None
            }
        })
        .ok()
        .flatten()
}

/// Frees a block that [`allocate`] returned for `layout`.
///
/// # Safety
/// `p` was returned by [`allocate`] with the same `layout` and is not used afterwards.
#[inline]
pub(crate) unsafe fn release(p: NonNull<u8>, layout: Layout) {
    let Some(class) = class_of(layout) else {
        // SAFETY: the caller's contract: `allocate` took this layout straight to the allocator.
        unsafe { dealloc(p.as_ptr(), layout) };
        return;
    };
    // SAFETY: as in `allocate`; the write is within the bin's capacity (`len < capacity`), and
    // the slots below `len + 1` are then initialised.
    let kept = CACHE
        .try_with(|c| unsafe {
            let bin = &mut (&mut *c.get()).bins[class];
            // A bin has room only while its thread is guarded (see `Cache::bins`), so one
            // comparison decides: 8 instructions a message where the thread's state, a separate
            // `CAP` comparison and `push`'s growth check took 14 (callgrind, threadring).
            let len = bin.len();
            if len < bin.capacity() {
                bin.as_mut_ptr().add(len).write(p);
                bin.set_len(len + 1);
                true
            } else {
                false
            }
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: the caller's contract.
        unsafe { release_uncached(p, class) };
    }
}

/// A release that found its bin full, or its thread not yet guarded (or exiting). Out of line,
/// so that the common case above stays a push.
///
/// # Safety
/// As for [`release`]; `class` is the block's class.
#[cold]
#[inline(never)]
unsafe fn release_uncached(p: NonNull<u8>, class: usize) {
    // SAFETY: as in `allocate`.
    let kept = CACHE
        .try_with(|c| unsafe {
            let cache = &mut *c.get();
            if cache.state != State::Guarded && !guard(cache) {
                return false;
            }
            let bin = &mut cache.bins[class];
            if bin.capacity() == 0 {
                // The class's first block on this thread: its bin gets its room.
                bin.reserve_exact(CAP);
            } else if bin.len() >= bin.capacity() && !cache.spill(class) {
                return false;
            }
            cache.bins[class].push(p);
            true
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: blocks of a class are allocated with the class's layout.
        unsafe { dealloc(p.as_ptr(), class_layout(class)) };
    }
}

/// Registers this thread's guard before the first block is cached; false once the thread is
/// exiting (the block must go to the allocator).
#[cold]
fn guard(cache: &mut Cache) -> bool {
    if cache.state == State::Closed || GUARD.try_with(|_| ()).is_err() {
        cache.state = State::Closed;
        return false;
    }
    cache.state = State::Guarded;
    *lock(&DEPOT.guarded_threads) += 1;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size in and beyond the classes come back aligned, usable, and recycled
    /// within a class whatever the exact size asked for.
    #[test]
    fn blocks_are_recycled_within_their_class() {
        for align in [1usize, 2, 4, 8, 16] {
            for size in [1usize, 7, 8, 9, 24, 100, 256, 257, 1000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                let p = allocate(layout);
                assert_eq!(p.as_ptr().addr() % align, 0);
                // SAFETY: the block has `size` bytes; it is released once with its layout.
                unsafe {
                    std::ptr::write_bytes(p.as_ptr(), 0xA5, size);
                    release(p, layout);
                }
                let again = allocate(layout);
                if align <= 8 && size <= CLASSES * 8 {
                    assert_eq!(again, p, "size {size} align {align} is cached");
                    // Another size of the same class gets the same block.
                    let sibling = Layout::from_size_align(size.div_ceil(8) * 8, 8).unwrap();
                    // SAFETY: as above.
                    unsafe { release(again, layout) };
                    let third = allocate(sibling);
                    assert_eq!(third, p);
                    // SAFETY: as above.
                    unsafe { release(third, sibling) };
                } else {
                    // SAFETY: as above.
                    unsafe { release(again, layout) };
                }
            }
        }
    }

    /// Past `CAP` blocks a class spills to the depot (or the allocator); nothing is lost or
    /// handed out twice.
    #[test]
    fn overflow_is_neither_lost_nor_handed_out_twice() {
        let layout = Layout::new::<[u64; 3]>();
        let blocks: Vec<_> = (0..CAP * 2 + 5).map(|_| allocate(layout)).collect();
        let mut distinct = blocks.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), blocks.len());
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { release(p, layout) };
        }
        let again: Vec<_> = (0..CAP * 2).map(|_| allocate(layout)).collect();
        let mut distinct = again.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), again.len());
        for p in again {
            // SAFETY: as above.
            unsafe { release(p, layout) };
        }
    }

    /// A full bin released on one thread reaches another thread through the depot: the blocks
    /// a fresh thread allocates are ones the first thread released, not new ones.
    #[test]
    fn a_full_bin_crosses_threads_through_the_depot() {
        use std::collections::HashSet;
        use std::sync::mpsc::channel;

        // A class no other test of this crate uses, so that nobody else takes the magazine.
        let layout = Layout::from_size_align(248, 8).unwrap();
        let (released_tx, released_rx) = channel();
        let (done_tx, done_rx) = channel::<()>();
        // The releasing thread stays alive until the other has allocated: the depot is emptied
        // when the last thread that cached blocks exits.
        let releaser = std::thread::spawn(move || {
            let blocks: Vec<_> = (0..CAP + 1).map(|_| allocate(layout)).collect();
            let addrs: Vec<usize> = blocks.iter().map(|p| p.as_ptr().addr()).collect();
            for p in blocks {
                // SAFETY: each block is released once with its layout.
                unsafe { release(p, layout) };
            }
            // The first CAP releases filled the bin; the last one spilled it to the depot.
            released_tx.send(addrs).unwrap();
            done_rx.recv().unwrap();
        });
        let released: HashSet<usize> = released_rx.recv().unwrap().into_iter().take(CAP).collect();
        let got: Vec<usize> = std::thread::spawn(move || {
            let blocks: Vec<_> = (0..CAP).map(|_| allocate(layout)).collect();
            let addrs = blocks.iter().map(|p| p.as_ptr().addr()).collect();
            for p in blocks {
                // SAFETY: each block is released once with its layout.
                unsafe { release(p, layout) };
            }
            addrs
        })
        .join()
        .unwrap();
        done_tx.send(()).unwrap();
        releaser.join().unwrap();
        let distinct: HashSet<usize> = got.iter().copied().collect();
        assert_eq!(distinct.len(), CAP);
        assert!(
            got.iter().all(|a| released.contains(a)),
            "every block of the second thread comes from the first thread's magazine"
        );
    }

    /// A thread that only frees fills the depot up to its cap and no further: the rest goes
    /// back to the allocator, a whole bin at a time.
    #[test]
    fn the_depot_keeps_at_most_its_cap() {
        // Another class of its own (see above).
        let layout = Layout::from_size_align(240, 8).unwrap();
        let class = class_of(layout).unwrap();
        let cap = depot_cap(class);
        let magazines = std::thread::spawn(move || {
            let blocks: Vec<_> = (0..CAP * (cap + 3)).map(|_| allocate(layout)).collect();
            for p in blocks {
                // SAFETY: each block is released once with its layout.
                unsafe { release(p, layout) };
            }
            DEPOT.classes[class].len.load(Relaxed)
        })
        .join()
        .unwrap();
        assert_eq!(magazines, cap);
    }
}
