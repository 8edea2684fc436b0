//! Unit tests of behaviours that reach into the crate: the block's size, cancellation and release
//! paths whose user code panics or spawns.

use super::*;
use crate::WhenError;

/// The parts of a block the model lays out: a detached behaviour over one cown shares its core
/// alone (the park and its first request), one over several cowns adds its gate, and one with a
/// promise adds the gate, the completion, the waker and the result; each later request is a
/// `LaterSlot`. With the runtime's 16-byte header, a single-cown detached behaviour whose closure
/// captures nothing is a 40-byte block, and 80 with a promise of `()` (the allocations themselves
/// are measured by `tests/block_size.rs`).
#[test]
fn the_shared_parts_are_small() {
    use std::mem::size_of;
    assert_eq!(size_of::<block::Core>(), 24);
    assert_eq!(size_of::<block::Counted>(), 32);
    assert_eq!(size_of::<block::Promised<()>>(), 64);
    assert_eq!(size_of::<crate::protocol::LaterSlot>(), 24);
}

/// A behaviour cancelled by a runtime that is shut down, whose closure's `drop` panics: the
/// panic does not unwind into the spawner (the cancellation runs inside `schedule`, which a
/// releasing behaviour calls too), the promise reports the cancellation, and the cown is
/// released for the `when`s after it.
#[test]
fn a_cancelled_closure_whose_drop_panics_still_releases_its_cowns() {
    struct PanicsOnDrop;
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("a closure's capture panics in drop (expected by this test)");
        }
    }
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let cown = crate::Cown::new(rt.handle(), 0u64);
    drop(rt);
    let capture = PanicsOnDrop;
    let cancelled = when(&cown, move |n| {
        let _keep = &capture;
        *n += 1;
    });
    assert_eq!(cancelled.wait(), Err(WhenError::Cancelled));
    assert_eq!(when(&cown, |n| *n).wait(), Err(WhenError::Cancelled));
    assert!(when_detached(&cown, |n| *n += 1).is_ok());
}

/// A cown whose value panics in `drop`, freed by the release of its last behaviour (its last
/// handle dropped while the behaviour waited): the panic goes no further than the freeing
/// (see `free_cown`), the behaviour's other cown is still released, and the worker runs what
/// follows.
#[test]
fn a_cown_freed_by_a_release_whose_value_panics_in_drop() {
    struct PanicsOnDrop;
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("a cown's value panics in drop (expected by this test)");
        }
    }
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let doomed = crate::Cown::new(rt.handle(), PanicsOnDrop);
    let other = crate::Cown::new(rt.handle(), 0u64);
    let gate = crate::Cown::new(rt.handle(), ());
    // Held back until the handle is gone, so that the release of the behaviour frees the cown.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    when_detached(&gate, move |_| {
        let _ = rx.recv();
    })
    .unwrap();
    when_detached((&gate, &doomed, &other), |(_, _, n)| *n += 1).unwrap();
    drop(doomed);
    tx.send(()).unwrap();
    assert_eq!(when(&other, |n| *n).wait(), Ok(1));
    assert_eq!(when(&other, |n| *n + 1).wait(), Ok(2));
}

/// A cown whose value spawns a `when` from its `drop`, freed by the release of a detached
/// behaviour (which leaves itself named as running through its release): the spawn is made as
/// from outside any behaviour, so a full bounded cown neither defers the finished behaviour
/// nor keeps a reference to itself, and every cown is freed in the end.
#[test]
fn a_when_from_a_freed_cowns_drop_is_spawned_as_from_outside() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    struct Tracked(Arc<AtomicUsize>);
    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    struct SpawnsOnDrop {
        bounded: crate::Cown<Tracked>,
        ran: Arc<AtomicUsize>,
    }
    impl Drop for SpawnsOnDrop {
        fn drop(&mut self) {
            let ran = self.ran.clone();
            when_detached(&self.bounded, move |_| {
                ran.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        }
    }
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let (freed, ran) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let bounded = crate::Cown::bounded(
        rt.handle(),
        Tracked(freed.clone()),
        std::num::NonZeroUsize::new(1).unwrap(),
    );
    let doomed = crate::Cown::new(
        rt.handle(),
        SpawnsOnDrop {
            bounded: bounded.clone(),
            ran: ran.clone(),
        },
    );
    let gate = crate::Cown::new(rt.handle(), ());
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    when_detached(&gate, move |_| {
        let _ = rx.recv();
    })
    .unwrap();
    // Frees `doomed` in its release, once the handle below is gone.
    when_detached((&gate, &doomed), |_| {}).unwrap();
    // Fills the bounded cown (bound 1) until the gate is released.
    when_detached((&gate, &bounded), |_| {}).unwrap();
    drop(doomed);
    tx.send(()).unwrap();
    when(&gate, |_| ()).wait().unwrap();
    while ran.load(Ordering::SeqCst) == 0 {
        std::thread::yield_now();
    }
    assert_eq!(when(&bounded, |_| ()).wait(), Ok(()));
    drop(bounded);
    drop(rt);
    assert_eq!(freed.load(Ordering::SeqCst), 1, "the bounded cown is freed");
}
