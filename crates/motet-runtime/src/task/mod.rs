//! Tasks: what the workers run, and the safe interface a concurrency model builds them with.
//!
//! Everything that runs on motet is a *task*: an actor with a non-empty mailbox, a behaviour whose
//! cowns are all acquired, a ready reaction, a woken process. A model describes one kind of task by
//! implementing [`Task`]: the task's *shared* part (what anyone holding a [`TaskRc`] reads: a
//! mailbox, a state word), its *private* part (what only a running turn touches: an actor's state,
//! a closure not yet run), and what one turn does. The runtime owns everything else: the cell that
//! holds both parts (one allocation, never moved), its reference count, the vtable, and the moment
//! it is freed. A model never frees a task and never promises the runtime that a pointer is alive.
//!
//! # The runnable: the right to schedule
//!
//! A task has at most one [`Runnable`], made with the task, unique and not `Clone`. Whoever holds
//! it may schedule the task ([`Handle::schedule`](crate::Handle::schedule)); scheduling gives it to
//! the runtime, which hands it back to [`Task::run`] as a [`Running`] (the runnable with access to
//! the private part) for one turn. At the end of the turn the model either gives it back to be
//! queued again ([`Turn::Yield`]), or keeps it for the next time the task becomes runnable, or drops
//! it because the task is finished. A task whose runnable is dropped never runs again.
//!
//! *Keeping* the runnable is the model's protocol. A model that schedules its task when some event
//! happens (a message pushed on an idle mailbox, the last cown granted, a waker woken) parks the
//! runnable in its shared part before it publishes that the task is idle, and whoever observes the
//! event takes it out and schedules it. The model's own atomic state word decides who that is, so
//! scheduling costs no atomic operation beyond the model's own: the runtime's part is a move.
//!
//! A model with several kinds of task that keeps their runnables in one place (a behaviour's
//! successor, parked where its predecessors find it, whatever the behaviour's result type) keeps
//! them erased ([`Runnable::erase`], a `Runnable<Erased>`): an erased runnable schedules, runs and
//! ends its task as any other, and [`Runnable::downcast`] gives back the typed form of a task of a
//! known kind.
//!
//! # References
//!
//! A cell's count is `2 * handles + runnable`: two for each [`TaskRc`] and one while the runnable
//! exists (queued, running, or parked by the model). The last of them frees the cell, dropping the
//! shared and private parts. So a task that parks its runnable keeps itself alive (an idle actor
//! stays alive while nothing refers to it but its own mailbox), and a task can ask whether anyone
//! still holds a handle to it ([`Running::has_handles`]).
//!
//! ```
//! use motet_runtime::task::{Running, Task, Turn};
//! use motet_runtime::{Runnable, Runtime};
//! use std::sync::atomic::{AtomicU32, Ordering};
//!
//! /// A task that counts its turns and yields until it has run three.
//! struct Thrice;
//! impl Task for Thrice {
//!     type Shared = AtomicU32; // what handles see: the turns so far
//!     type Private = ();
//!     fn run(task: Running<Self>) -> Turn<AtomicU32> {
//!         if task.fetch_add(1, Ordering::Relaxed) + 1 < 3 {
//!             Turn::Yield(task.into_runnable())
//!         } else {
//!             Turn::Idle // dropping `task` ends it
//!         }
//!     }
//! }
//!
//! let rt = Runtime::builder().workers(1).build()?;
//! let (runnable, handle) = Runnable::with_handle::<Thrice>(AtomicU32::new(0), ());
//! rt.handle().schedule(runnable);
//! rt.wait_quiescent();
//! assert_eq!(handle.load(Ordering::Relaxed), 3);
//! # Ok::<(), motet_runtime::BuildError>(())
//! ```

use std::ptr::NonNull;

mod cell;
#[cfg(all(test, loom))]
mod loom_models;
pub(crate) mod raw;
mod runnable;
mod task_rc;
#[cfg(all(test, not(loom)))]
mod tests;

pub use runnable::{Erased, Runnable, Running};
pub use task_rc::TaskRc;

