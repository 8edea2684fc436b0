//! A per-thread cache of freed channel blocks, so that a new channel reuses the memory of one that
//! was freed instead of asking the allocator for fresh memory.
//!
//! Most processes come with a channel (one 64-byte line). Through the global allocator (mimalloc
//! in motet-savina) each new channel took a block from a page's free list, which mimalloc builds
//! lazily in fresh pages, and each free gave one back to a list the allocator only reads once the
//! first runs dry: the memory a spawn got was rarely the memory that was hot, and both calls cost
//! about 50 instructions (callgrind, Fork Join creation and a Thread Ring of 100,000, one worker).
//! The processes themselves are motet-runtime tasks, whose cells the runtime allocates.
//!
//! Here a thread keeps, per size class, a *bin*: an array of freed blocks, newest last (a push and
//! a pop touch the array only, and the block a spawn gets is the one freed last). A bin holds at
//! most [`BIN_CAP`] blocks; a full one is handed whole (one lock per [`BIN_CAP`] blocks) to the
//! class's **depot**, and a thread whose bin is empty takes a full one from the depot before it
//! calls the allocator, as the magazines and depot of Bonwick's slab allocator (motet-actor's block
//! cache does the same for actor cells and messages). The depot is what lets a worker that only
//! frees (the channels of processes stolen from a driver on another worker) feed a thread that
//! only spawns, and what keeps the blocks of a whole benchmark iteration (a ring of 100,000
//! processes and their channels) for the next one. All depots together keep at most [`DEPOT_BYTES`]; past that, a full bin goes back to the
//! allocator.
//!
//! Classes: layouts of alignment at most 16 and size at most `16 * SMALL_CLASSES` bytes belong to
//! the class of their size rounded up to 16 (allocated with that size and alignment 16);
//! layouts of alignment 32 or 64 (a channel) and size at most `64 * LINE_CLASSES` to a class of
//! whole 64-byte lines. Every block of a class is allocated and freed with the class's layout, so
//! any cached block serves any layout of its class and goes back to the allocator with the layout
//! it came from. Other layouts go to the allocator directly. [`allocate_for`] pads a type to whole
//! lines (a line class) where that costs at most [`LINE_PADDING`] bytes over its 16-byte class,
//! so that a block spans as few lines as its size allows (see [`block_layout`]).
//!
//! A thread's bins are emptied when it exits (by a guard registered when it first caches a
//! block, so that the cache itself has no destructor and its accesses no registration check); the
//! depot is emptied when the last thread that cached blocks exits. Under loom the cache is off (the
//! models check the channel and process protocols, not this thread-local store).

use std::alloc::Layout;
use std::ptr::NonNull;

#[cfg(not(loom))]
pub(crate) use cache::{allocate, release, set_depot};

/// Allocates a block for `layout` (non-zero size); under loom, straight from the allocator.
#[cfg(loom)]
pub(crate) fn allocate(layout: Layout) -> NonNull<u8> {
    // SAFETY: callers pass a non-zero-sized layout.
    let p = unsafe { std::alloc::alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
}

/// Frees a block that [`allocate`] returned for `layout`.
///
/// # Safety
/// `p` was returned by [`allocate`] with the same `layout` and is not used afterwards.
#[cfg(loom)]
pub(crate) unsafe fn release(p: NonNull<u8>, layout: Layout) {
    // SAFETY: the caller's contract.
    unsafe { std::alloc::dealloc(p.as_ptr(), layout) }
}

/// Size classes of alignment at most 16: 16, 32, ..., `16 * SMALL_CLASSES` bytes.
#[cfg(not(loom))]
const SMALL_CLASSES: usize = 32;
/// Size classes of alignment 64: 64, 128, ..., `64 * LINE_CLASSES` bytes.
const LINE_CLASSES: usize = 4;
/// All classes.
#[cfg(not(loom))]
const CLASSES: usize = SMALL_CLASSES + LINE_CLASSES;
/// Blocks a bin holds before it goes to the depot.
#[cfg(not(loom))]
const BIN_CAP: usize = 512;
/// The most bytes all depots together keep: a Thread Ring of 100,000 processes with their
/// channels is about 21 MB.
#[cfg(not(loom))]
const DEPOT_BYTES: usize = 32 << 20;

/// The class of `layout`, if it is cached.
#[cfg(not(loom))]
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if size == 0 {
        return None;
    }
    if layout.align() <= 16 {
        (size <= SMALL_CLASSES * 16).then(|| size.div_ceil(16) - 1)
    } else if layout.align() <= 64 {
        (size <= LINE_CLASSES * 64).then(|| SMALL_CLASSES + size.div_ceil(64) - 1)
    } else {
        None
    }
}

