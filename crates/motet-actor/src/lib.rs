//! motet-actor: typed actors after CAF, on motet's work-stealing runtime.
//!
//! An actor is state plus a handler for one message type ([`Actor`]). [`spawn`] returns its typed
//! address [`Addr<M>`]; [`Addr::tell`] sends, [`Addr::ask`] sends a request and returns an [`Ask`] for
//! the answer (future, blocking wait, or callback) with a timeout. Actors run as tasks of
//! motet-runtime: a message to an idle actor schedules it, and a turn processes up to a batch of
//! messages. Each actor is one allocation (task header, reference count, lock-free mailbox, state);
//! it is freed when no address to it remains and its mailbox is empty.
//!
//! Failure handling follows Erlang and CAF: [`Context::link`] ties two actors' fates,
//! [`Context::monitor`] reports another actor's end as a [`Down`], a panicking handler stops its actor
//! with [`ExitReason::Panicked`] (the runtime carries on), and a [`Supervisor`] restarts failed children
//! in place (one-for-one or one-for-all) within a restart intensity limit.
//!
//! Tools built on these: a [`Pool`] puts one address in front of several workers (round robin,
//! random, broadcast, split-join; resizable; failed workers removed or restarted), a [`Group`]
//! publishes to its members, [`Timers`] send after a delay or periodically without keeping their
//! target reachable (through a [`WeakAddr`]), and a [`Registry`] names actors. All of them learn
//! that an actor stopped from an exit hook, so a stopped actor leaves them by itself.
//!
//! # Blocking, and the other kinds of actors
//!
//! Handlers run on the runtime's few worker threads, each of which runs many actors in turn: a
//! handler that blocks (file or socket IO, a blocking library, a sleep, a lock held elsewhere)
//! stalls its worker and every actor waiting behind it, and as many blocking handlers as workers
//! stop the runtime. Spawn such an actor *detached* ([`Spawn::detached`]): it gets an OS thread
//! of its own, with the same [`Addr<M>`] and the same [`Actor`] trait. A plain thread (`main`, a
//! test) can act as an actor with a [`ScopedActor`]: an address, receives with a timeout, links
//! and monitors reported as [`Event`]s, and an exit when it is dropped.
//!
//! Opt-in per actor, so that actors without them pay nothing: urgent messages
//! ([`Addr::tell_urgent`], with [`Actor::PRIORITIES`]), bounded mailboxes ([`Spawn::bounded`]:
//! [`Addr::try_tell`], [`Addr::send_async`], [`Addr::tell_timeout`]), forwarding actors
//! ([`Spawn::forwarding`]: messages go to a function on the sending thread, as a remote actor's
//! proxy needs) and receive timeouts ([`Context::set_receive_timeout`], with [`Actor::RECEIVE_TIMEOUT`]).
//! [`Context::stash`] sets a message aside until [`Context::unstash_all`].
//!
//! ```
//! use std::time::Duration;
//! use motet_actor::{spawn, Actor, Context, Reply};
//!
//! struct Greeter;
//! enum Msg { Greet(String, Reply<String>) }
//!
//! impl Actor for Greeter {
//!     type Msg = Msg;
//!     fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: Msg) {
//!         match msg {
//!             Msg::Greet(name, reply) => { let _ = reply.send(format!("hello, {name}")); }
//!         }
//!     }
//! }
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let greeter = spawn(rt.handle(), Greeter);
//! let answer = greeter
//!     .ask(|r| Msg::Greet("motet".into(), r), Duration::from_secs(1))
//!     .wait();
//! assert_eq!(answer.unwrap(), "hello, motet");
//! ```
#![warn(missing_docs)]

mod actor;
mod addr;
mod ask;
mod blocks;
mod bounded;
mod cell;
mod envelope;
mod exit;
mod group;
mod home;
mod ids;
mod lazy;
pub mod mailbox;
mod oneshot;
mod pool;
mod receive_timeout;
mod registry;
mod scoped;
mod spawn;
mod stash;
mod supervisor;
mod timers;
mod watch;
mod weak;

/// The std/loom synchronisation facade shared by motet's crates.
use motet_runtime::sync;

pub use actor::{Actor, Context};
pub use addr::{Addr, AnyAddr, SendError};
pub use ask::{Ask, AskError, Reply};
pub use bounded::TrySendError;
pub use exit::{ActorId, Down, ExitReason, ExitSignal};
pub use group::Group;
pub use pool::{Pool, PoolBuilder, PoolError};
pub use registry::{Registry, RegistryEntry, RegistryError};
pub use scoped::{Event, ScopedActor};
pub use spawn::{spawn, Spawn, DEFAULT_BATCH};
pub use stash::{StashFull, DEFAULT_STASH_CAPACITY};
pub use supervisor::{
    ChildSpawn, Strategy, Supervisor, SupervisorBuilder, SupervisorMsg, SupervisorStopped,
};
pub use timers::{TimerId, Timers};
pub use watch::ExitWatch;
pub use weak::WeakAddr;

/// Switches off (or back on) the sharing of full bins of freed message nodes and actor cells
/// between threads, for tests that count the bytes a workload leaves behind: with it off, each
/// thread's cache of freed blocks holds a fixed number of them once warm. Not for production use.
#[doc(hidden)]
#[cfg(not(loom))]
pub fn set_block_sharing(on: bool) {
    use motet_runtime::alloc::BlockCache;
    blocks::Blocks::set_sharing(on);
}

/// The former name of [`set_block_sharing`].
#[doc(hidden)]
#[cfg(not(loom))]
#[deprecated(note = "renamed `set_block_sharing`")]
pub fn set_block_depot(on: bool) {
    set_block_sharing(on);
}
