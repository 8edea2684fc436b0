//! The futures of channel operations, and blocking on them from a plain thread.
//!
//! Each waiting future embeds its wait-queue [`Waiter`]: inside a process it is part of the
//! process's allocation, so parking allocates nothing. The futures are `!Unpin` (the entry must not
//! move while linked); their `Drop` takes the entry out of the channel.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::ptr;
use std::task::{Context, Poll};
use std::time::Instant;

#[cfg(not(loom))]
use std::task::Waker;
#[cfg(not(loom))]
use std::time::Duration;

#[cfg(not(loom))]
use motet_runtime::{Handle, TimerKey};

use super::chan::{Chan, RecvPoll, TryRecv};
#[cfg(not(loom))]
use super::error::RecvTimeoutError;
use super::error::{RecvError, SendError};
use super::waiter::{Waiter, FAST, UNLINKED};
use crate::context;
use crate::system::block_on_notify;

/// Gives the process's turn away if its step budget is spent: wakes it and returns true (the caller
/// returns `Pending`; the process goes to the back of its worker's queue).
#[inline]
pub(crate) fn yield_if_spent(cx: &Context<'_>) -> bool {
    if context::take_step() {
        return false;
    }
    cx.waker().wake_by_ref();
    true
}

/// The future of [`Receiver::recv`](super::Receiver::recv).
#[must_use = "futures do nothing unless awaited"]
pub struct Recv<'a, T> {
    chan: &'a Chan<T>,
    entry: Waiter<T>,
}

impl<'a, T> Recv<'a, T> {
    pub(crate) fn new(chan: &'a Chan<T>) -> Recv<'a, T> {
        Recv {
            chan,
            entry: Waiter::new(),
        }
    }
}

impl<T> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: the entry is never moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        // The woken receiver's fast path: a sender left the value in the entry. The receive spent
        // its step when it was first polled.
        if let Some(value) = this.entry.take_if_done() {
            return Poll::Ready(Ok(value));
        }
        if yield_if_spent(cx) {
            return Poll::Pending;
        }
        // Asked to park in the channel's word earlier in this same poll (see `fast_park`).
        if this.entry.state() == FAST || this.chan.request_fast_park(&this.entry, cx) {
            return Poll::Pending;
        }
        match this.chan.poll_recv(&this.entry, cx, ptr::null()) {
            RecvPoll::Ready(Some(v)) => Poll::Ready(Ok(v)),
            RecvPoll::Ready(None) => Poll::Ready(Err(RecvError)),
            RecvPoll::Pending => Poll::Pending,
            RecvPoll::Lost => unreachable!("a plain receive has no select group"),
        }
    }
}

impl<T> Drop for Recv<'_, T> {
    #[inline]
    fn drop(&mut self) {
        match self.entry.state() {
            UNLINKED => {}
            FAST => self.withdraw(),
            _ => self.chan.cancel_recv(&self.entry),
        }
    }
}

impl<T> Recv<'_, T> {
    /// Dropped in the poll that asked to park its entry in the channel's word (a parked entry's
    /// process does not run): the run must not park it. Out of line (rare), so that the usual
    /// drop, of a completed receive, stays one check.
    #[cold]
    #[inline(never)]
    fn withdraw(&self) {
        // SAFETY: this is the poll that asked.
        if let Some(header) = unsafe { self.entry.fast_owner() } {
            let entry = &self.entry as *const Waiter<T> as *const ();
            // SAFETY: the entry lies in the process's allocation, whose run is polling.
            unsafe { header.as_ref().withdraw_park(entry) };
        }
        self.entry.set_state(UNLINKED);
    }
}

/// The future of [`Receiver::recv_many`](super::Receiver::recv_many): a receive that, once a value
/// is there, takes every value queued behind it too, with one lock of the channel.
#[must_use = "futures do nothing unless awaited"]
pub struct RecvMany<'a, T> {
    recv: Recv<'a, T>,
    buf: &'a mut VecDeque<T>,
}

impl<'a, T> RecvMany<'a, T> {
    pub(crate) fn new(chan: &'a Chan<T>, buf: &'a mut VecDeque<T>) -> RecvMany<'a, T> {
        RecvMany {
            recv: Recv::new(chan),
            buf,
        }
    }
}

impl<T> Future for RecvMany<'_, T> {
    type Output = Result<usize, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: the entry is never moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        let chan = this.recv.chan;
        let entry = &this.recv.entry;
        // Woken with a value handed over: it comes first, then whatever was queued behind it.
        if let Some(value) = entry.take_if_done() {
            this.buf.push_back(value);
            let more = match chan.try_recv_many(this.buf) {
                TryRecv::Value(n) => n,
                TryRecv::Empty | TryRecv::Closed => 0,
            };
            return Poll::Ready(Ok(1 + more));
        }
        // One step for the whole batch, as for one receive.
        if yield_if_spent(cx) {
            return Poll::Pending;
        }
        if entry.state() == FAST {
            return Poll::Pending;
        }
        // In no queue and the channel not idle and empty: take what is queued, with one lock.
        if entry.state() == UNLINKED && !chan.looks_empty() {
            match chan.try_recv_many(this.buf) {
                TryRecv::Value(n) => return Poll::Ready(Ok(n)),
                TryRecv::Closed => return Poll::Ready(Err(RecvError)),
                TryRecv::Empty => {}
            }
        }
        // Nothing queued: wait as a plain receive does (parking in the channel's word if it can).
        if chan.request_fast_park(entry, cx) {
            return Poll::Pending;
        }
        match chan.poll_recv(entry, cx, ptr::null()) {
            RecvPoll::Ready(Some(value)) => {
                this.buf.push_back(value);
                Poll::Ready(Ok(1))
            }
            RecvPoll::Ready(None) => Poll::Ready(Err(RecvError)),
            RecvPoll::Pending => Poll::Pending,
            RecvPoll::Lost => unreachable!("a plain receive has no select group"),
        }
    }
}

