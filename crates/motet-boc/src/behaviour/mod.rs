//! Behaviours: spawned by [`when`], [`when_detached`] and [`Batch`], run as motet-runtime tasks.
//!
//! A behaviour is one motet-runtime task, one block the runtime allocates and frees (see
//! [`block`] for its layout): its first request and its park, its gate and its promise's side if
//! it has them, its closure, and its later requests. Nothing else is allocated per behaviour: a
//! fire-and-forget `when` costs one block, and so does a `when` whose promise is kept.
//!
//! # Life of a behaviour
//!
//! 1. *Spawn* ([`spawn`], [`build`]): the runtime makes the task; its requests are sorted by cown
//!    id (a duplicated cown is acquired once; with write access it is rejected); its runnable is
//!    *parked* in its block; backpressure is applied; the requests are enqueued (two-phase over
//!    several cowns). The spawner returns the promise at once.
//! 2. *Runnable*: whoever grants the last cown takes the runnable out of the park and schedules it
//!    with the runtime's safe `schedule`, on the runtime of the behaviour's first cown: into the
//!    current worker's next-task slot when that is a worker of the runtime, so a behaviour that
//!    makes exactly one successor runnable hands it over to its own worker. A behaviour spawned by
//!    a running behaviour and granted all its cowns at once is kept by the spawning worker and run
//!    right after its spawner ([`handoff`]), before the spawner's own successor on its first cown
//!    if the release made that runnable too.
//! 3. *Run* ([`run`], [`step`]): the closure runs once, under `catch_unwind`, with the values of
//!    its cowns; then the chain of successors it made runnable runs on this thread, each taken out
//!    of its park and stepped here (a successor of the same kind) or through the runtime's
//!    `call` (another kind: its kind's step, through the task's vtable).
//! 4. *Release*: every request is released (successors become runnable), then the result is handed
//!    to the promise. A detached behaviour then drops its runnable, and the runtime frees the
//!    block; a behaviour with a promise parks its runnable again, and the last of the behaviour and
//!    its promise drops it.
//!
//! A panicking closure is step 3 returning an error: its cowns are released as usual and the
//! promise gets [`WhenError::Panicked`](crate::WhenError::Panicked). A closure that spawned onto a
//! full bounded cown has its release deferred ([`deferral`]). A task shut down by its runtime
//! (scheduled after or during shutdown) skips step 3 ([`cancel`]): the closure is dropped and the
//! promise gets [`WhenError::Cancelled`](crate::WhenError::Cancelled) (a panic in the closure's
//! `drop` is reported by the panic hook and does not stop the release).
//!
//! The crate's only code that touches the runtime's task API is here and in the promise: it makes
//! tasks, schedules, runs and drops runnables through the runtime's safe functions. Its own
//! `unsafe` blocks keep the protocol's invariants (who owns a park, when a request's cown is
//! alive) and never call into the runtime.

mod batch;
pub(crate) mod block;
mod build;
mod cancel;
mod current;
mod deferral;
mod handoff;
mod run;
mod spawn;
mod step;
#[cfg(all(test, not(loom), target_pointer_width = "64"))]
mod tests;

pub use batch::{Batch, Spawned, Staged};
pub(crate) use current::{outside_behaviours, running_requests};
pub(crate) use deferral::stall;
pub(crate) use handoff::{flush_handoff, schedule_ready};
pub use spawn::{try_when, when, when_detached};