/// The layout every block of `class` (below [`CLASSES`]) is allocated and freed with.
#[cfg(not(loom))]
#[inline]
fn class_layout(class: usize) -> Layout {
    let (size, align) = if class < SMALL_CLASSES {
        ((class + 1) * 16, 16)
    } else {
        ((class - SMALL_CLASSES + 1) * 64, 64)
    };
    debug_assert!(class < CLASSES);
    // SAFETY: the alignment is a power of two and the size a non-zero multiple of it, at most
    // 512 bytes (`Layout::from_size_align`'s checks cost more than the rest of a cache miss).
    unsafe { Layout::from_size_align_unchecked(size, align) }
}

#[cfg(not(loom))]
mod cache {
    use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
    use std::cell::UnsafeCell;
    use std::mem::ManuallyDrop;
    use std::ptr::NonNull;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    use std::sync::{Mutex, MutexGuard, PoisonError};

    use super::{class_layout, class_of, BIN_CAP, CLASSES, DEPOT_BYTES};

    /// Freed blocks of one class, the newest last. An array of pointers, not a list linked
    /// through the blocks: taking a block then reads the array (one line per eight blocks,
    /// read in order), where a linked list reads the block itself, a cache miss on every spawn
    /// that the next spawn's pop must wait for (a chain of dependent misses through a burst of
    /// spawns; measured slower than the allocator on Fork Join creation).
    struct Bin(Vec<NonNull<u8>>);

    // SAFETY: a bin's blocks are plain memory owned by whoever holds the bin (a thread's cache or
    // the depot); no one else keeps a pointer to them.
    unsafe impl Send for Bin {}

    impl Bin {
        const EMPTY: Bin = Bin(Vec::new());

        #[inline]
        fn len(&self) -> usize {
            self.0.len()
        }

        /// Takes the newest block, and asks the processor to fetch the lines of the block the
        /// next `pop` will take (`size` bytes).
        ///
        /// A freed block that waited in a bin is usually out of the first-level caches, and the
        /// spawn that gets it writes it at once: a burst of stores to missing lines that fills
        /// the store buffer and stalls the spawning loop (perf on Fork Join creation: most of a
        /// driver's samples on those stores). The allocator's own free lists read each block's
        /// link before handing it out, which fetches the line early; the prefetch does that here,
        /// one block ahead.
        #[inline]
        fn pop(&mut self, size: usize) -> Option<NonNull<u8>> {
            let block = self.0.pop()?;
            if let Some(next) = self.0.last() {
                prefetch(next.as_ptr(), size);
            }
            Some(block)
        }

        /// Adds a freed block (the bin has room: fewer than [`BIN_CAP`] blocks, and its buffer
        /// holds [`BIN_CAP`]).
        #[inline]
        fn push(&mut self, p: NonNull<u8>) {
            debug_assert!(self.0.len() < self.0.capacity());
            self.0.push(p);
        }

        /// Frees every block to the allocator.
        fn free_all(&mut self, class: usize) {
            let layout = class_layout(class);
            for p in self.0.drain(..) {
                // SAFETY: every cached block was allocated with its class's layout.
                unsafe { dealloc(p.as_ptr(), layout) };
            }
        }
    }

