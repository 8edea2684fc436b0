//! Channels as [`futures`](https://docs.rs/futures) streams and sinks (feature `futures`), so that
//! the combinators of `futures::StreamExt` / `SinkExt` (and `tokio_stream`, `forward`, `select!`
//! over streams) work on them, in a process or in any other executor's task.
//!
//! - [`Receiver::into_stream`] gives a [`RecvStream`]: `Stream<Item = T>`, which ends once the
//!   channel is closed and empty.
//! - A [`Sender`] is a `Sink<T>` as it is: its sends never wait. `poll_close` does not close the
//!   channel (which would close it for every handle); dropping the sink does, if it is the last
//!   sender, as for any sender. Its own `send` and `close` methods come before `SinkExt`'s in
//!   method calls: name the sink's as `SinkExt::send(&mut tx, v)`.
//! - [`BoundedSender::into_sink`] gives a [`SendSink`]: `Sink<T>` holding at most one value that
//!   found the channel full, which `poll_ready` and `poll_flush` push in as room appears.
//!
//! Both keep their wait entry in a box of their own, so they are `Unpin` and need no pinning.
//!
//! ```
//! use futures::{SinkExt, StreamExt};
//! use motet_process::{channel, ProcessSystem};
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let system = ProcessSystem::new(rt.handle());
//! let (tx, rx) = channel::bounded::<u32>(2);
//! let (out_tx, out_rx) = channel::unbounded::<u32>();
//! system.spawn(async move {
//!     let mut sink = tx.into_sink();
//!     sink.send_all(&mut futures::stream::iter((1..=10).map(Ok))).await.unwrap();
//! });
//! system.spawn(async move {
//!     let total = rx.into_stream().map(|v| v * 2).fold(0, |a, v| async move { a + v }).await;
//!     out_tx.send(total).unwrap();
//! });
//! assert_eq!(out_rx.recv_blocking(), Ok(110));
//! ```

use std::pin::Pin;
use std::ptr;
use std::task::{Context, Poll};

use futures_core::Stream;
use futures_sink::Sink;

use super::chan::RecvPoll;
use super::futures::yield_if_spent;
use super::waiter::{Waiter, UNLINKED};
use super::{BoundedSender, Receiver, SendError, Sender, TrySendError};

/// A [`Receiver`] as a `futures::Stream`: yields each value received, and ends once the channel
/// is closed and empty. Made by [`Receiver::into_stream`].
pub struct RecvStream<T: Send> {
    rx: Receiver<T>,
    /// The wait entry of the receive in progress; boxed, so that it stays put while linked.
    entry: Box<Waiter<T>>,
}

impl<T: Send> Receiver<T> {
    /// This receiver as a `futures::Stream` of the values it receives (feature `futures`).
    pub fn into_stream(self) -> RecvStream<T> {
        RecvStream {
            rx: self,
            entry: Box::new(Waiter::new()),
        }
    }
}

impl<T: Send> RecvStream<T> {
    /// The receiver back, cancelling the receive in progress (a value it had been handed goes
    /// back to the front of the channel).
    pub fn into_inner(self) -> Receiver<T> {
        let mut this = std::mem::ManuallyDrop::new(self);
        this.cancel();
        // SAFETY: `this` is never used or dropped again; each field is read out once (the entry
        // is dropped here, the receiver returned).
        unsafe {
            drop(ptr::read(&this.entry));
            ptr::read(&this.rx)
        }
    }

    fn cancel(&mut self) {
        if self.entry.state() != UNLINKED {
            self.rx.chan().cancel_recv(&self.entry);
        }
    }
}

impl<T: Send> Stream for RecvStream<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        if let Some(value) = this.entry.take_if_done() {
            return Poll::Ready(Some(value));
        }
        if yield_if_spent(cx) {
            return Poll::Pending;
        }
        match this.rx.chan().poll_recv(&this.entry, cx, ptr::null()) {
            RecvPoll::Ready(v) => Poll::Ready(v),
            RecvPoll::Pending => Poll::Pending,
            RecvPoll::Lost => unreachable!("a stream's receive has no select group"),
        }
    }
}

impl<T: Send> Drop for RecvStream<T> {
    fn drop(&mut self) {
        self.cancel();
    }
}

impl<T: Send> Sink<T> for Sender<T> {
    type Error = SendError<T>;

    fn poll_ready(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        self.send(item)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }
}

/// A [`BoundedSender`] as a `futures::Sink`: a value that finds the channel full waits in the
/// sink (one at most) until `poll_ready` or `poll_flush` finds room for it. Made by
/// [`BoundedSender::into_sink`]. Dropping the sink drops a value still waiting in it, unsent.
pub struct SendSink<T: Send> {
    tx: BoundedSender<T>,
    /// The value waiting for room, until the channel holds it (or the entry does).
    pending: Option<T>,
    /// The wait entry of the send in progress; boxed, so that it stays put while linked.
    entry: Box<Waiter<T>>,
}

// The sink never pins the value it holds (it is moved into the channel or handed back), and the
// wait entry lies in a box of its own.
impl<T: Send> Unpin for SendSink<T> {}

impl<T: Send> BoundedSender<T> {
    /// This sender as a `futures::Sink` (feature `futures`).
    pub fn into_sink(self) -> SendSink<T> {
        SendSink {
            tx: self,
            pending: None,
            entry: Box::new(Waiter::new()),
        }
    }
}

impl<T: Send> SendSink<T> {
    /// Pushes the waiting value in, if there is one: ready once the channel holds it.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError<T>>> {
        if self.pending.is_none() && self.entry.state() == UNLINKED {
            return Poll::Ready(Ok(()));
        }
        match self.tx.chan().poll_send(&self.entry, &mut self.pending, cx) {
            Some(result) => Poll::Ready(result),
            None => Poll::Pending,
        }
    }
}

impl<T: Send> Sink<T> for SendSink<T> {
    type Error = SendError<T>;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().poll_pending(cx)
    }

    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        let this = self.get_mut();
        debug_assert!(this.pending.is_none(), "start_send without poll_ready");
        match this.tx.try_send(item) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(v)) => {
                this.pending = Some(v);
                Ok(())
            }
            Err(TrySendError::Closed(v)) => Err(SendError(v)),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().poll_pending(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().poll_pending(cx)
    }
}

impl<T: Send> Drop for SendSink<T> {
    fn drop(&mut self) {
        if self.entry.state() != UNLINKED {
            drop(self.tx.chan().cancel_send(&self.entry));
        }
    }
}
