//! Loom models of the task cell's count: whatever the interleaving of handle clones and drops,
//! `try_release`, and the runnable's drop, the cell is freed exactly once, by the last of them.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p motet-runtime --lib --release loom`

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use loom::thread;

use super::{Running, Task, Turn};
use crate::task::Runnable;

/// Counts the drops of a task's parts.
struct Probe(Arc<AtomicUsize>);

impl Drop for Probe {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

struct Probed;

impl Task for Probed {
    type Shared = Probe;
    type Private = Probe;

    fn run(_: Running<Probed>) -> Turn<Probe> {
        Turn::Idle
    }
}

fn probed(drops: &Arc<AtomicUsize>) -> (Runnable<Probe>, super::TaskRc<Probe>) {
    Runnable::with_handle::<Probed>(Probe(drops.clone()), Probe(drops.clone()))
}

#[test]
fn loom_handle_and_runnable_dropped_on_two_threads_free_once() {
    loom::model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (runnable, handle) = probed(&drops);
        let other = handle.clone();
        let t = thread::spawn(move || drop(other));
        drop(runnable);
        drop(handle);
        t.join().unwrap();
        assert_eq!(drops.load(SeqCst), 2);
    });
}

#[test]
fn loom_try_release_races_the_runnables_drop() {
    loom::model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (runnable, handle) = probed(&drops);
        let t = thread::spawn(move || {
            // Either the last handle of a live task (kept, then dropped) or released outright.
            if let Err(kept) = handle.try_release() {
                drop(kept);
            }
        });
        drop(runnable);
        t.join().unwrap();
        assert_eq!(drops.load(SeqCst), 2);
    });
}

#[test]
fn loom_a_handle_made_by_the_runnable_outlives_it() {
    loom::model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (runnable, first) = probed(&drops);
        let second = runnable.handle();
        let t = thread::spawn(move || {
            assert_eq!(drops.load(SeqCst), 0, "a handle keeps both parts");
            drop(second);
            drops
        });
        drop(first);
        drop(runnable);
        let drops = t.join().unwrap();
        assert_eq!(drops.load(SeqCst), 2);
    });
}
