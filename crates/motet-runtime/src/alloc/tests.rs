//! The block caches on real threads: blocks are recycled within their class, newest first; full
//! bins move between threads through the shared bins and within their limits; nothing is lost or
//! handed out twice, also under a stress of threads passing blocks to each other.

use std::alloc::Layout;
use std::collections::HashSet;
use std::ptr::NonNull;

use super::thread_cache::State;
use super::{BlockCache, CacheConfig};

/// 8-byte classes up to 256 bytes, full bins shared (as actor messages and cells).
const SHARED_8: CacheConfig = CacheConfig::new()
    .grain(8)
    .align(8)
    .classes(32)
    .bin_blocks(512)
    .share_full_bins(512 << 10, usize::MAX);

crate::block_cache! {
    /// For the tests of recycling and overflow.
    struct Small = SHARED_8;
}

crate::block_cache! {
    /// 16-byte classes aligned to 8, bins of 256, nothing shared (as behaviours).
    struct Unshared = CacheConfig::new().grain(16).align(8).classes(32).bin_blocks(256);
}

crate::block_cache! {
    /// Line classes and padding as processes and channels have them, with smaller bins and
    /// shelves: 16-byte classes, four line classes, at most 4 MiB shared, prefetching.
    struct Lines = CacheConfig::new()
        .line_classes(4)
        .pad_to_lines(16)
        .bin_blocks(64)
        .share_full_bins(usize::MAX, 4 << 20)
        .prefetch_next(true);
}

crate::block_cache! {
    /// For the test of moving a bin between threads alone.
    struct Crossing = SHARED_8;
}

crate::block_cache! {
    /// For the test of the shelf limit alone.
    struct Capped = SHARED_8;
}

crate::block_cache! {
    /// For the stress test alone.
    struct Stressed = CacheConfig::new().bin_blocks(64).share_full_bins(64 << 10, usize::MAX);
}

/// Allocates and releases blocks of `C` for many sizes and alignments: each comes back aligned
/// and usable, and a freed block of a class is the next one its class hands out, whatever the
/// exact size asked for.
fn recycles_within_classes<C: BlockCache>() {
    for align in [1usize, 2, 8, 16, 32, 64, 128] {
        for size in [
            1usize, 7, 8, 9, 17, 24, 64, 100, 136, 256, 257, 512, 513, 1000,
        ] {
            let layout = Layout::from_size_align(size, align).unwrap();
            let p = C::allocate(layout);
            assert_eq!(p.as_ptr().addr() % align, 0);
            // SAFETY: the block has `size` bytes; it is released once with its layout.
            unsafe {
                std::ptr::write_bytes(p.as_ptr(), 0xA5, size);
                C::release(p, layout);
            }
            let again = C::allocate(layout);
            assert_eq!(again.as_ptr().addr() % align, 0);
            match C::CONFIG.class_of(layout) {
                Some(class) => {
                    assert_eq!(again, p, "size {size} align {align} is cached");
                    let sibling = C::CONFIG.class_layout(class);
                    // SAFETY: as above.
                    unsafe { C::release(again, layout) };
                    let third = C::allocate(sibling);
                    assert_eq!(third, p, "the class layout gets the same block");
                    // SAFETY: as above.
                    unsafe { C::release(third, sibling) };
                }
                // SAFETY: as above.
                None => unsafe { C::release(again, layout) },
            }
        }
    }
    C::release_thread_cache();
}

#[test]
fn blocks_are_recycled_within_their_class() {
    recycles_within_classes::<Small>();
    recycles_within_classes::<Unshared>();
    recycles_within_classes::<Lines>();
}

/// The classes each configuration has: grain classes up to their limit and alignment, line
/// classes where configured.
#[test]
fn classes_follow_the_configuration() {
    let class = |c: &CacheConfig, size, align| {
        c.class_layout_of(Layout::from_size_align(size, align).unwrap())
            .map(|l| (l.size(), l.align()))
    };
    assert_eq!(class(&Small::CONFIG, 20, 4), Some((24, 8)));
    assert_eq!(class(&Small::CONFIG, 256, 8), Some((256, 8)));
    assert_eq!(class(&Small::CONFIG, 257, 8), None);
    assert_eq!(class(&Small::CONFIG, 16, 16), None);
    assert_eq!(class(&Unshared::CONFIG, 20, 8), Some((32, 8)));
    assert_eq!(class(&Unshared::CONFIG, 512, 8), Some((512, 8)));
    assert_eq!(class(&Unshared::CONFIG, 16, 16), None);
    assert_eq!(class(&Lines::CONFIG, 20, 16), Some((32, 16)));
    assert_eq!(class(&Lines::CONFIG, 100, 64), Some((128, 64)));
    assert_eq!(class(&Lines::CONFIG, 200, 32), Some((256, 64)));
    assert_eq!(class(&Lines::CONFIG, 300, 64), None);
    assert_eq!(class(&Lines::CONFIG, 64, 128), None);
}

