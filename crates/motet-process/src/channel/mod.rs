//! Typed channels: unbounded and bounded, many senders and many receivers.
//!
//! - [`unbounded`] gives a [`Sender`] whose `send` never waits (it is a plain function, usable from
//!   actors, threads and processes alike) and a [`Receiver`].
//! - [`bounded`] gives a [`BoundedSender`] whose `send` waits (as a future) while the channel holds
//!   `cap` values, and a [`Receiver`]. Capacity 0 is a rendezvous: a send completes when a receiver
//!   takes the value.
//!
//! Receiving: [`Receiver::recv`] (a future), [`Receiver::try_recv`], [`Receiver::recv_timeout`] (an
//! error value after the timeout), [`Receiver::recv_blocking`] for a thread outside the runtime
//! (`main`), and [`Select`](crate::Select) over several channels.
//!
//! A receiver that finds no value parks on the channel's wait queue: nothing polls it again until a
//! sender hands it a value (directly into the parked receive, so the woken process always finds it)
//! or the channel closes. This is the lesson of the Effpi runtime thesis (sections 4.2.5 and 6.2):
//! no blind rescheduling, no failed receives. The woken process is scheduled on the sender's worker,
//! through its next-task slot.
//!
//! Channels are values: they can be sent over channels (pi-calculus mobility), as a ping carries the
//! channel its pong should be sent back on.
//!
//! ```
//! use motet_process::{channel, ProcessSystem};
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let system = ProcessSystem::new(rt.handle());
//! let (ping_tx, ping_rx) = channel::unbounded::<channel::Sender<&'static str>>();
//! system.spawn(async move {
//!     // pong: answers each ping on the channel the ping carries
//!     while let Ok(reply) = ping_rx.recv().await {
//!         let _ = reply.send("pong");
//!     }
//! });
//! let (reply_tx, reply_rx) = channel::unbounded();
//! ping_tx.send(reply_tx).unwrap();
//! assert_eq!(reply_rx.recv_blocking(), Ok("pong"));
//! ```
//!
//! Closing: [`Sender::close`] or [`Receiver::close`] closes the channel for everyone. After closing,
//! sends fail (handing the value back) and receivers get the values still queued, then
//! [`RecvError`]. Dropping the last sender has the same effect on receivers (until a receiver mints a
//! new sender with [`Receiver::sender`]); dropping the last receiver closes the channel and drops the
//! queued values.

mod chan;
mod error;
pub(crate) mod fast_park;
mod futures;
#[cfg(feature = "futures")]
mod stream;
pub(crate) mod waiter;

use std::collections::VecDeque;
use std::fmt;
use std::ptr::NonNull;
use std::time::{Duration, Instant};

pub(crate) use chan::{Chan, RecvPoll, TryRecv};
use chan::{RECEIVER, SENDER};
pub use error::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
pub(crate) use futures::yield_if_spent;
#[cfg(not(loom))]
pub(crate) use futures::Deadline;
#[cfg(not(loom))]
pub use futures::RecvTimeout;
pub use futures::{Recv, RecvMany, SendFuture};
#[cfg(feature = "futures")]
pub use stream::{RecvStream, SendSink};

/// A channel without a capacity limit: sends never wait.
///
/// ```
/// let (tx, rx) = motet_process::channel::unbounded();
/// tx.send(1).unwrap();
/// tx.send(2).unwrap();
/// assert_eq!(rx.try_recv(), Ok(1));
/// assert_eq!(rx.try_recv(), Ok(2));
/// ```
pub fn unbounded<T: Send>() -> (Sender<T>, Receiver<T>) {
    let chan = Chan::allocate(usize::MAX);
    (Sender { chan }, Receiver { chan })
}

/// A channel holding at most `cap` values: [`BoundedSender::send`] waits while it is full. With
/// `cap == 0` every send waits for a receiver to take the value (a rendezvous).
///
/// ```
/// use motet_process::channel::{self, TrySendError};
/// let (tx, rx) = channel::bounded(1);
/// tx.try_send(1).unwrap();
/// assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
/// assert_eq!(rx.try_recv(), Ok(1));
/// ```
pub fn bounded<T: Send>(cap: usize) -> (BoundedSender<T>, Receiver<T>) {
    let chan = Chan::allocate(cap.min(usize::MAX - 1));
    (BoundedSender { chan }, Receiver { chan })
}

