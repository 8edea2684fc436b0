//! A worker's next-task slot: one task the owner runs next, which an idle worker may take over
//! when the owner is stuck in a long turn.
//!
//! # Why it is shared
//!
//! A task scheduled from a running task goes into the worker's slot, so that a chain of hand-offs
//! runs on one worker with warm caches and without touching a queue. If the slot were private to
//! its worker, its task would wait for the end of the turn that scheduled it, however long that
//! turn runs (a busy-wait, a long computation, a blocking wait for the very task in the slot) and
//! however many workers sit idle. So the slot is an atomic pointer that other workers can empty,
//! as the `runnext` slot of Go's scheduler is.
//!
//! # Protocol
//!
//! - The **owner** fills the slot with [`Slot::fill`] (a load and, if the slot is empty, a plain
//!   release store: only the owner fills a slot, so an empty slot stays empty until then; an
//!   occupied slot keeps its task, and the owner queues the new one) and empties it with
//!   [`Slot::take`] (a load, and a swap only when the load saw a task). In a pool of one worker
//!   nobody else looks at the slot, and the owner uses [`Slot::fill_unshared`] and
//!   [`Slot::take_unshared`]: loads and stores, no read-modify-write. Before each turn it bumps
//!   the slot's **turn counter** with [`Slot::begin_turn`]: a relaxed store to a line only it
//!   writes.
//! - A **thief** (a searching worker that found nothing in any queue) reads a victim's turn counter
//!   with [`Slot::turn`], and takes the victim's slot with the same [`Slot::take`] (a swap with null) only
//!   after it saw the same turn counter for a while: the owner is then inside one long turn and
//!   will not reach its slot soon. A slot whose owner moves on from turn to turn (a ping-pong
//!   pair handing a message back and forth) is left alone, so the pair is not split across
//!   workers for nothing.
//! - Every hand-over out of the slot is one atomic swap, so a task leaves the slot exactly once:
//!   by the owner's `take` or by one thief's `take`.
//!   The store that puts a task releases its contents; the swap that takes it acquires
//!   them.
//!
//! Filling the slot wakes nobody. Who notices that a slot holds a task while every other worker
//! is parked (a worker parked with a timeout, which then compares the turn counter) is the
//! pool's side: see `pool.rs`.

use std::ptr::{self, NonNull};

use crossbeam_utils::CachePadded;

use crate::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// One worker's next-task slot and turn counter, on a cache line of their own.
pub(crate) struct Slot<T> {
    inner: CachePadded<SlotInner<T>>,
}

struct SlotInner<T> {
    task: AtomicPtr<T>,
    turn: AtomicU32,
}

impl<T> Slot<T> {
    /// An empty slot at turn 0.
    pub(crate) fn new() -> Slot<T> {
        Slot {
            inner: CachePadded::new(SlotInner {
                task: AtomicPtr::new(ptr::null_mut()),
                turn: AtomicU32::new(0),
            }),
        }
    }

    /// Owner only: puts `task` into an empty slot, or gives it back if the slot holds a task (the
    /// owner then queues it, and the slot keeps the task that was there first).
    ///
    /// Neither case needs a read-modify-write: only the owner ever fills the slot, so a slot the
    /// owner sees empty stays empty until the owner's own store, and no thief can slip a task in
    /// between; a slot it sees occupied is left alone (a thief may empty it meanwhile, which loses
    /// nothing: the new task is queued either way). No wake check goes with the store (see
    /// `pool.rs` for who rescues a task stuck here), so it only needs to release the task's
    /// contents to a thief.
    #[inline]
    pub(crate) fn fill(&self, task: NonNull<T>) -> Result<(), NonNull<T>> {
        self.fill_ordered(task, Ordering::Release)
    }

    /// Owner of a slot that no other worker looks at (a pool of one worker): `fill` with a
    /// relaxed store.
    #[inline]
    pub(crate) fn fill_unshared(&self, task: NonNull<T>) -> Result<(), NonNull<T>> {
        self.fill_ordered(task, Ordering::Relaxed)
    }

    /// The body of `fill` and `fill_unshared`, whose store has ordering `store`: inlined into
    /// both, where `store` is a constant.
    #[inline(always)]
    fn fill_ordered(&self, task: NonNull<T>, store: Ordering) -> Result<(), NonNull<T>> {
        if !self.inner.task.load(Ordering::Relaxed).is_null() {
            return Err(task);
        }
        self.inner.task.store(task.as_ptr(), store);
        Ok(())
    }

