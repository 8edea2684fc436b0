//! motet-process: typed channels, lightweight processes and session types after Effpi, on motet's
//! work-stealing runtime.
//!
//! A *process* is an `async` block spawned on a [`ProcessSystem`]: one allocation, run by the
//! runtime's workers, hundreds of thousands alive at once. Processes talk over typed
//! [channels](channel) (unbounded or bounded, many senders and receivers, receive with timeout,
//! receive of everything queued in one batch, [`Select`] over several channels, close), and channels travel over channels, as in the
//! pi-calculus. On top of channels sit [session types](session) (a [`session::Chan<P>`] whose
//! protocol `P` the compiler enforces) and an [actor facade](actor) (one mailbox channel per actor,
//! as Effpi's actor DSL).
//!
//! What the runtime design takes from the Effpi thesis (its chapters 4 to 6):
//!
//! - **No blind rescheduling.** A receive that finds no value parks the process on the channel's
//!   wait queue; the sender that brings a value hands it straight to the parked receive and wakes
//!   that process (onto the sender's worker, through the runtime's next-task slot). A woken process
//!   never finds its channel empty: there are no failed receives and no polling loops.
//! - **Multi-step execution.** A process keeps running while its operations complete at once (a
//!   value is there, a bounded channel has room) for up to a budget of steps per scheduling
//!   ([`ProcessSystemBuilder::steps`]), then yields to the back of its worker's queue.
//! - **Timeouts without a thread per process**: a receive with a timeout registers a timer on the
//!   runtime and gets [`RecvTimeoutError::Timeout`](channel::RecvTimeoutError) as a value.
//!
//! ```
//! use motet_process::{channel, ProcessSystem};
//! use motet_runtime::Runtime;
//!
//! let rt = Runtime::builder().workers(2).build().unwrap();
//! let system = ProcessSystem::new(rt.handle());
//!
//! // A ring of 100 processes passing a token 1,000 hops.
//! let n = 100;
//! let (first_tx, mut prev_rx) = channel::unbounded::<u32>();
//! let (done_tx, done_rx) = channel::unbounded::<u32>();
//! for _ in 1..n {
//!     let (tx, rx) = channel::unbounded::<u32>();
//!     let done = done_tx.clone();
//!     let input = std::mem::replace(&mut prev_rx, rx);
//!     system.spawn(async move {
//!         while let Ok(hops) = input.recv().await {
//!             if hops == 0 {
//!                 let _ = done.send(0);
//!             } else if tx.send(hops - 1).is_err() {
//!                 break;
//!             }
//!         }
//!     });
//! }
//! // The last process closes the ring.
//! let (last_in, back) = (prev_rx, first_tx.clone());
//! system.spawn(async move {
//!     while let Ok(hops) = last_in.recv().await {
//!         if hops == 0 {
//!             let _ = done_tx.send(0);
//!         } else if back.send(hops - 1).is_err() {
//!             break;
//!         }
//!     }
//! });
//! first_tx.send(1_000).unwrap();
//! assert_eq!(done_rx.recv_blocking(), Ok(0));
//! system.shutdown(); // the ring is parked waiting for the next token: cancel it
//! ```
//!
//! A process can run any code: it can call into motet actors (`Addr::tell`, or `.await` an
//! `Addr::ask`), and an actor can send into a channel or spawn a process (a [`ProcessSystem`] is a
//! cheap, `Send` handle).
#![warn(missing_docs)]

pub mod actor;
mod bank;
mod blocks;
pub mod channel;
mod context;
mod lock;
mod process;
mod registry;
pub mod select;
pub mod session;
mod system;
#[cfg(feature = "tokio")]
mod tokio_context;
mod yield_now;

#[cfg(all(test, loom))]
mod loom_models;

/// The std/loom synchronisation facade shared by motet's crates.
use motet_runtime::sync;

pub use select::Select;

/// Switches off (or back on) the sharing of full bins of freed process and channel blocks
/// between threads, for tests that count the bytes a workload leaves behind: with it off, each
/// thread's cache of freed blocks holds at most a fixed number of them once warm. Not for
/// production use.
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
pub use system::{ProcessSystem, ProcessSystemBuilder, WaitError, DEFAULT_STEPS};
#[cfg(feature = "tokio")]
pub use tokio_context::{in_tokio, InTokio};
pub use yield_now::{yield_now, YieldNow};