    /// Starts fetching the cache lines of the `size` bytes at `p` (a hint; it never faults).
    #[inline(always)]
    fn prefetch(p: *const u8, size: usize) {
        let last = (p as usize + size - 1) & !63;
        let mut line = p as usize & !63;
        while line <= last {
            motet_runtime::hint::prefetch(line as *const u8);
            line += 64;
        }
    }

    /// The full bins of one class that no thread holds.
    struct ClassDepot {
        bins: Mutex<Vec<Bin>>,
        /// How many bins there are, written under the lock: a thread whose bin is empty reads it
        /// first, so that spawning while the depot is empty costs a load, not a lock.
        len: AtomicUsize,
    }

    /// The depots, and the threads that cache blocks.
    struct Depot {
        classes: [ClassDepot; CLASSES],
        /// Bytes in all depots (kept under each class's lock; read without one as an estimate).
        bytes: AtomicUsize,
        /// Threads whose guard has not run yet: the last one to exit frees the depots' blocks.
        guarded_threads: Mutex<usize>,
    }

    static DEPOT: Depot = Depot {
        classes: [const {
            ClassDepot {
                bins: Mutex::new(Vec::new()),
                len: AtomicUsize::new(0),
            }
        }; CLASSES],
        bytes: AtomicUsize::new(0),
        guarded_threads: Mutex::new(0),
    };

    /// Whether full bins go to the depot (see [`set_depot`]).
    static DEPOT_ON: AtomicBool = AtomicBool::new(true);

    /// Locks a mutex of the depot (which holds no invariant a panic could break).
    fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bytes a full bin of `class` holds.
    fn bin_bytes(class: usize) -> usize {
        BIN_CAP * class_layout(class).size()
    }

    impl ClassDepot {
        /// A full bin, if any.
        fn take(&self, class: usize) -> Option<Bin> {
            if self.len.load(Relaxed) == 0 {
                return None;
            }
            let mut bins = lock(&self.bins);
            let bin = bins.pop()?;
            self.len.store(bins.len(), Relaxed);
            DEPOT
                .bytes
                .fetch_sub(bin.len() * class_layout(class).size(), Relaxed);
            Some(bin)
        }

        /// Keeps a full bin if the depots have room for it; gives it back otherwise.
        fn put(&self, bin: Bin, class: usize) -> Result<(), Bin> {
            let bytes = bin.len() * class_layout(class).size();
            let mut bins = lock(&self.bins);
            if DEPOT.bytes.load(Relaxed) + bytes > DEPOT_BYTES {
                return Err(bin);
            }
            DEPOT.bytes.fetch_add(bytes, Relaxed);
            bins.push(bin);
            self.len.store(bins.len(), Relaxed);
            Ok(())
        }

        /// Frees every block of this depot.
        fn drain(&self, class: usize) {
            let mut bins = lock(&self.bins);
            for mut bin in bins.drain(..) {
                DEPOT
                    .bytes
                    .fetch_sub(bin.len() * class_layout(class).size(), Relaxed);
                bin.free_all(class);
            }
            self.len.store(0, Relaxed);
        }
    }

    /// Switches the depot on or off (on by default). Off, a full bin frees every further block of
    /// its class to the allocator and an empty bin does not look in the depot, so each thread
    /// caches at most [`BIN_CAP`] blocks per class: what a test that counts the bytes a workload
    /// leaves behind needs. Blocks already in the depot stay there.
    pub(crate) fn set_depot(on: bool) {
        DEPOT_ON.store(on, Relaxed);
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
        bins: [Bin; CLASSES],
        state: State,
    }