/// A block is padded to whole lines (and line-aligned) only where that costs at most the
/// configured padding over its grain class.
#[test]
fn blocks_are_padded_to_lines_only_where_it_is_cheap() {
    let of = |l: Layout| (l.size(), l.align());
    assert_eq!(of(Lines::layout_for::<[u64; 22]>()), (192, 64)); // 176 bytes
    assert_eq!(of(Lines::layout_for::<[u64; 16]>()), (128, 64)); // 128 bytes
    assert_eq!(of(Lines::layout_for::<[u64; 30]>()), (256, 64)); // 240 bytes: 256 costs 16
    assert_eq!(of(Lines::layout_for::<[u64; 27]>()), (216, 8)); // 256 would cost 32 over 224
    assert_eq!(of(Lines::layout_for::<[u64; 20]>()), (160, 8)); // 192 would cost 32
    assert_eq!(of(Lines::layout_for::<[u64; 26]>()), (208, 8)); // 256 would cost 48
    assert_eq!(of(Lines::layout_for::<[u64; 40]>()), (320, 8)); // beyond the line classes
    #[repr(C, align(64))]
    struct Line {
        _bytes: [u8; 64],
    }
    assert_eq!(of(Lines::layout_for::<Line>()), (64, 64));
    // Without padding configured, a type keeps its own layout.
    assert_eq!(of(Small::layout_for::<[u64; 22]>()), (176, 8));
    let p = Lines::allocate_for::<[u64; 22]>();
    assert_eq!(p.as_ptr().addr() % 64, 0);
    // SAFETY: an initialised value in a block allocated just above for it, released once.
    unsafe {
        p.as_ptr().write([7; 22]);
        Lines::drop_and_release(p);
    }
}

/// Allocates `n` blocks of `layout` from `C`, each written with its index.
fn filled<C: BlockCache>(layout: Layout, n: usize) -> Vec<NonNull<u8>> {
    let blocks: Vec<_> = (0..n).map(|_| C::allocate(layout)).collect();
    for (i, p) in blocks.iter().enumerate() {
        // SAFETY: each block has at least 8 bytes (the tests' layouts), owned by the test.
        unsafe { p.cast::<usize>().as_ptr().write(i) };
    }
    blocks
}

/// Past a bin's worth, blocks go to the shared bins (or the allocator) and come back: nothing
/// is lost or handed out twice, and every block keeps what was written into it until it is
/// freed.
fn overflow_is_neither_lost_nor_handed_out_twice<C: BlockCache>() {
    let layout = Layout::from_size_align(48, 8).unwrap();
    let cap = C::CONFIG.bin_blocks;
    for _ in 0..3 {
        let blocks = filled::<C>(layout, cap * 3 + 7);
        let distinct: HashSet<_> = blocks.iter().copied().collect();
        assert_eq!(distinct.len(), blocks.len());
        for (i, p) in blocks.iter().enumerate() {
            // SAFETY: as in `filled`.
            assert_eq!(unsafe { p.cast::<usize>().as_ptr().read() }, i);
        }
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { C::release(p, layout) };
        }
    }
}

#[test]
fn overflowing_blocks_are_neither_lost_nor_handed_out_twice() {
    overflow_is_neither_lost_nor_handed_out_twice::<Small>();
    overflow_is_neither_lost_nor_handed_out_twice::<Unshared>();
    overflow_is_neither_lost_nor_handed_out_twice::<Lines>();
}

/// A full bin freed on one thread reaches another thread through the shared bins: the blocks a
/// fresh thread allocates are ones the first thread freed.
#[test]
fn a_full_bin_crosses_threads_through_the_shared_bins() {
    let layout = Layout::from_size_align(248, 8).unwrap();
    let cap = Crossing::CONFIG.bin_blocks;
    let (freed_tx, freed_rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    // The freeing thread stays alive until the other has allocated: the shared bins are emptied
    // when the last thread that cached blocks exits.
    let freer = std::thread::spawn(move || {
        let blocks: Vec<_> = (0..cap + 1).map(|_| Crossing::allocate(layout)).collect();
        let addrs: Vec<usize> = blocks.iter().map(|p| p.as_ptr().addr()).collect();
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { Crossing::release(p, layout) };
        }
        freed_tx.send(addrs).unwrap();
        done_rx.recv().unwrap();
    });
    // The first `cap` frees filled the bin; the last one moved it to the shared bins.
    let freed: HashSet<usize> = freed_rx.recv().unwrap().into_iter().take(cap).collect();
    let got: Vec<usize> = std::thread::spawn(move || {
        let blocks: Vec<_> = (0..cap).map(|_| Crossing::allocate(layout)).collect();
        let addrs = blocks.iter().map(|p| p.as_ptr().addr()).collect();
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { Crossing::release(p, layout) };
        }
        addrs
    })
    .join()
    .unwrap();
    done_tx.send(()).unwrap();
    freer.join().unwrap();
    assert_eq!(got.iter().copied().collect::<HashSet<_>>().len(), cap);
    assert!(
        got.iter().all(|a| freed.contains(a)),
        "every block of the second thread comes from the first thread's bin"
    );
}

