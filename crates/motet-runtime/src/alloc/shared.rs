//! The shared bins of a block cache: full bins that no thread holds, one shelf per class.
//!
//! A thread whose bin of a class is full offers it here whole and starts an empty one; a thread
//! whose bin is empty takes a full one from here before it asks the allocator (see
//! [`CacheConfig::share_full_bins`]). This is what lets a thread that only frees (a consumer fed
//! by another worker, a worker finishing processes another one spawned) feed a thread that only
//! allocates, a bin at a time, and what keeps the blocks of a burst for the next one.
//!
//! # Synchronisation
//!
//! The blocks of a bin change hands under the shelf's mutex: the thread that offers a bin wrote
//! its blocks last (freeing them), the mutex's release and acquire order that before the taking
//! thread's use. Each shelf's `len` is written under its mutex and read without it, Relaxed, as
//! a hint: a thread with an empty bin reads it first, so that allocating while the shelf is empty
//! (a producer outrunning every consumer) costs a load and not a lock. A stale hint costs a lock
//! that finds nothing, or one trip to the allocator; it never hands out a block. `bytes` counts
//! the bytes on all shelves (added and subtracted under a shelf's mutex, so the count is exact
//! once the threads are done); read without the other shelves' locks, it is an estimate, and
//! the total limit may be passed by a bin per thread offering at the same moment.
//!
//! Blocks on a shelf belong to no thread. The threads that have cached blocks are counted: the
//! last one to exit frees every shelved block.

use std::mem;

use super::bin::Bin;
use super::config::{CacheConfig, MAX_CLASSES};
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use crate::sync::{lock, Mutex};

/// The full bins of one class.
struct Shelf {
    bins: Mutex<Vec<Bin>>,
    /// How many bins there are: written under the lock, read as a hint without it.
    len: AtomicUsize,
}

impl Shelf {
    #[cfg(not(loom))]
    const fn new() -> Shelf {
        Shelf {
            bins: Mutex::new(Vec::new()),
            len: AtomicUsize::new(0),
        }
    }

    #[cfg(loom)]
    fn new() -> Shelf {
        Shelf {
            bins: Mutex::new(Vec::new()),
            len: AtomicUsize::new(0),
        }
    }
}

/// The shared part of a block cache (see the module docs). Declared by
/// [`block_cache!`](crate::block_cache); nothing else needs to name it.
pub struct SharedBins {
    shelves: [Shelf; MAX_CLASSES],
    /// Bytes on all shelves.
    bytes: AtomicUsize,
    /// Threads that cache blocks and have not exited: the last one frees the shelved blocks.
    guarded_threads: Mutex<usize>,
    /// Whether bins are offered and taken (see [`BlockCache::set_sharing`](super::BlockCache)).
    on: AtomicBool,
}

impl SharedBins {
    /// No bins, sharing on.
    #[cfg(not(loom))]
    #[allow(clippy::new_without_default)] // only ever a static, built in a const context
    pub const fn new() -> SharedBins {
        SharedBins {
            shelves: [const { Shelf::new() }; MAX_CLASSES],
            bytes: AtomicUsize::new(0),
            guarded_threads: Mutex::new(0),
            on: AtomicBool::new(true),
        }
    }

