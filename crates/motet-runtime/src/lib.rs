//! motet-runtime: the work-stealing runtime under all of motet's concurrency models.
//!
//! Actors (motet-actor), behaviours (motet-boc), reactions (motet-reactor) and processes
//! (motet-process) all run as *tasks* on one pool of worker threads. This crate knows nothing about
//! those models: a model describes a kind of task with the safe [`Task`] trait (how to run it for
//! one turn, how to shut it down), makes its tasks as [`Runnable`]s and decides when one is
//! runnable, and calls [`Handle::schedule`]. The runtime owns the unsafe part: each task's cell, its
//! reference count and its lifetime (see [`task`]).
//!
//! What the runtime provides:
//!
//! - a pool of workers (default: one per core) with a deque each, a global injector, work stealing,
//!   and a per-worker next-task slot so that a task that makes one other task runnable hands it over
//!   directly (bounded, so chains cannot starve the rest);
//! - parking that wakes at most one searching worker per burst of new work (see
//!   `scheduler/idle.rs` for the protocol and its loom model);
//! - quiescence detection ([`Runtime::wait_quiescent`]);
//! - containment of panics that escape a task;
//! - one-shot timers and a clock ([`Handle::call_after`], [`Handle::now`]);
//! - a deterministic mode ([`Builder::deterministic`]): one thread, seeded scheduling choices and
//!   virtual time, replayable from the seed, used by every scenario test (see [`testing`]);
//! - per-worker counters behind the `metrics` feature and `tracing` spans behind `tracing`, compiled
//!   out when off;
//! - the allocation layer the models use ([`alloc`]): per-thread caches of freed blocks, declared
//!   per use with [`block_cache!`], and mimalloc as a global allocator (feature `mimalloc`);
//! - reference banks ([`bank`]): counted references taken in batches per worker, as the runtime's
//!   own [`Handle`]s are.
//!
//! ```
//! use motet_runtime::Runtime;
//!
//! let rt = Runtime::builder().workers(2).build()?;
//! let handle = rt.handle().clone();
//! handle.call_after(std::time::Duration::from_millis(1), || println!("tick"));
//! rt.wait_quiescent(); // returns once the timer has fired
//! # Ok::<(), motet_runtime::BuildError>(())
//! ```
#![warn(missing_docs)]

pub mod alloc;
pub mod bank;
mod clock;
pub mod hint;
mod metrics;
pub mod rng;
mod runtime;
mod scheduler;
#[doc(hidden)]
pub mod sync;
pub mod task;
pub mod testing;
mod thread_exit;
mod timer;

#[cfg(feature = "metrics")]
pub use metrics::WorkerMetrics;
pub use runtime::{
    on_worker_thread, BuildError, Builder, Handle, Runtime, Stealing, DEFAULT_CHAIN_BOUND,
};
pub use task::{Runnable, Running, Task, TaskRc, TaskWithTail, Turn};
pub use timer::TimerKey;