/// The sending side of an [`unbounded`] channel. Cheap to clone (every clone sends into the same
/// channel); the channel closes when the last sender is dropped.
pub struct Sender<T: Send> {
    chan: NonNull<Chan<T>>,
}

/// The sending side of a [`bounded`] channel. Cheap to clone; the channel closes when the last sender
/// is dropped.
pub struct BoundedSender<T: Send> {
    chan: NonNull<Chan<T>>,
}

/// The receiving side of a channel. Cheap to clone: several receivers share the values, each value
/// going to one of them (receivers parked on an empty channel are served in arrival order). The
/// channel closes, and drops its queued values, when the last receiver is dropped.
pub struct Receiver<T: Send> {
    chan: NonNull<Chan<T>>,
}

macro_rules! handle_impls {
    ($name:ident, $kind:expr) => {
        // SAFETY: a handle only moves `T: Send` values through the channel's lock and reads its
        // shared state; the channel lives while the handle does.
        unsafe impl<T: Send> Send for $name<T> {}
        // SAFETY: as above; every operation through `&handle` is thread-safe.
        unsafe impl<T: Send> Sync for $name<T> {}

        impl<T: Send> $name<T> {
            #[inline]
            fn chan(&self) -> &Chan<T> {
                // SAFETY: the handle keeps the channel alive.
                unsafe { self.chan.as_ref() }
            }

            /// Closes the channel for every handle (see the [module docs](crate::channel)). Returns
            /// whether this call closed it.
            pub fn close(&self) -> bool {
                self.chan().close()
            }

            /// Whether the channel is closed.
            pub fn is_closed(&self) -> bool {
                self.chan().is_closed()
            }

            /// The number of values queued.
            pub fn len(&self) -> usize {
                self.chan().len()
            }

            /// Whether no value is queued.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// The capacity of a bounded channel; `None` for an unbounded one.
            pub fn capacity(&self) -> Option<usize> {
                self.chan().capacity()
            }
        }

        impl<T: Send> Clone for $name<T> {
            #[inline]
            fn clone(&self) -> $name<T> {
                self.chan().retain($kind);
                $name { chan: self.chan }
            }
        }

        impl<T: Send> Drop for $name<T> {
            #[inline]
            fn drop(&mut self) {
                // SAFETY: this handle is given up here and never used again.
                unsafe { Chan::release(self.chan, $kind) };
            }
        }

        impl<T: Send> fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:p})"), self.chan)
            }
        }

        impl<T: Send> PartialEq for $name<T> {
            /// Whether both handles belong to the same channel.
            fn eq(&self, other: &$name<T>) -> bool {
                self.chan == other.chan
            }
        }

        impl<T: Send> Eq for $name<T> {}
    };
}

handle_impls!(Sender, SENDER);
handle_impls!(BoundedSender, SENDER);
handle_impls!(Receiver, RECEIVER);

impl<T: Send> Sender<T> {
    /// Sends `value`, waking a parked receiver if there is one. Never waits.
    ///
    /// # Errors
    /// The channel is closed: the value is handed back.
    #[inline]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.chan()
            .try_send(value)
            .map_err(|e| SendError(e.into_inner()))
    }
}

impl<T: Send> BoundedSender<T> {
    /// Sends `value`, waiting while the channel is full.
    ///
    /// # Errors
    /// The channel is closed (before or while waiting): the value is handed back.
    ///
    /// # Cancel safety
    /// Dropping the future before it completes drops the value unsent.
    pub fn send(&self, value: T) -> SendFuture<'_, T> {
        SendFuture::new(self.chan(), value)
    }

    /// Sends `value` if there is room now.
    ///
    /// # Errors
    /// [`TrySendError::Full`] or [`TrySendError::Closed`], with the value.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.chan().try_send(value)
    }

    /// Sends `value`, blocking the calling thread while the channel is full. For threads outside the
    /// runtime; a process should `.await` [`send`](BoundedSender::send) instead.
    ///
    /// # Errors
    /// The channel is closed: the value is handed back.
    pub fn send_blocking(&self, value: T) -> Result<(), SendError<T>> {
        futures::block_on_thread(self.send(value), None).unwrap_or_else(|| unreachable!())
    }
}

