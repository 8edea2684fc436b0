//! Running a scenario under the deterministic scheduler with many seeds, and with real threads.
//!
//! Every scenario test of motet is written once, as a closure over a [`Runtime`], and run both ways
//! (as Verona builds each test twice, systematic and concurrent):
//!
//! ```
//! use motet_runtime::testing;
//! testing::check(|rt| {
//!     rt.wait_quiescent();
//! });
//! ```
//!
//! A failure under the deterministic scheduler prints its seed; `MOTET_SEED=<seed> cargo test <name>`
//! replays exactly that schedule. `MOTET_SEEDS=<n>` changes how many seeds are explored (default 16).
//!
//! The leak tests of the models share two helpers from here: [`CountingAllocator`], a global
//! allocator that counts the bytes alive, and [`Census`], whose [`Tracked`] values count
//! themselves.

mod census;
mod counting;

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

pub use census::{Census, Tracked};
pub use counting::CountingAllocator;

use crate::runtime::Runtime;
use crate::task::{Runnable, Running, Task, Turn};

/// The seeds to explore: `MOTET_SEED` alone if set, else `0..MOTET_SEEDS` (default `0..default`).
pub fn seeds(default: u64) -> Vec<u64> {
    if let Some(seed) = std::env::var("MOTET_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return vec![seed];
    }
    let n = std::env::var("MOTET_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    (0..n).collect()
}

/// Runs `scenario` on a deterministic runtime for each seed of [`seeds`]`(16)`. On a failure, prints
/// the seed and how to replay it, then re-raises the panic.
pub fn check_deterministic(scenario: impl Fn(&Runtime)) {
    for seed in seeds(16) {
        let rt = Runtime::builder()
            .deterministic(seed)
            .build()
            .expect("a deterministic runtime always builds");
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| scenario(&rt))) {
            eprintln!("motet: scenario failed under the deterministic scheduler with seed {seed}; replay with MOTET_SEED={seed}");
            resume_unwind(panic);
        }
    }
}

/// Runs `scenario` on thread pools of 1 and 2 workers.
pub fn check_threads(scenario: impl Fn(&Runtime)) {
    for workers in [1, 2] {
        let rt = Runtime::builder()
            .workers(workers)
            .build()
            .expect("runtime");
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| scenario(&rt))) {
            eprintln!("motet: scenario failed on a pool of {workers} workers");
            resume_unwind(panic);
        }
    }
}

/// Runs `scenario` both ways: [`check_deterministic`], then [`check_threads`].
pub fn check(scenario: impl Fn(&Runtime)) {
    check_deterministic(&scenario);
    check_threads(&scenario);
}

/// A task that runs a closure once, or another closure instead if the runtime shuts it down
/// before it runs (see [`once`]).
pub struct Once;

/// The closures of a [`Once`] task: what it runs, and what runs instead at shutdown.
type OnceClosures = (Box<dyn FnOnce() + Send>, Box<dyn FnOnce() + Send>);

impl Task for Once {
    type Shared = ();
    type Private = Option<OnceClosures>;

    fn run(mut task: Running<Once>) -> Turn<()> {
        if let Some((run, _)) = task.private().take() {
            run();
        }
        Turn::Idle
    }

    fn shutdown(mut task: Running<Once>) {
        if let Some((_, on_shutdown)) = task.private().take() {
            on_shutdown();
        }
    }
}

/// A task that runs `run` once, or `on_shutdown` if the runtime shuts it down first: the smallest
/// task there is, for tests of the runtime and examples.
///
/// ```
/// use motet_runtime::{testing, Runtime};
/// let rt = Runtime::new()?;
/// rt.handle().schedule(testing::once(|| println!("ran"), || {}));
/// rt.wait_quiescent();
/// # Ok::<(), motet_runtime::BuildError>(())
/// ```
pub fn once(
    run: impl FnOnce() + Send + 'static,
    on_shutdown: impl FnOnce() + Send + 'static,
) -> Runnable<()> {
    Runnable::new::<Once>((), Some((Box::new(run), Box::new(on_shutdown))))
}