    /// Owner of a slot that no other worker looks at (a pool of one worker): `take` without any
    /// read-modify-write.
    #[inline]
    pub(crate) fn take_unshared(&self) -> Option<NonNull<T>> {
        let task = NonNull::new(self.inner.task.load(Ordering::Relaxed))?;
        self.inner.task.store(ptr::null_mut(), Ordering::Relaxed);
        Some(task)
    }

    /// Any worker: takes the slot's task, if any (the owner before a turn, a thief, the owner
    /// draining at shutdown). A load first, so that an empty slot (the common case between
    /// chains) costs no read-modify-write.
    #[inline]
    pub(crate) fn take(&self) -> Option<NonNull<T>> {
        if self.inner.task.load(Ordering::Relaxed).is_null() {
            return None;
        }
        NonNull::new(self.inner.task.swap(ptr::null_mut(), Ordering::Acquire))
    }

    /// Whether the slot holds a task (a snapshot, for a searching worker's look at the slots).
    #[inline]
    pub(crate) fn is_occupied(&self) -> bool {
        !self.inner.task.load(Ordering::Relaxed).is_null()
    }

    /// Owner only: marks the start of a new turn. `turn` is the owner's own count of its turns.
    #[inline]
    pub(crate) fn begin_turn(&self, turn: u32) {
        self.inner.turn.store(turn, Ordering::Relaxed);
    }

    /// The owner's turn counter (a snapshot, for thieves).
    #[inline]
    pub(crate) fn turn(&self) -> u32 {
        self.inner.turn.load(Ordering::Relaxed)
    }
}

/// Loom models of the slot: an owner and a thief never lose a task and never both get one. Run
/// with `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p motet-runtime --lib --release
/// loom`.
#[cfg(all(test, loom))]
mod loom_models {
    use super::Slot;
    use loom::sync::Arc;
    use std::ptr::NonNull;

    fn task(n: u32) -> NonNull<u32> {
        NonNull::from(Box::leak(Box::new(n)))
    }

    /// Frees a task and returns its number (each task is freed once, by whoever got it).
    fn run(t: NonNull<u32>) -> u32 {
        // SAFETY: every task pointer comes from `task` (a leaked box) and leaves the slot exactly
        // once, so it is turned back into its box exactly once.
        *unsafe { Box::from_raw(t.as_ptr()) }
    }

    /// The owner fills the slot twice (the second task is given back, to be queued, unless a thief
    /// took the first) and then takes what is left; a thief steals meanwhile. Each task is run
    /// exactly once.
    #[test]
    fn loom_owner_and_thief_run_each_task_once() {
        loom::model(|| {
            let slot = Arc::new(Slot::<u32>::new());
            let thief = {
                let slot = slot.clone();
                loom::thread::spawn(move || {
                    let mut got = Vec::new();
                    for _ in 0..2 {
                        if let Some(t) = slot.take() {
                            got.push(run(t));
                        }
                    }
                    got
                })
            };
            let mut got = Vec::new();
            slot.begin_turn(1);
            if let Err(queued) = slot.fill(task(1)) {
                got.push(run(queued));
            }
            slot.begin_turn(2);
            if let Err(queued) = slot.fill(task(2)) {
                got.push(run(queued));
            }
            if let Some(t) = slot.take() {
                got.push(run(t));
            }
            got.extend(thief.join().unwrap());
            got.sort_unstable();
            assert_eq!(got, vec![1, 2]);
            assert!(!slot.is_occupied());
        });
    }

    /// Two thieves race for one task in the slot while the owner tries to take it: exactly one of
    /// the three gets it.
    #[test]
    fn loom_one_task_goes_to_one_taker() {
        loom::model(|| {
            let slot = Arc::new(Slot::<u32>::new());
            assert!(slot.fill(task(7)).is_ok());
            let thieves: Vec<_> = (0..2)
                .map(|_| {
                    let slot = slot.clone();
                    loom::thread::spawn(move || slot.take().map(run))
                })
                .collect();
            let mut got: Vec<u32> = slot.take().map(run).into_iter().collect();
            for t in thieves {
                got.extend(t.join().unwrap());
            }
            assert_eq!(got, vec![7]);
        });
    }
}
