//! Loom models of the result hand-over: the behaviour completing races the promise polling and
//! being dropped. The block must be freed exactly once, a registered waiter must be woken, and a
//! result must be taken at most once (and dropped otherwise).

use std::sync::Arc;
use std::task::{Wake, Waker};

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use loom::thread;

use super::{Completion, WakerCell};
use crate::sync::UnsafeCell;

struct Block {
    completion: Completion,
    waker: WakerCell,
    result: UnsafeCell<Option<u32>>,
    frees: AtomicUsize,
    dropped_results: AtomicUsize,
}

// SAFETY: the result cell is handed over by the completion protocol under test.
unsafe impl Sync for Block {}
// SAFETY: as above.
unsafe impl Send for Block {}

impl Block {
    fn free(&self) {
        // SAFETY: the freeing side is the last one to touch the block.
        if self.result.with_mut(|r| unsafe { (*r).take() }).is_some() {
            self.dropped_results.fetch_add(1, SeqCst);
        }
        // A waker left in the cell is dropped with the block, as the runtime drops a block's shared
        // part.
        assert_eq!(self.frees.fetch_add(1, SeqCst), 0, "freed twice");
    }

    fn behaviour_side(&self) {
        // SAFETY: the behaviour writes the result before `complete`.
        self.result.with_mut(|r| unsafe { *r = Some(7) });
        if self.completion.promise_gone() || self.completion.complete(&self.waker) {
            self.free();
        }
    }

    /// The promise goes away: frees the block if the behaviour is done with it.
    fn drop_promise(&self) {
        if self.completion.drop_handle() {
            self.free();
        }
    }

    /// The block was freed exactly once, and `dropped` results were dropped unread.
    fn assert_freed_once(&self, dropped: usize) {
        assert_eq!(self.frees.load(SeqCst), 1);
        assert_eq!(self.dropped_results.load(SeqCst), dropped);
    }
}

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, SeqCst);
    }
}

fn block() -> loom::sync::Arc<Block> {
    loom::sync::Arc::new(Block {
        completion: Completion::new(),
        waker: WakerCell::new(),
        result: UnsafeCell::new(None),
        frees: AtomicUsize::new(0),
        dropped_results: AtomicUsize::new(0),
    })
}

/// A block, with its behaviour side running on a thread of its own.
fn block_and_behaviour() -> (loom::sync::Arc<Block>, thread::JoinHandle<()>) {
    let b = block();
    let behaviour = {
        let b = b.clone();
        thread::spawn(move || b.behaviour_side())
    };
    (b, behaviour)
}

/// The promise registers a waker and, if it is told to wait, checks that it was woken once the
/// behaviour is done; then it takes the result and goes away.
#[test]
fn loom_completion_wakes_registered_waiter() {
    loom::model(|| {
        let (b, behaviour) = block_and_behaviour();
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let waker = Waker::from(flag.clone());
        let ready_at_once = b.completion.register(&b.waker, &waker);
        behaviour.join().unwrap();
        if !ready_at_once {
            assert!(flag.0.load(SeqCst), "the waiter was not woken");
        }
        assert!(b.completion.is_done());
        // SAFETY: DONE was observed: the promise may take the result.
        let taken = b.result.with_mut(|r| unsafe { (*r).take() });
        assert_eq!(taken, Some(7));
        b.drop_promise();
        b.assert_freed_once(0);
    });
}

/// Fire and forget: the promise is dropped while the behaviour completes. Freed once, and the
/// result dropped by whoever frees.
#[test]
fn loom_completion_races_drop() {
    loom::model(|| {
        let (b, behaviour) = block_and_behaviour();
        b.drop_promise();
        behaviour.join().unwrap();
        b.assert_freed_once(1);
    });
}

/// A waiter re-registers (a future polled twice) and is then dropped while the behaviour completes.
#[test]
fn loom_completion_reregister_then_drop() {
    loom::model(|| {
        let (b, behaviour) = block_and_behaviour();
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let waker = Waker::from(flag);
        if !b.completion.register(&b.waker, &waker) {
            b.completion.register(&b.waker, &waker);
        }
        b.drop_promise();
        behaviour.join().unwrap();
        b.assert_freed_once(1);
    });
}