/// One kind of task: its two parts and what a turn does. Implemented by the models (an actor
/// type's cell, a behaviour, a process), usually on a private marker type.
///
/// The runtime calls [`run`](Task::run) once per scheduling, on one thread at a time, and
/// [`shutdown`](Task::shutdown) instead of `run` for a task scheduled on (or still queued in) a
/// runtime that has shut down.
pub trait Task: Sized + 'static {
    /// The part of the task that its handles and its runnable read, from any thread.
    type Shared: Send + Sync + 'static;
    /// The part only a turn of the task touches ([`Running::private`]).
    type Private: Send + 'static;

    /// Runs one turn of the task.
    ///
    /// Returns [`Turn::Yield`] with the task's runnable to be queued again behind other work, or
    /// [`Turn::Idle`] once the model has parked the runnable (to schedule it again later) or
    /// dropped it (the task is finished). A panic here escapes the model: the runtime reports it,
    /// drops the runnable and goes on; models catch their users' panics themselves.
    fn run(task: Running<Self>) -> Turn<Self::Shared>;

    /// Tells the task that it will not run on this runtime again: it must release what it holds
    /// (answer its waiters, drop its state). The default drops the runnable.
    fn shutdown(task: Running<Self>) {
        drop(task);
    }

    /// A second entry point, which the runtime never calls: a model calls it through
    /// [`Runnable::call`] to run a task whose kind it does not know from code of its own,
    /// passing one word and getting one back (motet-boc steps a behaviour of another kind in a
    /// chain this way). It takes the runnable over, as [`Task::run`] does. The default drops the
    /// runnable and returns `arg`: a kind that no model calls needs nothing more.
    fn call(task: Running<Self>, arg: usize) -> usize {
        drop(task);
        arg
    }

    /// Called once when the shared part has been moved to its final place in the cell, before
    /// anyone else can see the task: a shared part that points into itself (an intrusive queue's
    /// stub) links itself here. The cell never moves afterwards. The default does nothing.
    fn placed(shared: &mut Self::Shared) {
        let _ = shared;
    }
}

/// A task kind whose cell ends with a run of values whose number is chosen when each task is made
/// (a behaviour's requests, one per cown it names): one allocation per task even when its size
/// varies. See [`Runnable::new_with_tail`] and [`Running::tail`].
pub trait TaskWithTail: Task {
    /// One value of the tail. The tail is shared: any holder of the task may read it.
    type Tail: Send + Sync + 'static;
}

/// How a turn ended (see [`Task::run`]).
#[must_use = "a yielded runnable must be returned to the runtime"]
pub enum Turn<S> {
    /// The task has nothing more to do for now, or is finished: the model kept or dropped its
    /// runnable.
    Idle,
    /// The task still has work but gives others a turn: the runtime queues this runnable behind
    /// them.
    Yield(Runnable<S>),
}

impl<S> std::fmt::Debug for Turn<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turn::Idle => f.write_str("Idle"),
            Turn::Yield(_) => f.write_str("Yield(..)"),
        }
    }
}

/// Whether `addr` lies in the task cell whose shared part is `shared`, between the start of the
/// shared part and the end of the private part (a tail is not included).
///
/// A model whose tasks hold intrusive nodes in their private part (a receive's wait-queue entry
/// inside a process's future) asks this of a node it is handed to know that the node lives in
/// that task, and so as long as the task's private part. One load from the cell's header (the
/// kind's vtable) and a comparison: the extent is a constant of the task kind, kept in its vtable.
///
/// ```
/// use motet_runtime::task::{cell_contains, Running, Task, Turn};
/// use motet_runtime::{Runnable, Runtime};
///
/// struct Probe;
/// impl Task for Probe {
///     type Shared = u64;
///     type Private = [u64; 4];
///     fn run(mut task: Running<Self>) -> Turn<u64> {
///         let inside = &task.private()[3] as *const u64 as usize;
///         let outside = &0u64 as *const u64 as usize;
///         // SAFETY: `task` is the running task, whose cell is alive.
///         assert!(unsafe { cell_contains(&*task, inside) });
///         assert!(!unsafe { cell_contains(&*task, outside) });
///         Turn::Idle
///     }
/// }
///
/// let rt = Runtime::builder().workers(1).build()?;
/// rt.handle().schedule(Runnable::new::<Probe>(0, [0; 4]));
/// rt.wait_quiescent();
/// # Ok::<(), motet_runtime::BuildError>(())
/// ```
///
/// # Safety
/// `shared` is the shared part of a live task cell (reached through a [`TaskRc`], a [`Runnable`]
/// or a [`Running`] of its task, or through a pointer the task's model derived from one of them).
#[inline]
pub unsafe fn cell_contains<S>(shared: &S, addr: usize) -> bool {
    // SAFETY: the caller's contract: `shared` is the shared part of a live cell, so its header
    // lies before it and holds the kind's vtable.
    let extent = unsafe { cell::header_of(NonNull::from(shared)).as_ref() }
        .vtable
        .extent;
    // One comparison: an address below the shared part wraps around past any extent.
    addr.wrapping_sub(shared as *const S as usize) < extent
}