impl<T: Send> Receiver<T> {
    /// Receives the next value, parking the process until one arrives.
    ///
    /// # Errors
    /// [`RecvError`] once the channel is closed and empty.
    ///
    /// # Cancel safety
    /// Dropping the future before it completes loses nothing: a value it had already been handed
    /// goes back to the front of the channel.
    #[inline]
    pub fn recv(&self) -> Recv<'_, T> {
        Recv::new(self.chan())
    }

    /// Receives the next value and every value queued behind it, appending them to `buf` in
    /// order, and returns how many it appended (at least one); parks the process until one
    /// arrives, as [`recv`](Receiver::recv) does. The values queued are taken with one lock of
    /// the channel (an unbounded channel's queue moves whole: it is swapped with `buf` when `buf`
    /// is empty, and the channel goes on with `buf`'s buffer), where a loop of `recv`s takes the
    /// lock once per value: a receiver that keeps up with a fast sender on another worker then
    /// shares the channel's cache line with it once per batch, as an actor takes its mailbox. It
    /// counts as one step of the process's budget.
    ///
    /// # Errors
    /// [`RecvError`] once the channel is closed and empty (nothing is appended).
    ///
    /// # Cancel safety
    /// As for [`recv`](Receiver::recv): a value handed to the dropped future goes back to the front
    /// of the channel (the future appends to `buf` only as it completes).
    pub fn recv_many<'a>(&'a self, buf: &'a mut VecDeque<T>) -> RecvMany<'a, T> {
        RecvMany::new(self.chan(), buf)
    }

    /// Receives a value if one is there now.
    ///
    /// # Errors
    /// [`TryRecvError::Empty`] or [`TryRecvError::Closed`].
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        match self.chan().try_recv() {
            TryRecv::Value(v) => Ok(v),
            TryRecv::Empty => Err(TryRecvError::Empty),
            TryRecv::Closed => Err(TryRecvError::Closed),
        }
    }

    /// Receives the next value, or gives up after `timeout` (the runtime's timers wake the process;
    /// on a deterministic runtime the time is virtual).
    ///
    /// # Errors
    /// [`RecvTimeoutError::Timeout`] when no value came in time, [`RecvTimeoutError::Closed`] once
    /// the channel is closed and empty.
    ///
    /// # Panics
    /// When polled outside a process and outside [`ProcessSystem::block_on`](crate::ProcessSystem::block_on)
    /// (there is no runtime to keep the time); use
    /// [`recv_blocking_timeout`](Receiver::recv_blocking_timeout) on plain threads.
    ///
    /// # Cancel safety
    /// As for [`recv`](Receiver::recv).
    #[cfg(not(loom))]
    pub fn recv_timeout(&self, timeout: Duration) -> RecvTimeout<'_, T> {
        RecvTimeout::new(self.chan(), timeout)
    }

    /// Receives the next value, blocking the calling thread until one arrives. For threads outside
    /// the runtime (`main`); a process should `.await` [`recv`](Receiver::recv) instead. On a
    /// deterministic runtime nothing runs while this blocks: use
    /// [`ProcessSystem::block_on`](crate::ProcessSystem::block_on) there.
    ///
    /// # Errors
    /// [`RecvError`] once the channel is closed and empty.
    pub fn recv_blocking(&self) -> Result<T, RecvError> {
        futures::block_on_thread(self.recv(), None).unwrap_or_else(|| unreachable!())
    }

    /// As [`recv_blocking`](Receiver::recv_blocking), giving up after `timeout`.
    ///
    /// # Errors
    /// [`RecvTimeoutError::Timeout`] or [`RecvTimeoutError::Closed`].
    pub fn recv_blocking_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        match futures::block_on_thread(self.recv(), Some(Instant::now() + timeout)) {
            Some(result) => result.map_err(Into::into),
            None => Err(RecvTimeoutError::Timeout),
        }
    }

    /// A new sender into this channel (as an actor mints its own address). A channel whose senders
    /// were all dropped has one again (receives wait again); if the channel was closed, sends
    /// through it fail.
    pub fn sender(&self) -> Sender<T> {
        self.chan().mint_sender();
        Sender { chan: self.chan }
    }

    pub(crate) fn chan_ref(&self) -> &Chan<T> {
        self.chan()
    }
}

impl<T: Send> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = BlockingIter<T>;

    /// Blocking iteration from a thread outside the runtime, until the channel is closed and empty.
    fn into_iter(self) -> BlockingIter<T> {
        BlockingIter { rx: self }
    }
}

/// Blocking iteration over a [`Receiver`] (see its `IntoIterator` impl).
#[derive(Debug)]
pub struct BlockingIter<T: Send> {
    rx: Receiver<T>,
}

impl<T: Send> Iterator for BlockingIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv_blocking().ok()
    }
}
