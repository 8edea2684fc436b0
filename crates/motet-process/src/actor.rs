//! An actor facade over processes, after Effpi's actor DSL: an actor is a process with exactly one
//! mailbox (a channel), reached through an [`ActorRef`].
//!
//! Two ways to write one:
//!
//! - [`spawn`]: a behaviour that gets its [`Mailbox`] and returns the process (an `async` block that
//!   `read`s messages when it wants them, as Effpi's `read { ... }`);
//! - [`spawn_handler`]: state plus a closure called for each message (the continuation-closure form:
//!   no `async` needed); the closure returns [`Flow::Stop`] to end the actor.
//!
//! The actor ends when its behaviour returns (or the handler says stop); its mailbox closes then,
//! and sends to it fail with the message handed back. An actor whose last [`ActorRef`] is dropped
//! sees its mailbox closed once the queued messages are read (`read` returns `Err`), as a motet actor
//! stops when it becomes unreachable.
//!
//! ```
//! use motet_process::actor::{self, Flow};
//! use motet_process::{channel, ProcessSystem};
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let system = ProcessSystem::new(rt.handle());
//!
//! enum Msg { Add(u64), Get(channel::Sender<u64>) }
//! let counter = actor::spawn_handler(&system, 0u64, |total, msg, _mailbox| {
//!     match msg {
//!         Msg::Add(n) => *total += n,
//!         Msg::Get(reply) => { let _ = reply.send(*total); }
//!     }
//!     Flow::Continue
//! });
//! counter.send(Msg::Add(40)).unwrap();
//! counter.send(Msg::Add(2)).unwrap();
//! let (reply, answer) = channel::unbounded();
//! counter.send(Msg::Get(reply)).unwrap();
//! assert_eq!(answer.recv_blocking(), Ok(42));
//! ```

use std::fmt;
use std::future::Future;
#[cfg(not(loom))]
use std::time::Duration;

#[cfg(not(loom))]
use crate::channel::RecvTimeout;
use crate::channel::{self, Receiver, Recv, SendError, Sender, TryRecvError};
use crate::ProcessSystem;

/// The address of an actor accepting messages of type `T`: a sender into its mailbox. Cheap to
/// clone; can be sent in messages (to processes, motet actors or other process actors).
pub struct ActorRef<T: Send> {
    tx: Sender<T>,
}

impl<T: Send> ActorRef<T> {
    /// Sends `msg` to the actor. Never waits.
    ///
    /// # Errors
    /// The actor has ended: the message is handed back.
    #[inline]
    pub fn send(&self, msg: T) -> Result<(), SendError<T>> {
        self.tx.send(msg)
    }

    /// Whether the actor has ended (its mailbox is closed).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// The underlying channel sender.
    pub fn sender(&self) -> &Sender<T> {
        &self.tx
    }
}

impl<T: Send> Clone for ActorRef<T> {
    fn clone(&self) -> ActorRef<T> {
        ActorRef {
            tx: self.tx.clone(),
        }
    }
}

impl<T: Send> PartialEq for ActorRef<T> {
    fn eq(&self, other: &ActorRef<T>) -> bool {
        self.tx == other.tx
    }
}

impl<T: Send> Eq for ActorRef<T> {}

impl<T: Send> fmt::Debug for ActorRef<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ActorRef({:?})", self.tx)
    }
}

impl<T: Send> From<Sender<T>> for ActorRef<T> {
    fn from(tx: Sender<T>) -> ActorRef<T> {
        ActorRef { tx }
    }
}

/// An actor's mailbox: the receiving side of its channel, owned by the actor's process.
pub struct Mailbox<T: Send> {
    rx: Receiver<T>,
}

impl<T: Send> Mailbox<T> {
    /// Reads the next message, parking the actor until one arrives.
    ///
    /// # Errors
    /// [`RecvError`](crate::channel::RecvError) once no [`ActorRef`] is left and the mailbox is empty.
    #[inline]
    pub fn read(&self) -> Recv<'_, T> {
        self.rx.recv()
    }

    /// Reads the next message, or gives up after `timeout`.
    #[cfg(not(loom))]
    pub fn read_timeout(&self, timeout: Duration) -> RecvTimeout<'_, T> {
        self.rx.recv_timeout(timeout)
    }

    /// Reads a message if one is there now.
    ///
    /// # Errors
    /// [`TryRecvError::Empty`] or [`TryRecvError::Closed`].
    pub fn try_read(&self) -> Result<T, TryRecvError> {
        self.rx.try_recv()
    }

    /// A reference to this actor (Effpi's `self`). An actor that keeps one in its state keeps its
    /// mailbox open until it ends.
    pub fn self_ref(&self) -> ActorRef<T> {
        ActorRef {
            tx: self.rx.sender(),
        }
    }

    /// The underlying channel receiver (for a [`Select`](crate::Select) with other channels).
    pub fn receiver(&self) -> &Receiver<T> {
        &self.rx
    }
}

impl<T: Send> Drop for Mailbox<T> {
    fn drop(&mut self) {
        // The actor has ended: later sends fail instead of queueing messages nobody will read.
        self.rx.close();
    }
}

impl<T: Send> fmt::Debug for Mailbox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mailbox({:?})", self.rx)
    }
}

/// Spawns an actor whose process is `behavior(mailbox)`; returns its reference.
///
/// ```
/// use motet_process::{actor, channel, ProcessSystem};
/// # let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// # let system = ProcessSystem::new(rt.handle());
/// // Effpi's pong: read a ping carrying a reply reference, answer it, end.
/// let pong = actor::spawn(&system, |mailbox: actor::Mailbox<actor::ActorRef<&'static str>>| async move {
///     if let Ok(reply_to) = mailbox.read().await {
///         let _ = reply_to.send("pong");
///     }
/// });
/// let (tx, rx) = channel::unbounded();
/// pong.send(tx.into()).unwrap();
/// assert_eq!(rx.recv_blocking(), Ok("pong"));
/// ```
pub fn spawn<T, F, Fut>(system: &ProcessSystem, behavior: F) -> ActorRef<T>
where
    T: Send + 'static,
    F: FnOnce(Mailbox<T>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = channel::unbounded();
    system.spawn(behavior(Mailbox { rx }));
    ActorRef { tx }
}

/// What a handler tells its actor after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading messages.
    Continue,
    /// End the actor.
    Stop,
}

/// Spawns an actor from `state` and a handler called for each message; returns its reference. The
/// actor ends when the handler returns [`Flow::Stop`] or when its mailbox is closed and empty.
pub fn spawn_handler<T, S, H>(system: &ProcessSystem, state: S, handler: H) -> ActorRef<T>
where
    T: Send + 'static,
    S: Send + 'static,
    H: FnMut(&mut S, T, &Mailbox<T>) -> Flow + Send + 'static,
{
    let mut state = state;
    let mut handler = handler;
    // Sugar over an `async` behaviour: the read-handle loop compiles to the state machine one would
    // write by hand (the bench `process` compares the two forms with motet actors).
    spawn(system, move |mailbox| async move {
        while let Ok(msg) = mailbox.read().await {
            if handler(&mut state, msg, &mailbox) == Flow::Stop {
                break;
            }
        }
    })
}