    impl Cache {
        /// Frees every cached block; later releases bypass the cache. The last guarded thread to
        /// close also empties the depot.
        fn close(&mut self) {
            for (class, bin) in self.bins.iter_mut().enumerate() {
                bin.free_all(class);
                *bin = Bin::EMPTY;
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

        /// Registers this thread's guard before it caches a block; false once the thread is
        /// exiting.
        fn guard(&mut self) -> bool {
            match self.state {
                State::Guarded => true,
                State::Closed => false,
                State::Unguarded => {
                    if GUARD.try_with(|_| ()).is_err() {
                        self.state = State::Closed;
                        return false;
                    }
                    self.state = State::Guarded;
                    *lock(&DEPOT.guarded_threads) += 1;
                    true
                }
            }
        }
    }

    /// Empties this thread's cache when the thread exits.
    struct Guard;

    impl Drop for Guard {
        fn drop(&mut self) {
            // SAFETY: the cache is touched only by this thread, and not re-entrantly.
            let _ = CACHE.try_with(|c| unsafe { (&mut *c.get()).close() });
        }
    }

    thread_local! {
        // No destructor of its own (`ManuallyDrop`), so every access is a plain thread-local
        // access, without the registration check a thread-local with a destructor pays on each
        // use; the `GUARD`, registered when the first block is cached, empties it.
        static CACHE: UnsafeCell<ManuallyDrop<Cache>> = const {
            UnsafeCell::new(ManuallyDrop::new(Cache {
                bins: [const { Bin::EMPTY }; CLASSES],
                state: State::Unguarded,
            }))
        };
        static GUARD: Guard = const { Guard };
    }

    /// Allocates a block for `layout` (non-zero size): the newest block this thread freed of its
    /// class, else a full bin from the depot, else the allocator.
    #[inline]
    pub(crate) fn allocate(layout: Layout) -> NonNull<u8> {
        let Some(class) = class_of(layout) else {
            // SAFETY: callers pass a non-zero-sized layout.
            let p = unsafe { alloc(layout) };
            return NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout));
        };
        // SAFETY: the cache is touched only by this thread, and not re-entrantly (nothing in
        // here calls back into `allocate` or `release`).
        let cached = CACHE
            .try_with(|c| unsafe { (&mut *c.get()).bins[class].pop(class_layout(class).size()) })
            .ok()
            .flatten();
        match cached {
            Some(p) => p,
            None => allocate_uncached(class),
        }
    }

    /// An allocation that found its bin empty: refills it from the depot (a load tells whether
    /// it has anything) or asks the allocator. Out of line, so that the common case stays a pop.
    #[cold]
    #[inline(never)]
    fn allocate_uncached(class: usize) -> NonNull<u8> {
        if DEPOT.classes[class].len.load(Relaxed) != 0 && DEPOT_ON.load(Relaxed) {
            // SAFETY: as in `allocate`: the depot's lock and vector use the global allocator,
            // never this cache.
            let refilled = CACHE
                .try_with(|c| unsafe {
                    let cache = &mut *c.get();
                    // The thread must be guarded, so that the blocks are freed when it exits.
                    if !cache.guard() {
                        return None;
                    }
                    let bin = DEPOT.classes[class].take(class)?;
                    cache.bins[class] = bin;
                    cache.bins[class].pop(class_layout(class).size())
                })
                .ok()
                .flatten();
            if let Some(p) = refilled {
                return p;
            }
        }
        let layout = class_layout(class);
        // SAFETY: a class layout has a non-zero size.
        let p = unsafe { alloc(layout) };
        NonNull::new(p).unwrap_or_else(|| handle_alloc_error(layout))
    }

