//! The operations of a channel's receivers: take a value now, or park a wait entry until a sender
//! hands one over.

use std::collections::VecDeque;
use std::task::Context;

use super::super::waiter::{wake, WaitWaker, Waiter, CLOSED, DONE, SKIPPED, UNLINKED, WAITING};
use super::{run_all, Chan, RecvPoll, TryRecv};
use crate::process;
use crate::sync::atomic::{AtomicBool, Ordering};

/// Claims a select group (or nothing, for a plain receive).
///
/// # Safety
/// `group` is null or points to a live flag.
unsafe fn claim_group(group: *const AtomicBool) -> bool {
    // SAFETY: the caller's contract.
    match unsafe { group.as_ref() } {
        None => true,
        Some(flag) => flag
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok(),
    }
}

impl<T> Chan<T> {
    /// Receives without waiting.
    pub(crate) fn try_recv(&self) -> TryRecv<T> {
        let (result, woken) = {
            let mut st = self.lock();
            match st.take() {
                (Some(value), woken) => (TryRecv::Value(value), woken),
                (None, _) if st.ended() => (TryRecv::Closed, None),
                (None, _) => (TryRecv::Empty, None),
            }
        };
        wake(woken);
        result
    }

    /// Receives every value queued without waiting, appended to `buf` in order, in one critical
    /// section: `Value(n)` with the number moved (at least one), or what an empty channel says.
    /// An unbounded channel's queue moves whole: swapped with an empty `buf` (the channel keeps
    /// `buf`'s buffer for the values sent next), appended to a non-empty one. A bounded channel's
    /// values are taken one by one, each refilled from a waiting sender (whose wake-ups are run
    /// after unlocking), until neither is left.
    pub(crate) fn try_recv_many(&self, buf: &mut VecDeque<T>) -> TryRecv<usize> {
        let mut wakes = Vec::new();
        let (moved, ended) = {
            let mut st = self.lock();
            let mut n = st.queue.len();
            if st.rest.bounded().is_none() {
                if buf.is_empty() {
                    std::mem::swap(&mut st.queue, buf);
                } else {
                    buf.append(&mut st.queue);
                }
            } else {
                // Each take pops a queued value (refilling the queue from a waiting sender) or
                // a waiting sender's value: the queue's length plus the waiting senders shrinks.
                n = 0;
                while let (Some(value), woken) = st.take() {
                    buf.push_back(value);
                    wakes.extend(woken);
                    n += 1;
                }
            }
            (n, st.ended())
        };
        run_all(wakes);
        match moved {
            0 if ended => TryRecv::Closed,
            0 => TryRecv::Empty,
            n => TryRecv::Value(n),
        }
    }

    /// A receive attempt for the (pinned) `entry`: takes a value, or parks the entry. With a non-null
    /// `group`, the entry is a select branch: taking a value (or seeing the channel closed) first
    /// claims the group.
    #[inline]
    pub(crate) fn poll_recv(
        &self,
        entry: &Waiter<T>,
        cx: &Context<'_>,
        group: *const AtomicBool,
    ) -> RecvPoll<T> {
        // The woken receiver's fast path: the sender left the value in the entry.
        if let Some(value) = entry.take_if_done() {
            return RecvPoll::Ready(Some(value));
        }
        // Who the entry will wake, should it park: a process's own waker is a pointer, made under
        // the lock only if needed (a receive that finds a value never needs it); any other waker is
        // cloned before locking, since cloning it runs foreign code.
        let mut foreign = match process::header_of(cx.waker()) {
            Some(_) => None,
            None => Some(WaitWaker::for_entry(
                cx.waker(),
                entry as *const Waiter<T> as *const (),
            )),
        };
        let mut waker = || {
            foreign.take().unwrap_or_else(|| {
                WaitWaker::for_entry(cx.waker(), entry as *const Waiter<T> as *const ())
            })
        };
        let mut woken = None;
        let mut replaced = None;
        let result = {
            let mut st = self.lock();
            // A plain receive (no select group) in no queue that finds a value queued on an
            // unbounded channel (no sender waits to refill the queue): takes it, with nothing to
            // wake and no waker to keep.
            if group.is_null() && st.rest.bounded().is_none() && entry.state() == UNLINKED {
                if let Some(value) = st.queue.pop_front() {
                    return RecvPoll::Ready(Some(value));
                }
            }
            match entry.state() {
                DONE => {
                    entry.set_state(UNLINKED);
                    // SAFETY: as above.
                    RecvPoll::Ready(Some(unsafe { entry.take_value() }))
                }
                WAITING => {
                    // SAFETY: we hold the lock the entry is linked under.
                    unsafe {
                        if !entry.will_wake(cx.waker()) {
                            replaced = entry.prepare(waker(), group);
                        }
                    }
                    RecvPoll::Pending
                }
                _ => {
                    if st.has_value() || st.ended() {
                        // SAFETY: the group belongs to the polling select, alive while it polls.
                        if !unsafe { claim_group(group) } {
                            RecvPoll::Lost
                        } else {
                            entry.set_state(UNLINKED);
                            let (value, wake) = st.take();
                            woken = wake;
                            RecvPoll::Ready(value)
                        }
                    } else {
                        // SAFETY: we hold the lock; the entry is pinned in its future, whose drop
                        // unlinks it.
                        unsafe {
                            replaced = entry.prepare(waker(), group);
                            st.receivers.push_back(entry);
                        }
                        RecvPoll::Pending
                    }
                }
            }
        };
        wake(woken);
        drop(replaced);
        result
    }

    /// Takes a receive entry out of the channel for good (its future is being dropped, or gave up).
    /// Returns the value it had been handed, if any, instead of putting it back.
    pub(crate) fn abort_recv(&self, entry: &Waiter<T>) -> Option<T> {
        match entry.state() {
            UNLINKED | SKIPPED | CLOSED => return None,
            DONE => {
                entry.set_state(UNLINKED);
                // SAFETY: as in `poll_recv`.
                return Some(unsafe { entry.take_value() });
            }
            _ => {}
        }
        let mut st = self.lock();
        match entry.state() {
            WAITING => {
                // SAFETY: we hold the lock and the entry is linked in the receivers' list.
                unsafe { st.receivers.remove(entry) };
                entry.set_state(UNLINKED);
                None
            }
            DONE => {
                entry.set_state(UNLINKED);
                // SAFETY: as in `poll_recv`.
                Some(unsafe { entry.take_value() })
            }
            _ => None,
        }
    }

    /// The state of an entry, read under the lock: ordered after any critical section that completed
    /// it (a select whose group was claimed waits here for the winning branch's sender to finish).
    pub(crate) fn settled_state(&self, entry: &Waiter<T>) -> u8 {
        let _st = self.lock();
        entry.state()
    }

    /// Takes a receive entry out of the channel as its future is dropped; a value it had been handed
    /// goes back into the channel, so it is not lost. Out of line: a receive that completed (the
    /// usual drop) only checks its entry's state, and inlining this path into every `Recv` drop
    /// made that check save and restore registers.
    #[cold]
    #[inline(never)]
    pub(crate) fn cancel_recv(&self, entry: &Waiter<T>) {
        if let Some(value) = self.abort_recv(entry) {
            self.give_back(value);
        }
    }

    /// Puts a value back at the front of the channel (see [`State::give_back`](super::state::State::give_back)).
    pub(crate) fn give_back(&self, value: T) {
        let woken = self.lock().give_back(value);
        wake(woken);
    }
}
