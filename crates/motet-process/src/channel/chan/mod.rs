//! The channel core shared by every handle: a value queue and two wait queues behind one short lock.
//!
//! # Layout
//!
//! One allocation per channel, one 64-byte cache line for an unbounded channel: the handle counts,
//! the lock word (which, while free, also says whether the channel is idle and empty, or holds the
//! entry of a receiver parked in it: see `fast_park`) and the locked [`State`]: a `VecDeque` of
//! values, the queue of waiting receivers (a circular list, one word), and one word holding the
//! closed and sender-less flags with a pointer to what only a bounded channel needs (the queue of
//! senders waiting for room and the capacity, boxed). A bounded channel of capacity 0 is a
//! rendezvous (every value goes from a waiting sender straight to a receiver).
//!
//! # Invariants (under the lock)
//!
//! - Receivers wait only while the queue is empty and no sender waits; senders wait only while the
//!   queue is full. So a send first looks for a waiting receiver, a receive first for a queued value.
//! - A value handed to a waiting receiver goes straight into its entry (no queueing, no second lock
//!   for the receiver): a woken receiver always finds its value, so there are no failed receives.
//! - Closing wakes every waiter: receivers find the channel closed (after the queued values), waiting
//!   senders get their values back.
//!
//! # Files
//!
//! - this one: the channel, its allocation, its lock, closing and what a handle reads of it;
//! - [`state`]: what the lock guards, and the moves of values and entries under it;
//! - [`handles`]: the counts of senders, receivers and pins, and who frees the channel;
//! - [`send`] and [`recv`]: the operations of senders and of receivers;
//! - [`park`]: the channel's side of the fast park (see `fast_park`).

mod handles;
mod park;
mod recv;
mod send;
mod state;

use std::collections::VecDeque;
use std::ptr::NonNull;

use motet_runtime::alloc::BlockCache;

use super::fast_park;
use super::waiter::{WaitList, Waiter, Wake};
use crate::blocks::Blocks;
use crate::lock::{WordGuard, WordLock};
use crate::sync::atomic::AtomicU64;

pub(crate) use handles::{RECEIVER, SENDER};
use state::{BoundAndFlags, State};

/// A channel: one 64-byte cache line when unbounded (see [`State`]).
#[repr(align(64))]
pub(crate) struct Chan<T> {
    handles: AtomicU64,
    state: WordLock<State<T>>,
}

/// The outcome of a receive attempt that may park.
pub(crate) enum RecvPoll<T> {
    /// A value, or `None`: closed and drained.
    Ready(Option<T>),
    /// Parked (or still parked) on the channel.
    Pending,
    /// The entry's select was decided by another branch: nothing was taken.
    Lost,
}

/// The outcome of a non-blocking receive.
pub(crate) enum TryRecv<T> {
    Value(T),
    Empty,
    Closed,
}

/// Carries out the wake-ups of a close, after unlocking. Usually there are none (a channel's last
/// sender or receiver goes while nobody waits), and then this is one comparison: no iterator is
/// built and dropped.
#[inline]
fn run_all(wakes: Vec<Wake>) {
    if !wakes.is_empty() {
        wakes.into_iter().for_each(Wake::run);
    }
}

impl<T> Chan<T> {
    /// A new channel of capacity `cap` (`usize::MAX`: unbounded) with one sender and one receiver.
    /// Its block comes from this thread's block cache (see `blocks`).
    pub(crate) fn allocate(cap: usize) -> NonNull<Chan<T>> {
        let chan = Blocks::allocate_for::<Chan<T>>();
        // SAFETY: a fresh block with the layout of `Chan<T>`, ours alone.
        unsafe {
            chan.as_ptr().write(Chan {
                handles: AtomicU64::new(SENDER + RECEIVER),
                state: WordLock::new(State {
                    queue: VecDeque::new(),
                    receivers: WaitList::new(),
                    rest: BoundAndFlags::new(cap),
                }),
            })
        };
        chan
    }

    /// Drops and frees a channel no handle or pin refers to any more.
    ///
    /// # Safety
    /// `this` came from [`allocate`](Chan::allocate), no handle or pin is left, and nothing uses
    /// it afterwards.
    unsafe fn free(this: NonNull<Chan<T>>) {
        // SAFETY: the caller's contract.
        unsafe { Blocks::drop_and_release(this) }
    }

    /// Locks the channel. A receiver parked in the lock word moves into the wait list (its waker
    /// says that whoever completes it schedules its process), so every operation under the lock
    /// sees one queue of waiting receivers.
    #[inline]
    fn lock(&self) -> WordGuard<'_, State<T>> {
        let (mut st, word) = self.state.lock();
        if fast_park::is_entry(word) {
            // SAFETY: the word held a parked entry (see `fast_park`): alive, pinned in its
            // process's future and filled before the release compare-and-swap our acquire swap
            // read; taking it out of the word made it ours to link, under the lock.
            unsafe { st.receivers.push_back(&*(word as *const Waiter<T>)) };
        }
        st
    }

    /// Closes the channel: sends fail from now on, receivers get what is queued and then an error,
    /// every waiter is woken. Returns whether this call closed it.
    pub(crate) fn close(&self) -> bool {
        let wakes = {
            let mut st = self.lock();
            if st.rest.closed() {
                return false;
            }
            st.rest.set_closed();
            st.wake_all()
        };
        run_all(wakes);
        true
    }

    /// Closes the channel and drops every queued value (no receiver is left to take them), in one
    /// critical section; the values are dropped after unlocking.
    fn close_and_drain(&self) {
        let (wakes, values) = {
            let mut st = self.lock();
            let wakes = if st.rest.closed() {
                Vec::new()
            } else {
                st.rest.set_closed();
                if st.receivers.is_empty() && !st.rest.has_waiting_sender() {
                    // Nobody to wake: the common case, without the call.
                    Vec::new()
                } else {
                    st.wake_all()
                }
            };
            (wakes, std::mem::take(&mut st.queue))
        };
        run_all(wakes);
        drop(values);
    }

    /// Whether sends fail (closed), or, seen from a receiver, no sender is left either.
    pub(crate) fn is_closed(&self) -> bool {
        self.lock().ended()
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().queue.len()
    }

    pub(crate) fn capacity(&self) -> Option<usize> {
        let cap = self.lock().rest.cap();
        (cap != usize::MAX).then_some(cap)
    }
}

#[cfg(all(test, not(loom), target_pointer_width = "64"))]
mod tests {
    use super::Chan;

    /// An unbounded channel is one cache line, whatever it carries (the values live in the queue's
    /// buffer): a send or a receive touches one line of the channel.
    #[test]
    fn a_channel_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Chan<()>>(), 64);
        assert_eq!(std::mem::size_of::<Chan<[u64; 8]>>(), 64);
        assert_eq!(std::mem::align_of::<Chan<u8>>(), 64);
    }
}