/// A thread that only frees fills a class's shelf up to its limit and no further: the rest goes
/// back to the allocator, a whole bin at a time. With sharing off, nothing more is shelved.
#[test]
fn the_shared_bins_keep_at_most_their_limit() {
    let layout = Layout::from_size_align(240, 8).unwrap();
    let config = Capped::CONFIG;
    let class = config.class_of(layout).unwrap();
    let limit = (512 << 10) / config.bin_bytes(class);
    let shelved = std::thread::spawn(move || {
        let blocks: Vec<_> = (0..config.bin_blocks * (limit + 3))
            .map(|_| Capped::allocate(layout))
            .collect();
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { Capped::release(p, layout) };
        }
        let shelved = Capped::shared_bins().bins(class);
        let bytes = Capped::shared_bins().bytes();
        (shelved, bytes)
    })
    .join()
    .unwrap();
    assert_eq!(shelved.0, limit);
    assert_eq!(shelved.1, limit * config.bin_bytes(class));
    // The thread exited: it was the last caching thread, so the shelf is empty again.
    assert_eq!(Capped::shared_bins().bins(class), 0);
    assert_eq!(Capped::shared_bins().bytes(), 0);
    Capped::set_sharing(false);
    std::thread::spawn(move || {
        let blocks: Vec<_> = (0..config.bin_blocks * 3)
            .map(|_| Capped::allocate(layout))
            .collect();
        for p in blocks {
            // SAFETY: each block is released once with its layout.
            unsafe { Capped::release(p, layout) };
        }
        assert_eq!(Capped::shared_bins().bins(class), 0);
    })
    .join()
    .unwrap();
    Capped::set_sharing(true);
}

/// The first block a thread keeps registers its exit hook; blocks released before are kept from
/// then on, and `release_thread_cache` frees them and keeps the bin open.
#[test]
fn the_first_kept_block_registers_the_exit_hook() {
    std::thread::spawn(|| {
        let layout = Layout::from_size_align(64, 8).unwrap();
        let class = Unshared::CONFIG.class_of(layout).unwrap();
        // SAFETY: only this thread touches its cache, and not re-entrantly.
        let state = || Unshared::thread_cache().with(|c| unsafe { c.get().state });
        // SAFETY: as above.
        let kept = || Unshared::thread_cache().with(|c| unsafe { c.get().bins[class].len() });
        assert_eq!(state(), State::Unguarded);
        let blocks: Vec<_> = (0..10).map(|_| Unshared::allocate(layout)).collect();
        for p in blocks {
            // SAFETY: fresh blocks of this layout, released once.
            unsafe { Unshared::release(p, layout) };
        }
        assert_eq!(state(), State::Guarded);
        assert_eq!(kept(), 10);
        Unshared::release_thread_cache();
        assert_eq!(kept(), 0);
        let p = Unshared::allocate(layout);
        // SAFETY: as above.
        unsafe { Unshared::release(p, layout) };
        assert_eq!(kept(), 1, "the bin stays open");
    })
    .join()
    .unwrap();
}

/// Stress: threads allocate, fill, hand blocks to each other and free them, so that bins move
/// through the shared bins in both directions; every block holds what its owner wrote until it
/// is freed, and no block is held by two owners at once.
#[test]
fn blocks_passed_between_threads_stay_intact() {
    use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
    const THREADS: usize = 4;
    const ROUNDS: usize = 20;
    let per_round = Stressed::CONFIG.bin_blocks * 3 + 10;
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
                    let mine: Vec<Block> = (0..per_round)
                        .map(|i| {
                            let p = Stressed::allocate(layout);
                            // SAFETY: 80 bytes, owned by this thread.
                            unsafe { p.cast::<[u64; 10]>().as_ptr().write([tag ^ i as u64; 10]) };
                            Block(p)
                        })
                        .collect();
                    let distinct: HashSet<_> = mine.iter().map(|b| b.0).collect();
                    assert_eq!(distinct.len(), mine.len(), "a block handed out twice");
                    for (i, b) in mine.iter().enumerate() {
                        // SAFETY: as above.
                        let v = unsafe { b.0.cast::<[u64; 10]>().as_ptr().read() };
                        assert_eq!(v, [tag ^ i as u64; 10], "a block changed while owned");
                    }
                    next.send(mine).unwrap();
                    for b in rx.recv().unwrap() {
                        // SAFETY: each block is released once, by its last owner.
                        unsafe { Stressed::release(b.0, layout) };
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
