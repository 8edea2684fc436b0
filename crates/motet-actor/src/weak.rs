//! [`WeakAddr`]: an address that does not keep its actor reachable, and exit hooks.
//!
//! An [`Addr`] counts as a reference: while one exists, the actor cannot stop as
//! [`ExitReason::Unreachable`]. Timers that fire into an actor must not hold one, or a periodic timer
//! would keep its actor alive for ever. A `WeakAddr` holds the actor's header pointer without a
//! reference, under a lock, and is invalidated by an exit hook before the cell can be freed.
//!
//! # Why the pointer stays valid
//!
//! An exit hook is a watch slot (the one [`Addr::watch`] uses) with a callback. The actor completes
//! its watch slots while it stops, on the stopping thread, before it gives up its own hold on the
//! cell (`LIFE`, see `cell/header.rs`); a slot pushed after the mailbox closed is completed by the
//! pusher instead. The weak address's hook takes the weak address's lock and clears the pointer. So
//! while a holder of that lock sees the pointer, the actor has not finished stopping and the cell
//! is alive: [`WeakAddr::upgrade`] takes a reference (one atomic increment, as [`Addr::clone`])
//! under the lock and sends outside it. Sending under the lock could deadlock: on a runtime that
//! has shut down, a push stops the actor on the pushing thread, which would run the hook that waits
//! for the lock.
//!
//! Upgrading while the actor is deciding that it is unreachable is the same race as a message sent
//! by the actor to itself from its last handler: the actor either sees the message or stops with it
//! in its mailbox, where it is dropped (as every message queued at a stopping actor is).

use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::addr::{Addr, SendError};
use crate::cell::Header;
use crate::envelope::{Envelope, Signal};
use crate::exit::{ActorId, ExitReason};
use crate::oneshot::Slot;

/// Runs `hook` once when the actor behind `addr` stops (at once, with
/// [`ExitReason::AlreadyExited`], if it already has). The hook runs on the stopping actor's thread
/// while the actor finishes: it must be short, must not block, and must not panic.
pub(crate) fn on_exit<M: Send + 'static>(
    addr: &Addr<M>,
    hook: impl FnOnce(ExitReason) + Send + 'static,
) {
    let slot = Slot::new();
    slot.on_complete(hook);
    if addr
        .header()
        .push(Envelope::System(Box::new(Signal::Watch(slot.clone()))))
        .is_err()
    {
        let _ = slot.complete(ExitReason::AlreadyExited);
    }
}

struct Shared<M: Send + 'static> {
    /// The actor's header while it has not stopped; `None` once its exit hook ran.
    header: Mutex<Option<NonNull<Header<M>>>>,
    id: ActorId,
}

// SAFETY: the pointer is only dereferenced under the mutex while it is `Some`, which (module docs)
// means the cell is alive; the header's own operations are thread-safe for `M: Send`.
unsafe impl<M: Send + 'static> Send for Shared<M> {}
// SAFETY: as above.
unsafe impl<M: Send + 'static> Sync for Shared<M> {}

impl<M: Send + 'static> Shared<M> {
    fn lock(&self) -> MutexGuard<'_, Option<NonNull<Header<M>>>> {
        self.header.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An address that does not keep its actor reachable: the actor can still stop as
/// [`ExitReason::Unreachable`] while weak addresses to it exist. Cloning is cheap (shared).
///
/// Each [`WeakAddr::new`] costs the actor one exit watch until it stops; clone a weak address rather
/// than making many.
///
/// ```
/// use motet_actor::{spawn, Actor, Context, WeakAddr};
///
/// struct Sink;
/// impl Actor for Sink {
///     type Msg = u32;
///     fn handle(&mut self, _: &mut Context<'_, Self>, _: u32) {}
/// }
///
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let addr = spawn(rt.handle(), Sink);
/// let weak = WeakAddr::new(&addr);
/// assert!(weak.tell(1).is_ok());
/// let stopped = addr.watch();
/// drop(addr); // the weak address does not keep the actor alive
/// assert!(stopped.wait().is_normal());
/// assert!(weak.tell(2).is_err());
/// ```
pub struct WeakAddr<M: Send + 'static> {
    shared: Arc<Shared<M>>,
}

impl<M: Send + 'static> WeakAddr<M> {
    /// A weak address of the actor behind `addr`.
    pub fn new(addr: &Addr<M>) -> WeakAddr<M> {
        Self::with_exit_hook(addr, |_| {})
    }

    /// A weak address whose invalidation also runs `hook` (on the stopping actor's thread, after the
    /// pointer is cleared). Used by timers to cancel themselves when their target stops.
    pub(crate) fn with_exit_hook(
        addr: &Addr<M>,
        hook: impl FnOnce(ExitReason) + Send + 'static,
    ) -> WeakAddr<M> {
        let shared = Arc::new(Shared {
            header: Mutex::new(Some(NonNull::from(addr.header()))),
            id: addr.id(),
        });
        let on_stop = shared.clone();
        on_exit(addr, move |reason| {
            *on_stop.lock() = None;
            hook(reason);
        });
        WeakAddr { shared }
    }

    /// A strong address, if the actor has not stopped.
    pub fn upgrade(&self) -> Option<Addr<M>> {
        let guard = self.shared.lock();
        let header = (*guard)?;
        // SAFETY: the pointer is still set, so the actor's exit hook has not run and the cell is
        // alive (module docs); the lock keeps it so until the reference is taken.
        unsafe { header.as_ref() }.retain();
        drop(guard);
        Some(Addr::from_header(header))
    }

    /// Sends `msg` if the actor has not stopped; hands it back otherwise.
    pub fn tell(&self, msg: M) -> Result<(), SendError<M>> {
        match self.upgrade() {
            Some(addr) => addr.send(msg),
            None => Err(SendError(msg)),
        }
    }

    /// The actor's identity.
    pub fn id(&self) -> ActorId {
        self.shared.id
    }

    /// Whether the actor is known to have stopped (its exit hook ran).
    pub fn is_stopped(&self) -> bool {
        self.shared.lock().is_none()
    }
}

impl<M: Send + 'static> Clone for WeakAddr<M> {
    fn clone(&self) -> WeakAddr<M> {
        WeakAddr {
            shared: self.shared.clone(),
        }
    }
}

impl<M: Send + 'static> std::fmt::Debug for WeakAddr<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WeakAddr({})", self.id())
    }
}
