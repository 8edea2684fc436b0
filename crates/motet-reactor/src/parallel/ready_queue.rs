//! LF's ready queue (paper section 4.4): a fixed-size buffer holding the reactions of one level and
//! an atomic counter that workers decrement... here increment: `state` packs the level's size `n`
//! (high 32 bits) and the next index to claim (low 32 bits), so one `fetch_add` both claims an index
//! and says whether it is valid (`index < n`). A second counter, `remaining`, counts reactions not
//! yet finished; the worker that brings it to zero finished the level and becomes the scheduler.
//!
//! # Protocol
//!
//! - **publish** (by the scheduler, while no claim can succeed: every reaction of the previous level
//!   is finished): write the buffer, set `remaining = n`, then swap `state` to `n << 32`.
//! - **claim**: `fetch_add(1)` (acquire); the claimer owns `buf[index]` if `index < n`. A stale
//!   claimer that saw the old level fails; one whose increment lands after the publish claims a
//!   valid entry of the new level, which is fine: it is a worker like any other. The low half cannot
//!   overflow: each worker fails at most twice per publish before it stops trying.
//! - **finish**: `remaining.fetch_sub(1)` (acq-rel); the result 1 means this was the last one, and
//!   the acquire makes every other worker's effects on the level visible to the new scheduler.

use std::cell::UnsafeCell;

#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

const INDEX: u64 = 0xffff_ffff;

/// The fixed-size ready queue of one run.
pub(crate) struct ReadyQueue {
    buf: Box<[UnsafeCell<u32>]>,
    state: AtomicU64,
    remaining: AtomicUsize,
}

// SAFETY: `buf` entries are written only by the publisher while no claim can succeed, and read by
// the one claimer that owns the index after an acquire of `state` (see the module docs).
unsafe impl Sync for ReadyQueue {}

impl ReadyQueue {
    /// A queue for levels of up to `capacity` reactions.
    pub(crate) fn new(capacity: usize) -> ReadyQueue {
        ReadyQueue {
            buf: (0..capacity.max(1)).map(|_| UnsafeCell::new(0)).collect(),
            state: AtomicU64::new(0),
            remaining: AtomicUsize::new(0),
        }
    }

    /// Publishes a level.
    ///
    /// # Safety
    /// No claim of the previous level can still succeed (all of it was claimed and finished), and
    /// `items` fits the capacity.
    pub(crate) unsafe fn publish(&self, items: &[u32]) {
        assert!(
            items.len() <= self.buf.len(),
            "a level wider than the ready queue"
        );
        for (slot, &r) in self.buf.iter().zip(items) {
            // SAFETY: no claimer reads the buffer until `state` is stored below.
            unsafe { *slot.get() = r };
        }
        self.remaining.store(items.len(), Ordering::SeqCst);
        // Release: the buffer and `remaining` before the claims that observe the new size. A swap
        // rather than a store: as a read-modify-write it takes its place in the one chain of
        // read-modify-writes on `state`, so no claim can be ordered across it.
        self.state
            .swap((items.len() as u64) << 32, Ordering::SeqCst);
    }

    /// Claims the next reaction of the level, if any is left.
    pub(crate) fn claim(&self) -> Option<u32> {
        let v = self.state.fetch_add(1, Ordering::SeqCst);
        let (n, i) = (v >> 32, v & INDEX);
        if i < n {
            // SAFETY: index `i` is ours alone, and the acquire above saw the publish that wrote it.
            Some(unsafe { *self.buf[i as usize].get() })
        } else {
            None
        }
    }

    /// Whether unclaimed reactions are left.
    pub(crate) fn has_work(&self) -> bool {
        let v = self.state.load(Ordering::SeqCst);
        (v & INDEX) < (v >> 32)
    }

    /// Records that a claimed reaction finished; `true` for the level's last one.
    pub(crate) fn finish_one(&self) -> bool {
        self.remaining.fetch_sub(1, Ordering::SeqCst) == 1
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64 as Sum;
    use std::sync::Arc;

    /// Many levels, four workers: every item is run exactly once and exactly one worker sees the
    /// end of each level, which publishes the next.
    #[test]
    fn stress_levels() {
        const LEVELS: u32 = 2000;
        let q = Arc::new(ReadyQueue::new(8));
        let sum = Arc::new(Sum::new(0));
        let lasts = Arc::new(Sum::new(0));
        let level = Arc::new(std::sync::atomic::AtomicU32::new(1));
        let items = |l: u32| -> Vec<u32> { (0..(l % 8) + 1).map(|i| l * 10 + i).collect() };
        // SAFETY: nothing claimed yet.
        unsafe { q.publish(&items(0)) };
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (q, sum, lasts, level) = (q.clone(), sum.clone(), lasts.clone(), level.clone());
                std::thread::spawn(move || loop {
                    if let Some(r) = q.claim() {
                        sum.fetch_add(u64::from(r), Ordering::SeqCst);
                        if q.finish_one() {
                            lasts.fetch_add(1, Ordering::SeqCst);
                            let l = level.fetch_add(1, Ordering::SeqCst);
                            if l < LEVELS {
                                // SAFETY: this worker finished the level's last item.
                                unsafe { q.publish(&items(l)) };
                            }
                        }
                    } else if level.load(Ordering::SeqCst) > LEVELS {
                        return;
                    } else {
                        std::thread::yield_now();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let expected: u64 = (0..LEVELS).flat_map(items).map(u64::from).sum();
        assert_eq!(sum.load(Ordering::SeqCst), expected);
        assert_eq!(lasts.load(Ordering::SeqCst), u64::from(LEVELS));
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::atomic::AtomicUsize as Count;
    use loom::sync::Arc;

    /// Two workers drain a published level of two items, then the one that finishes last publishes
    /// a second level of one item: each item is run exactly once and exactly one worker becomes the
    /// scheduler per level.
    #[test]
    fn loom_claim_finish_publish() {
        loom::model(|| {
            let q = Arc::new(ReadyQueue::new(2));
            // SAFETY: nothing claimed yet.
            unsafe { q.publish(&[1, 2]) };
            let sum = Arc::new(Count::new(0));
            let lasts = Arc::new(Count::new(0));
            let threads: Vec<_> = (0..2)
                .map(|_| {
                    let (q, sum, lasts) = (q.clone(), sum.clone(), lasts.clone());
                    loom::thread::spawn(move || {
                        for _ in 0..3 {
                            if let Some(r) = q.claim() {
                                sum.fetch_add(r as usize, Ordering::SeqCst);
                                if q.finish_one() {
                                    if lasts.fetch_add(1, Ordering::SeqCst) == 0 {
                                        // SAFETY: the first level is fully finished.
                                        unsafe { q.publish(&[10]) };
                                    }
                                }
                            }
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            // The second level may be left unclaimed if both workers gave up before it was
            // published; drain it here, as the publisher would by scheduling a runner.
            while let Some(r) = q.claim() {
                sum.fetch_add(r as usize, Ordering::SeqCst);
                if q.finish_one() {
                    lasts.fetch_add(1, Ordering::SeqCst);
                }
            }
            assert_eq!(sum.load(Ordering::SeqCst), 13);
            assert_eq!(lasts.load(Ordering::SeqCst), 2);
        });
    }
}