/// Where a timeout waits: the runtime's timers, reached through the current process's system.
#[cfg(not(loom))]
fn current_handle(what: &str) -> Handle {
    context::with_system(|s| match s {
        Some(system) => system.handle().clone(),
        None => panic!(
            "motet-process: {what} must be polled inside a process or ProcessSystem::block_on \
             (it needs the runtime's timers)"
        ),
    })
}

/// A deadline on the runtime's clock and the timer that wakes the waiting task at it.
#[cfg(not(loom))]
pub(crate) struct Deadline {
    timeout: Duration,
    armed: Option<(Handle, Instant, Option<TimerKey>)>,
}

#[cfg(not(loom))]
impl Deadline {
    pub(crate) fn new(timeout: Duration) -> Deadline {
        Deadline {
            timeout,
            armed: None,
        }
    }

    /// Whether the deadline has passed; on the first call, fixes the deadline (now + timeout).
    pub(crate) fn passed(&mut self, what: &str) -> bool {
        let (handle, at, _) = self.armed.get_or_insert_with(|| {
            let handle = current_handle(what);
            let at = handle.now() + self.timeout;
            (handle, at, None)
        });
        handle.now() >= *at
    }

    /// Makes sure a timer will wake `waker` at the deadline.
    pub(crate) fn arm(&mut self, waker: &Waker) {
        if let Some((handle, at, key @ None)) = &mut self.armed {
            let waker = waker.clone();
            let after = at.saturating_duration_since(handle.now());
            *key = Some(handle.call_after(after, move || waker.wake()));
        }
    }

    /// Cancels the timer, if one is pending.
    pub(crate) fn disarm(&mut self) {
        if let Some((handle, _, Some(key))) = self.armed.take() {
            handle.cancel_timer(key);
        }
    }
}

#[cfg(not(loom))]
impl Drop for Deadline {
    fn drop(&mut self) {
        self.disarm();
    }
}

/// The future of [`Receiver::recv_timeout`](super::Receiver::recv_timeout).
#[cfg(not(loom))]
#[must_use = "futures do nothing unless awaited"]
pub struct RecvTimeout<'a, T> {
    recv: Recv<'a, T>,
    deadline: Deadline,
}

#[cfg(not(loom))]
impl<'a, T> RecvTimeout<'a, T> {
    pub(crate) fn new(chan: &'a Chan<T>, timeout: Duration) -> RecvTimeout<'a, T> {
        RecvTimeout {
            recv: Recv::new(chan),
            deadline: Deadline::new(timeout),
        }
    }
}

#[cfg(not(loom))]
impl<T> Future for RecvTimeout<'_, T> {
    type Output = Result<T, RecvTimeoutError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: the entry is never moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        if yield_if_spent(cx) {
            return Poll::Pending;
        }
        let passed = this.deadline.passed("recv_timeout");
        let chan = this.recv.chan;
        match chan.poll_recv(&this.recv.entry, cx, ptr::null()) {
            RecvPoll::Ready(result) => {
                this.deadline.disarm();
                Poll::Ready(result.ok_or(RecvTimeoutError::Closed))
            }
            RecvPoll::Pending if passed => {
                this.deadline.disarm();
                // A value handed over in the meantime wins over the timeout.
                Poll::Ready(
                    chan.abort_recv(&this.recv.entry)
                        .ok_or(RecvTimeoutError::Timeout),
                )
            }
            RecvPoll::Pending => {
                this.deadline.arm(cx.waker());
                Poll::Pending
            }
            RecvPoll::Lost => unreachable!("a plain receive has no select group"),
        }
    }
}

/// The future of [`BoundedSender::send`](super::BoundedSender::send).
#[must_use = "futures do nothing unless awaited"]
pub struct SendFuture<'a, T> {
    chan: &'a Chan<T>,
    value: Option<T>,
    entry: Waiter<T>,
}

impl<'a, T> SendFuture<'a, T> {
    pub(crate) fn new(chan: &'a Chan<T>, value: T) -> SendFuture<'a, T> {
        SendFuture {
            chan,
            value: Some(value),
            entry: Waiter::new(),
        }
    }
}

impl<T> Future for SendFuture<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: the entry is never moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        if yield_if_spent(cx) {
            return Poll::Pending;
        }
        match this.chan.poll_send(&this.entry, &mut this.value, cx) {
            Some(result) => Poll::Ready(result),
            None => Poll::Pending,
        }
    }
}

impl<T> Drop for SendFuture<'_, T> {
    fn drop(&mut self) {
        if self.entry.state() != UNLINKED {
            drop(self.chan.cancel_send(&self.entry));
        }
    }
}

/// Polls `future` on the calling thread, parking it between wake-ups, until it completes or
/// `deadline` passes (then `None`, and the future is dropped, which cancels it).
pub(crate) fn block_on_thread<F: Future>(
    future: F,
    deadline: Option<Instant>,
) -> Option<F::Output> {
    block_on_notify(future, ptr::null(), |notify| match deadline {
        None => {
            notify.park();
            Ok(())
        }
        Some(d) if notify.park_until(d) => Ok(()),
        Some(_) => Err(()),
    })
    .ok()
}
