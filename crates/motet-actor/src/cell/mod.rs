//! The actor cell: one allocation holding the task header, the reference count, the mailbox and the
//! actor's state, and the protocol that runs it.
//!
//! # Layout
//!
//! An actor is a motet-runtime task of kind [`ActorTask<A>`]: its *shared* part is a [`Header<M>`]
//! (`M = A::Msg`: the reference count, the mailbox, the parked runnable), so an
//! [`Addr<M>`](crate::Addr) points to the header without knowing `A`; its *private* part is the
//! [`Inner<A>`](state::Inner) only turns touch. The runtime allocates the cell (one allocation) and
//! frees it when the actor's runnable is dropped.
//!
//! # Scheduling
//!
//! The mailbox's idle mark is the actor's scheduling state, and the header's `runnable` slot holds
//! the actor's [`Runnable`](motet_runtime::Runnable) while the mark is set: a turn parks the
//! runnable there before it marks the mailbox idle, and the push that clears the mark takes it out
//! and schedules it (see [`crate::mailbox`]). So the slot is written and read only by whoever owns
//! the mark. A turn processes up to `batch` messages, then yields (the worker puts it at the back
//! of its deque); if it finds the mailbox empty, it marks it idle and the turn ends. A newly
//! spawned actor starts *not idle* and is scheduled once, so that `started` runs promptly.
//!
//! The push schedules on the runtime whatever the actor. A detached actor is of a kind
//! (`ActorTask<A, _, true>`) whose `run` on a worker hands the runnable to its own thread
//! ([`send_home`]), which runs the turn; a scoped actor's kind hands it to the owning thread. So
//! a pooled actor's wake tests nothing, and the detour costs only the actors that block.
//!
//! # Files
//!
//! - [`header`]: the shared part and its reference protocol (retain, release, park, unpark).
//! - [`extra`]: what only detached, scoped, bounded and priority-taking actors keep in the header.
//! - [`push`]: sending: the push that wakes an idle actor, and the bounded mailbox's gate.
//! - [`state`]: the private part and the per-actor local state (relations, stash, timeout).
//! - [`turn`]: the task kind and its turn (messages, signals, the stash's replay).
//! - [`failure`]: a panicking handler, restarts.
//! - [`stop`]: stopping for good: closing the mailboxes, notifying, freeing.
//! - [`detached`]: handing a detached or scoped actor's runnable to its own thread.
//! - [`spawn`]: making a new actor of the kind its options ask for.

mod detached;
mod extra;
mod failure;
mod header;
mod push;
mod spawn;
mod state;
mod stop;
mod turn;

pub(crate) use detached::send_home;
pub(crate) use extra::{Extra, Forward};
pub(crate) use header::Header;
pub(crate) use spawn::spawn_with;
pub(crate) use state::{Local, Options, Relations};
pub(crate) use turn::ActorTask;
