//! Loom models of a deferred release racing the releases and spawns that would wake it: a park
//! and the release that takes the cown below its bound, or a park and a spawn that entangles the
//! cown, never leave the release parked. Run with
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom \
//!     cargo test -p motet-boc --lib --release loom
//! ```
//!
//! In each model a cown bounded at 1 holds behaviour `A`, and a producer behaviour spawns `B` onto
//! it (so finds it full) and is deferred on it when its closure returns, while another thread
//! runs what would wake it. Each model ends with the producer's release let go exactly once: by
//! the deferral itself (refused, or the check after its park failing), or by the racing thread,
//! which takes it from the graph.

use loom::sync::Arc;
use loom::thread;

use super::{Bound, Deferrals};

/// Runs the model: `racer` on a thread of its own against the deferral of the producer; returns
/// nothing, and checks that the producer was let go exactly once.
fn park_against(racer: fn(&Bound, &Deferrals<u32>) -> usize) {
    loom::model(move || {
        let sink = Arc::new(Bound::new(1));
        assert!(!sink.enqueue(), "A finds the cown empty");
        assert!(sink.enqueue(), "B finds the cown full");
        let graph = Arc::new(Deferrals::<u32>::new());
        let racer = {
            let (sink, graph) = (sink.clone(), graph.clone());
            thread::spawn(move || racer(&sink, &graph))
        };
        let own = match graph.defer(&sink, std::iter::empty(), || 1) {
            Ok(()) => 0,
            Err(made) => {
                assert!(made.is_none_or(|m| m == 1));
                1
            }
        };
        let woken = racer.join().unwrap();
        assert_eq!(own + woken, 1, "the producer is let go exactly once");
    });
}

/// The releases of `A` and `B` (`B` runs on another worker while the producer's closure is still
/// running): the second takes the cown below its bound.
#[test]
fn loom_deferral_park_against_release() {
    park_against(|sink, graph| {
        let mut woken = 0;
        for _ in 0..2 {
            if sink.on_release() {
                woken += graph.take_parked(sink, true).len();
            }
        }
        woken
    });
}

/// A spawn of a behaviour naming the cown and another one: it entangles the cown, and wakes what
/// is parked.
#[test]
fn loom_deferral_park_against_entangling_spawn() {
    park_against(|sink, graph| {
        if sink.entangle() {
            graph.take_parked(sink, false).len()
        } else {
            0
        }
    });
}
