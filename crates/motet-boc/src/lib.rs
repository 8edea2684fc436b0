//! motet-boc: behaviour-oriented concurrency (BoC) after Verona, on motet's work-stealing runtime.
//!
//! BoC (Cheeseman et al., OOPSLA 2023) has two concepts. A **cown** ([`Cown<T>`], *concurrent
//! owner*) protects a value that nothing else can reach. A **behaviour**, spawned by [`when`], is a
//! closure over a set of cowns: it runs once it has acquired all of them, with exclusive access to
//! their values, and releases them when it returns.
//!
//! ```
//! use motet_boc::{when, Cown};
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let src = Cown::new(rt.handle(), 100u64);
//! let dst = Cown::new(rt.handle(), 0u64);
//!
//! // Both accounts at once: no other behaviour sees the money in flight.
//! let transfer = when((&src, &dst), |(src, dst)| {
//!     *src -= 30;
//!     *dst += 30;
//! });
//! // Spawned after the transfer and overlapping it, so it runs after it.
//! let balances = when((src.read(), dst.read()), |(s, d)| (*s, *d));
//! assert_eq!(balances.wait(), Ok((70, 30)));
//! assert_eq!(transfer.wait(), Ok(()));
//! ```
//!
//! # Guarantees (the paper's section 3)
//!
//! - **Atomic acquisition**: a behaviour acquires all its cowns at once.
//! - **Happens-before**: of two behaviours that name a common cown, the one spawned first runs
//!   first (Definition 2.1). Spawning is synchronous; running is asynchronous.
//! - **Exclusion**: a behaviour has exclusive access to its cowns until its closure returns
//!   (read-only acquisitions share a cown with other readers only).
//! - **Deadlock freedom**, for any sets of cowns.
//! - **Isolation**: a cown's value is reachable only inside a behaviour that acquired it, and
//!   `T: Send` (`T: Sync` for read-only access): Rust's ownership gives what the paper asks of its
//!   host language.
//!
//! # Errors
//!
//! - **Rejection**: a `when` that names one cown twice with write access (two `&mut` to one
//!   value) or no cown at all spawns nothing. [`try_when`] returns the error at once,
//!   [`Promise::rejected`] tells it without waiting, and [`rejected_whens`] counts rejections
//!   whose promise was dropped too (see [`when`'s *Rejection*](when#rejection)).
//! - **Panics**: a panicking behaviour releases its cowns, its promise reports
//!   [`WhenError::Panicked`] (and the panic hook prints it), and the behaviours after it run as
//!   usual. Panics are also counted ([`behaviour_panics`]) and handed, with the cowns they held,
//!   to a hook of the program's own ([`set_behaviour_panic_hook`]), so that a fire-and-forget
//!   behaviour's panic is not seen by the panic hook's output alone. A panic in the `drop` of a
//!   freed cown's value, or of a cancelled behaviour's closure, is printed by the panic hook too
//!   and goes no further: the cowns involved are released as usual.
//! - **Shutdown**: a behaviour its runtime could not run before it shut down has its closure
//!   dropped, and its promise reports [`WhenError::Cancelled`].
//! - **Backpressure** never fails a `when`: it delays the spawner (see below).
//!
//! # What `when` accepts
//!
//! A cown (`&c`, the closure gets `&mut T`), a read-only cown (`c.read()`, `&T`), a deferred value
//! (`&d`), tuples of up to 12 of those, or a dynamic set of cowns of one type (`&[Cown<T>]`,
//! `&Vec<Cown<T>>`, [`read_all`]); see [`set`]. `when` can be called from any thread or task: from
//! main, from a behaviour (nested `when`s are ordinary `when`s), from an actor's handler, from an
//! async task. The behaviour runs on the runtime of the first cown it names.
//!
//! # Beyond the paper
//!
//! - **Read-only acquisition** ([`Cown::read`], [`read_all`]), as Verona's runtime has it today:
//!   behaviours that only read a cown run together; a writer waits for the readers spawned before
//!   it, and readers spawned after it wait for it.
//! - **Atomic batches** ([`Batch`]): several `when`s enqueued as one step.
//! - **Deferred values** ([`Deferred`], Verona's promises): a value set later, that behaviours
//!   wait on by naming it.
//! - **Promises of results**: `when` returns a [`Promise`] of the closure's result that is a
//!   future and can be waited for from outside the runtime (also on a deterministic runtime).
//!   It lives in the behaviour's own allocation: a fire-and-forget `when` allocates nothing for it
//!   (dropping it is one atomic operation). [`when_detached`] spawns without a promise, as an
//!   actor's `tell` sends without a reply: the same guarantees, a smaller block (40 bytes for a
//!   single-cown closure that captures nothing, against 80 with a promise) and no hand-over.
//! - **Backpressure** (see below).
//!
//! # Backpressure
//!
//! [`Cown::bounded`] gives a cown a bound on the behaviours queued on it (its *pending* count,
//! [`Cown::pending`]: spawned and not yet completed, the running one included). When a `when`
//! names a bounded cown whose count is at or above its bound:
//!
//! - a thread **outside the runtime** blocks in `when` (before enqueueing) until the count is below
//!   the bound: threads alone never take the count past the bound;
//! - a **behaviour** is not blocked and its spawn is enqueued at once; what is *deferred* is the
//!   release of its own cowns, until the count is below the bound again, so that the producer's
//!   next behaviours wait. The deferred release is parked, not polled: the worker runs other work
//!   meanwhile, and the release that takes the count below the bound lets it go;
//! - **other code on a worker** (an actor's handler, a process) is neither blocked nor deferred:
//!   it can read [`Cown::pending`] itself, or spawn through a behaviour.
//!
//! Holding a producer back must not stop the cown from draining, so a behaviour is held only while
//! the cown is sure to drain without its cowns (the rule Verona's backpressure follows when it
//! leaves unmuted the senders whose cowns an overloaded cown's messages name):
//!
//! - a behaviour that holds the bounded cown itself is never held (it is the cown's own backlog);
//! - no behaviour is held while the cown is *entangled*: while a behaviour queued on it names any
//!   other cown or a deferred value (or names it in a dynamic set or a [`Batch`], which counts
//!   the same), or one holding it waits in [`Promise::wait`]. What that behaviour waits for may
//!   need the producer's cowns. Becoming entangled lets go what was held;
//! - a behaviour is not held where its own cowns are what the cown waits for through other held
//!   behaviours (bounded cowns whose consumers feed each other): the one that would close such a
//!   cycle lets go, and so does one whose cown waits, through held behaviours, for an entangled
//!   cown.
//!
//! So while the behaviours queued on a bounded cown name it alone (`when(&c, ..)`,
//! `when(c.read(), ..)`, its consumers), its pending count stays within the bound plus, per
//! producer behaviour that is held, what that behaviour spawned onto the cown in the closure that
//! found it full: one for a producer chain whose steps spawn one behaviour each, on any number of
//! workers. A closure that spawns many behaviours onto the cown has them all enqueued (a spawn is
//! never refused or delayed), and its producer's next behaviour waits until the cown is below its
//! bound again. A behaviour that spawns onto several full bounded cowns waits for the first.
//! Actors and processes are not counted in this bound. An entangled cown has no bound for
//! behaviours; a thread blocked on one stops waiting once the runtime is quiescent (the queue may
//! then wait for something this very thread provides, such as a deferred value).
//!
//! This cannot deadlock a program that would not deadlock without it: a blocked thread holds no
//! cown and waits only for a cown that drains by itself, and a held behaviour waits only for a
//! cown that is sure to drain without it. Nothing is dropped or reordered. The details are in the
//! `backpressure` module's source.
//!
//! # Blocking inside a behaviour
//!
//! A behaviour runs on a worker thread and should not block it. [`Promise::wait`] is the one
//! blocking call that is safe there: a `when` over free cowns spawned by a running behaviour is
//! kept for the same worker to run next (see below), and `wait` first hands such a
//! kept behaviour to the runtime, so waiting for one's own spawn does not deadlock. A behaviour
//! that blocks its thread any other way (a channel, a lock, a sleep) on something its own spawns
//! must do can wait forever: await the spawn's [`Promise`] instead, or let the result arrive in a
//! later behaviour. So can a behaviour queued on a bounded cown that blocks its thread on what a
//! producer held back by backpressure must do (backpressure sees a [`Promise::wait`], not a channel
//! or a lock).
//!
//! # Implementation
//!
//! The paper's (section 4): each cown has an MCS-style queue of requests; a behaviour enqueues on
//! its cowns in a stable global order in two phases, so that nothing overtakes it and nothing
//! deadlocks; one allocation per behaviour holds its requests, closure and result; a behaviour that
//! makes exactly one successor runnable hands it to its own worker (motet-runtime's next-task
//! slot), and a behaviour granted all its cowns at spawn by a running behaviour is run next by the
//! same worker without going through the runtime's queues (as Verona does), before the spawner's
//! own next behaviour on its cown (so that a behaviour that respawns itself, as a philosopher's
//! turn does, does not run ahead of the behaviours it spawns and pile them up). See the
//! `protocol` module's source for the protocol and its loom models
//! (`RUSTFLAGS="--cfg loom" cargo test -p motet-boc --lib --release loom`).
//!
//! Behaviours are motet-runtime tasks, made, scheduled, run and freed through the runtime's safe
//! task API: the runtime allocates a behaviour's block (its cell) and frees it when the behaviour's
//! runnable is dropped; the runnable waits in the block until the behaviour's last cown is granted
//! (see the `behaviour` module's source). So behaviours run on thread pools and on the
//! deterministic runtime (`Builder::deterministic(seed)`) alike, and `Runtime::wait_quiescent`
//! returns only once every spawned behaviour has run (a behaviour waiting for a cown always waits
//! for one that runs or can run; one waiting for an unresolved [`Deferred`] is the exception, as an
//! actor waiting for a message would be).
#![warn(missing_docs)]

mod backpressure;
mod behaviour;
mod blocks;
mod completion;
mod cown;
mod deferred;
mod error;
mod panics;
mod promise;
mod protocol;
mod rejections;
mod scratch;
pub mod set;

/// The std/loom synchronisation facade shared by motet's crates.
use motet_runtime::sync;

pub use behaviour::{try_when, when, when_detached, Batch, Spawned, Staged};
pub use blocks::release_thread_cache;
pub use cown::{read, read_all, Cown, CownId, Read, ReadAll};
pub use deferred::{Broken, Deferred, Resolver};
pub use error::WhenError;
pub use panics::{
    behaviour_panics, set_behaviour_panic_hook, take_behaviour_panic_hook, BehaviourPanic,
};
pub use promise::Promise;
pub use rejections::rejected_whens;
pub use set::{CownSet, Cowns, CownsMut};