    /// Frees a block that [`allocate`] returned for `layout`: into this thread's bin of its class.
    ///
    /// # Safety
    /// `p` was returned by [`allocate`] with the same `layout` and is not used afterwards.
    #[inline]
    pub(crate) unsafe fn release(p: NonNull<u8>, layout: Layout) {
        let Some(class) = class_of(layout) else {
            // SAFETY: the caller's contract: `allocate` took this layout to the allocator.
            unsafe { dealloc(p.as_ptr(), layout) };
            return;
        };
        // SAFETY: as in `allocate`; the block is the caller's to give up.
        let kept = CACHE
            .try_with(|c| unsafe {
                let cache = &mut *c.get();
                let guarded = cache.state == State::Guarded;
                let bin = &mut cache.bins[class];
                // A bin's buffer holds `BIN_CAP` blocks once it is in use (0 before).
                if guarded && bin.len() < bin.0.capacity() {
                    bin.push(p);
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

    /// A release that found its bin full or its thread not yet guarded (or exiting): hands the
    /// full bin to the depot (or, without room there, back to the allocator) and starts a new
    /// one. Out of line, so that the common case stays a push.
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
                if !cache.guard() {
                    return false;
                }
                let bin = &mut cache.bins[class];
                if bin.len() >= BIN_CAP {
                    if !DEPOT_ON.load(Relaxed) {
                        // Off: the full bin stays; this block goes to the allocator.
                        return false;
                    }
                    let full = std::mem::replace(bin, Bin::EMPTY);
                    let room = DEPOT.bytes.load(Relaxed) + bin_bytes(class) <= DEPOT_BYTES;
                    let refused = if room {
                        DEPOT.classes[class].put(full, class).err()
                    } else {
                        Some(full)
                    };
                    if let Some(mut refused) = refused {
                        // No room in the depot: the blocks go back to the allocator, and the
                        // emptied buffer serves as the new bin.
                        refused.free_all(class);
                        *bin = refused;
                    }
                }
                bin.0.reserve_exact(BIN_CAP - bin.len());
                bin.push(p);
                true
            })
            .unwrap_or(false);
        if !kept {
            // SAFETY: blocks of a class are allocated with the class's layout.
            unsafe { dealloc(p.as_ptr(), class_layout(class)) };
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::collections::HashSet;

        /// Blocks of every size in and beyond the classes come back aligned and usable, and a
        /// freed block is the next one its class hands out, whatever the exact size asked for.
        #[test]
        fn blocks_are_reused_newest_first_within_their_class() {
            for align in [1usize, 8, 16, 32, 64, 128] {
                for size in [1usize, 8, 17, 64, 100, 136, 256, 512, 513, 1000] {
                    let layout = Layout::from_size_align(size, align).unwrap();
                    let p = allocate(layout);
                    assert_eq!(p.as_ptr().addr() % align, 0);
                    // SAFETY: the block has `size` bytes; it is released once with its layout.
                    unsafe {
                        std::ptr::write_bytes(p.as_ptr(), 0xA5, size);
                        release(p, layout);
                    }
                    let again = allocate(layout);
                    assert_eq!(again.as_ptr().addr() % align, 0);
                    if let Some(class) = class_of(layout) {
                        assert_eq!(again, p, "size {size} align {align} is cached");
                        let sibling = class_layout(class);
                        // SAFETY: as above.
                        unsafe { release(again, layout) };
                        let third = allocate(sibling);
                        assert_eq!(third, p, "the class layout gets the same block");
                        // SAFETY: as above.
                        unsafe { release(third, sibling) };
                    } else {
                        // SAFETY: as above.
                        unsafe { release(again, layout) };
                    }
                }
            }
        }

        /// A block is padded to whole lines (and line-aligned) only where that costs at most
        /// `LINE_PADDING` bytes over its 16-byte class.
        #[test]
        fn blocks_are_padded_to_lines_only_where_it_is_cheap() {
            use super::super::block_layout;
            let of = |l: Layout| (l.size(), l.align());
            assert_eq!(of(block_layout::<[u64; 22]>()), (192, 64)); // 176 bytes
            assert_eq!(of(block_layout::<[u64; 16]>()), (128, 64)); // 128 bytes
            assert_eq!(of(block_layout::<[u64; 30]>()), (256, 64)); // 240 bytes: 256 costs 16
            assert_eq!(of(block_layout::<[u64; 27]>()), (216, 8)); // 256 would cost 32 over 224
            assert_eq!(of(block_layout::<[u64; 20]>()), (160, 8)); // 192 would cost 32
            assert_eq!(of(block_layout::<[u64; 26]>()), (208, 8)); // 256 would cost 48
            assert_eq!(of(block_layout::<[u64; 40]>()), (320, 8)); // beyond the line classes
            #[repr(C, align(64))]
            struct Line {
                _bytes: [u8; 64],
            }
            assert_eq!(of(block_layout::<Line>()), (64, 64));
            let p = allocate(block_layout::<[u64; 22]>());
            assert_eq!(p.as_ptr().addr() % 64, 0);
            // SAFETY: allocated just above with this layout, released once.
            unsafe { release(p, block_layout::<[u64; 22]>()) };
        }

        /// Past a bin's worth the blocks go to the depot and come back: nothing is lost or
        /// handed out twice, and every block keeps what was written into it until it is freed.
        #[test]
        fn blocks_overflowing_a_bin_are_neither_lost_nor_handed_out_twice() {
            let layout = Layout::from_size_align(48, 8).unwrap();
            for _ in 0..3 {
                let blocks: Vec<_> = (0..BIN_CAP * 3 + 7).map(|_| allocate(layout)).collect();
                let distinct: HashSet<_> = blocks.iter().copied().collect();
                assert_eq!(distinct.len(), blocks.len());
                for (i, p) in blocks.iter().enumerate() {
                    // SAFETY: each block has 48 bytes, owned by this test until released.
                    unsafe { p.cast::<[usize; 6]>().as_ptr().write([i; 6]) };
                }
                for (i, p) in blocks.iter().enumerate() {
                    // SAFETY: as above.
                    assert_eq!(unsafe { p.cast::<[usize; 6]>().as_ptr().read() }, [i; 6]);
                }
                for p in blocks {
                    // SAFETY: each block is released once with its layout.
                    unsafe { release(p, layout) };
                }
            }
        }

        /// A full bin freed on one thread reaches another thread through the depot: the blocks
        /// a fresh thread allocates are ones the first thread freed.
        #[test]
        fn a_full_bin_crosses_threads_through_the_depot() {
            // A class no other test of this crate uses, so that nobody else takes the bin.
            let layout = Layout::from_size_align(496, 16).unwrap();
            let (freed_tx, freed_rx) = std::sync::mpsc::channel();
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            // The freeing thread stays alive until the other has allocated: the depot is emptied
            // when the last thread that cached blocks exits.
            let freer = std::thread::spawn(move || {
                let blocks: Vec<_> = (0..BIN_CAP + 1).map(|_| allocate(layout)).collect();
                let addrs: Vec<usize> = blocks.iter().map(|p| p.as_ptr().addr()).collect();
                for p in blocks {
                    // SAFETY: each block is released once with its layout.
                    unsafe { release(p, layout) };
                }
                freed_tx.send(addrs).unwrap();
                done_rx.recv().unwrap();
            });
            // The first BIN_CAP frees filled the bin; the last one moved it to the depot.
            let freed: HashSet<usize> =
                freed_rx.recv().unwrap().into_iter().take(BIN_CAP).collect();
            let got: Vec<usize> = std::thread::spawn(move || {
                let blocks: Vec<_> = (0..BIN_CAP).map(|_| allocate(layout)).collect();
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
            freer.join().unwrap();
            assert_eq!(got.iter().copied().collect::<HashSet<_>>().len(), BIN_CAP);
            assert!(
                got.iter().all(|a| freed.contains(a)),
                "every block of the second thread comes from the first thread's bin"
            );
        }

        /// Stress: threads allocate, fill, hand blocks to each other and free them, so that bins
        /// move through the depot in both directions; every block holds what its owner wrote
        /// until it is freed, and no block is held by two owners at once.
        #[test]
        fn blocks_passed_between_threads_stay_intact() {
            use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
            const THREADS: usize = 4;
            const ROUNDS: usize = 20;
            const PER_ROUND: usize = BIN_CAP + 100;
            let layout = Layout::from_size_align(80, 8).unwrap();
            struct Block(NonNull<u8>);
            // SAFETY: a block is plain memory owned by whoever holds the `Block`.
            unsafe impl Send for Block {}
            type Link = (SyncSender<Vec<Block>>, Receiver<Vec<Block>>);
            let links: Vec<Link> = (0..THREADS).map(|_| sync_channel(1)).collect();
            let (senders, receivers): (Vec<_>, Vec<_>) = links.into_iter().unzip();
            let handles: Vec<_> = receivers
                .into_iter()
                .enumerate()
                .map(|(t, rx)| {
                    let next = senders[(t + 1) % THREADS].clone();
                    std::thread::spawn(move || {
                        for round in 0..ROUNDS {
                            let tag = (t * ROUNDS + round) as u64;
                            let mine: Vec<Block> = (0..PER_ROUND)
                                .map(|i| {
                                    let p = allocate(layout);
                                    // SAFETY: 80 bytes, owned by this thread.
                                    unsafe {
                                        p.cast::<[u64; 10]>().as_ptr().write([tag ^ i as u64; 10])
                                    };
                                    Block(p)
                                })
                                .collect();
                            for (i, b) in mine.iter().enumerate() {
                                // SAFETY: as above.
                                let v = unsafe { b.0.cast::<[u64; 10]>().as_ptr().read() };
                                assert_eq!(v, [tag ^ i as u64; 10], "a block changed while owned");
                            }
                            next.send(mine).unwrap();
                            let theirs = rx.recv().unwrap();
                            for b in theirs {
                                // SAFETY: each block is released once, by its last owner.
                                unsafe { release(b.0, layout) };
                            }
                        }
                    })
                })
                .collect();
            drop(senders);
            for h in handles {
                h.join().unwrap();
            }
        }
    }
}

/// The most bytes [`block_layout`] adds to a block to make it whole cache lines.
const LINE_PADDING: usize = 16;

/// The layout a block for a `T` is allocated and freed with: `T`'s own, or, where padding `T`
/// to whole 64-byte lines costs at most [`LINE_PADDING`] bytes more than its 16-byte class, that
/// many lines, aligned to a line.
///
/// A block of a 16-byte class starts anywhere in a line, so a block of 176 bytes (a process of
/// Thread Ring: 3.5 lines wide) touches four lines in half of its places and three in the other
/// half; padded to 192 bytes and aligned, it always touches three. A process's block is touched
/// in whole passes (written at its spawn, read and written when it first parks, when it ends),
/// each a cache miss per line once many processes outgrow the caches.
#[inline]
pub(crate) const fn block_layout<T>() -> Layout {
    let layout = Layout::new::<T>();
    let size = layout.size();
    let lines = size.div_ceil(64) * 64;
    if layout.align() <= 16
        && size > 0
        && lines <= LINE_CLASSES * 64
        && lines - size.div_ceil(16) * 16 <= LINE_PADDING
    {
        // SAFETY: 64 is a power of two and `lines`, a multiple of it, is at most 256 bytes.
        unsafe { Layout::from_size_align_unchecked(lines, 64) }
    } else {
        layout
    }
}

/// Allocates an uninitialised `T` from the cache, with [`block_layout`].
#[inline]
pub(crate) fn allocate_for<T>() -> NonNull<T> {
    allocate(block_layout::<T>()).cast()
}

/// Drops the `T` at `p` and frees its block.
///
/// # Safety
/// `p` came from [`allocate_for::<T>`](allocate_for), holds an initialised `T` that nothing
/// else uses, and is not used afterwards.
#[inline]
pub(crate) unsafe fn drop_and_release<T>(p: NonNull<T>) {
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::drop_in_place(p.as_ptr());
        release(p.cast(), block_layout::<T>());
    }
}