    /// No bins, sharing on (loom's primitives cannot be built in a const context).
    #[cfg(loom)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> SharedBins {
        SharedBins {
            shelves: std::array::from_fn(|_| Shelf::new()),
            bytes: AtomicUsize::new(0),
            guarded_threads: Mutex::new(0),
            on: AtomicBool::new(true),
        }
    }

    /// Whether `class`'s shelf seemed to hold a bin (a hint; see the module docs).
    #[inline(always)]
    pub(crate) fn has_bins(&self, class: usize) -> bool {
        self.shelves[class].len.load(Relaxed) != 0
    }

    /// A full bin of `class`, if sharing is on and the shelf has one.
    pub(crate) fn take(&self, class: usize, config: &CacheConfig) -> Option<Bin> {
        if !self.on.load(Relaxed) || !self.has_bins(class) {
            return None;
        }
        let shelf = &self.shelves[class];
        let mut bins = lock(&shelf.bins);
        let bin = bins.pop()?;
        shelf.len.store(bins.len(), Relaxed);
        self.bytes
            .fetch_sub(bin.len() * config.class_layout(class).size(), Relaxed);
        Some(bin)
    }

    /// Whether a shelf of `class` holding `bins` bins has room for one more full bin, within the
    /// limits (the byte count read as an estimate).
    #[inline]
    fn fits(&self, bins: usize, class: usize, config: &CacheConfig) -> bool {
        let Some(limits) = config.sharing else {
            return false;
        };
        let max_bins = (limits.class_bytes / config.bin_bytes(class)).max(2);
        bins < max_bins
            && self
                .bytes
                .load(Relaxed)
                .saturating_add(config.bin_bytes(class))
                <= limits.total_bytes
    }

    /// Whether `class`'s shelf seems to have room for a full bin (a hint, read without the lock:
    /// a thread that only frees asks once a bin, and a full shelf then costs it two loads).
    #[inline]
    pub(crate) fn has_room(&self, class: usize, config: &CacheConfig) -> bool {
        self.fits(self.shelves[class].len.load(Relaxed), class, config)
    }

    /// Shelves a full bin of `class` if the limits leave room for it; gives it back otherwise
    /// (then its blocks go to the allocator).
    pub(crate) fn offer(&self, bin: Bin, class: usize, config: &CacheConfig) -> Result<(), Bin> {
        let bytes = bin.len() * config.class_layout(class).size();
        let shelf = &self.shelves[class];
        let mut bins = lock(&shelf.bins);
        if !self.fits(bins.len(), class, config) {
            return Err(bin);
        }
        self.bytes.fetch_add(bytes, Relaxed);
        bins.push(bin);
        shelf.len.store(bins.len(), Relaxed);
        Ok(())
    }

    /// Switches sharing on or off (see [`BlockCache::set_sharing`](super::BlockCache)).
    pub(crate) fn set_on(&self, on: bool) {
        self.on.store(on, Relaxed);
    }

    /// Whether full bins are shared.
    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.on.load(Relaxed)
    }

    /// Counts a thread that has begun caching blocks.
    pub(crate) fn thread_started(&self) {
        *lock(&self.guarded_threads) += 1;
    }

    /// Counts a caching thread out; the last one frees every shelved block.
    pub(crate) fn thread_ended(&self, config: &CacheConfig) {
        let mut threads = lock(&self.guarded_threads);
        *threads -= 1;
        if *threads == 0 {
            self.drain(config);
        }
    }

    /// Frees every shelved block.
    fn drain(&self, config: &CacheConfig) {
        for (class, shelf) in self.shelves.iter().enumerate().take(config.class_count()) {
            let layout = config.class_layout(class);
            let mut bins = lock(&shelf.bins);
            for mut bin in mem::take(&mut *bins) {
                self.bytes.fetch_sub(bin.len() * layout.size(), Relaxed);
                bin.free_all(layout);
            }
            shelf.len.store(0, Relaxed);
        }
    }

    /// The bytes on all shelves (for tests).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Relaxed)
    }

    /// How many bins `class`'s shelf holds (for tests).
    #[cfg(test)]
    pub(crate) fn bins(&self, class: usize) -> usize {
        lock(&self.shelves[class].bins).len()
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    //! The shelves under loom: bins offered and taken by racing threads are handed out once,
    //! whole, and the byte count adds up; the last caching thread out frees what is left.
    //! (`RUSTFLAGS="--cfg loom" cargo test -p motet-runtime --lib --release loom`.)

    use std::alloc::{alloc, Layout};
    use std::collections::HashSet;
    use std::ptr::NonNull;

    use loom::sync::Arc;
    use loom::thread;

    use super::*;

    /// Two blocks a bin, one class of 16 bytes, room for two bins a class (the minimum) and a
    /// total as large as the test says.
    fn config(total_bytes: usize) -> CacheConfig {
        CacheConfig::new()
            .classes(2)
            .bin_blocks(2)
            .share_full_bins(0, total_bytes)
            .checked()
    }

    /// A full bin of fresh blocks of `class`.
    fn full_bin(config: &CacheConfig, class: usize) -> (Bin, Vec<usize>) {
        let layout: Layout = config.class_layout(class);
        let blocks: Vec<NonNull<u8>> = (0..config.bin_blocks)
            // SAFETY: a class layout has a non-zero size.
            .map(|_| NonNull::new(unsafe { alloc(layout) }).unwrap())
            .collect();
        let addrs = blocks.iter().map(|p| p.as_ptr().addr()).collect();
        (Bin::of(blocks), addrs)
    }

    fn addrs(bin: &Bin) -> Vec<usize> {
        bin.blocks().iter().map(|p| p.as_ptr().addr()).collect()
    }

    /// A bin offered by one thread while another takes: the taker gets it whole or not at all,
    /// and what it did not get is still shelved, counted in the bytes.
    #[test]
    fn loom_a_full_bin_moves_whole_between_threads() {
        loom::model(|| {
            let cfg = config(usize::MAX);
            let shared = Arc::new(SharedBins::new());
            let offerer = {
                let shared = shared.clone();
                thread::spawn(move || {
                    let (bin, addrs) = full_bin(&cfg, 0);
                    assert!(shared.offer(bin, 0, &cfg).is_ok());
                    addrs
                })
            };
            let mut taken = shared.take(0, &cfg);
            let offered = offerer.join().unwrap();
            if taken.is_none() {
                taken = shared.take(0, &cfg);
            }
            let mut taken = taken.expect("the bin is on its shelf once offered");
            assert_eq!(addrs(&taken), offered);
            assert_eq!(shared.bytes(), 0);
            assert!(!shared.has_bins(0));
            taken.free_all(cfg.class_layout(0));
        });
    }

    /// Two threads offering to one class and to another: each bin is shelved once or given back,
    /// a class holds at most its limit, and the byte count is exact afterwards.
    #[test]
    fn loom_racing_offers_keep_the_count() {
        loom::model(|| {
            let cfg = config(usize::MAX);
            let shared = Arc::new(SharedBins::new());
            let threads: Vec<_> = [0, 0, 1]
                .into_iter()
                .map(|class| {
                    let shared = shared.clone();
                    thread::spawn(move || {
                        let (bin, _) = full_bin(&cfg, class);
                        if let Err(mut refused) = shared.offer(bin, class, &cfg) {
                            refused.free_all(cfg.class_layout(class));
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            // Two bins fit a class: all three are shelved, and a third of class 0 is refused.
            assert_eq!(shared.bins(0), 2);
            let (bin, _) = full_bin(&cfg, 0);
            let mut refused = shared.offer(bin, 0, &cfg).unwrap_err();
            refused.free_all(cfg.class_layout(0));
            assert_eq!(shared.bins(1), 1);
            let expected = 2 * cfg.bin_bytes(0) + cfg.bin_bytes(1);
            assert_eq!(shared.bytes(), expected);
            let mut seen = HashSet::new();
            for class in [0, 0, 1] {
                let mut bin = shared.take(class, &cfg).unwrap();
                assert!(addrs(&bin).into_iter().all(|a| seen.insert(a)));
                bin.free_all(cfg.class_layout(class));
            }
            assert_eq!(shared.bytes(), 0);
        });
    }

    /// The last of two caching threads to end frees what is shelved, whichever it is; the other
    /// one's end leaves the shelf alone.
    #[test]
    fn loom_the_last_thread_out_frees_the_shelves() {
        loom::model(|| {
            let cfg = config(usize::MAX);
            let shared = Arc::new(SharedBins::new());
            shared.thread_started();
            shared.thread_started();
            let threads: Vec<_> = (0..2)
                .map(|_| {
                    let shared = shared.clone();
                    thread::spawn(move || {
                        let (bin, _) = full_bin(&cfg, 0);
                        assert!(shared.offer(bin, 0, &cfg).is_ok());
                        shared.thread_ended(&cfg);
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            assert_eq!(shared.bins(0), 0);
            assert_eq!(shared.bytes(), 0);
            assert!(!shared.has_bins(0));
        });
    }
}
