//! The operations of a channel's senders: hand a value to a waiting receiver, queue it, or park a
//! wait entry holding it until there is room.

use std::ptr;
use std::task::Context;

use super::super::error::{SendError, TrySendError};
use super::super::fast_park::{self, empty_word};
use super::super::waiter::{wake, WaitWaker, Waiter, CLOSED, DONE, UNLINKED, WAITING};
use super::Chan;
use crate::process;

impl<T> Chan<T> {
    /// Sends without waiting.
    #[inline]
    pub(crate) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let woken = {
            let (mut st, word) = self.state.lock();
            if fast_park::is_entry(word) {
                // The channel was idle and empty with a receiver parked in its word, which the
                // lock's swap took (see `fast_park`): hand it the value and schedule its process.
                // SAFETY: as in `lock`: the entry is alive and ours until it is `DONE`.
                let header = unsafe { (*(word as *const Waiter<T>)).hand_over(value) };
                // Nothing else changed since the receiver parked in an empty word.
                let generation = st.generation();
                st.unlock_as(empty_word(generation));
                // SAFETY: taking the entry out of the word gave us the process's scheduling.
                unsafe { process::schedule(header) };
                return Ok(());
            }
            if st.rest.closed() {
                return Err(TrySendError::Closed(value));
            }
            match st.hand_to_receiver(value) {
                Ok(woken) => woken,
                Err(value) => {
                    // Only a bounded channel can be full (one test of the flag word otherwise).
                    if let Some(bounded) = st.rest.bounded() {
                        if st.queue.len() >= bounded.cap {
                            return Err(TrySendError::Full(value));
                        }
                    }
                    st.queue.push_back(value);
                    None
                }
            }
        };
        wake(woken);
        Ok(())
    }

    /// A send attempt for the (pinned) `entry`: delivers `value` (taken out of the option), or parks
    /// the entry holding it until there is room.
    pub(crate) fn poll_send(
        &self,
        entry: &Waiter<T>,
        value: &mut Option<T>,
        cx: &Context<'_>,
    ) -> Option<Result<(), SendError<T>>> {
        if let Some(done) = Self::sent(entry) {
            return Some(done);
        }
        let waker = WaitWaker::for_entry(cx.waker(), entry as *const Waiter<T> as *const ());
        let mut woken = None;
        let mut replaced = None;
        let result = {
            let mut st = self.lock();
            match entry.state() {
                DONE | CLOSED => Self::sent(entry),
                WAITING => {
                    // SAFETY: we hold the lock the entry is linked under.
                    unsafe {
                        if !entry.will_wake(cx.waker()) {
                            replaced = entry.prepare(waker, ptr::null());
                        }
                    }
                    None
                }
                _ => match value.take() {
                    None => Some(Ok(())),
                    Some(v) if st.rest.closed() => Some(Err(SendError(v))),
                    Some(v) => match st.hand_to_receiver(v) {
                        Ok(wake) => {
                            woken = wake;
                            Some(Ok(()))
                        }
                        Err(v) if st.queue.len() < st.rest.cap() => {
                            st.queue.push_back(v);
                            Some(Ok(()))
                        }
                        Err(v) => {
                            // SAFETY: we hold the lock; the entry is pinned in its future, whose
                            // drop unlinks it; it holds no value yet.
                            unsafe {
                                entry.put_value(v);
                                replaced = entry.prepare(waker, ptr::null());
                                let bounded = st
                                    .rest
                                    .bounded_mut()
                                    .expect("only a bounded channel is ever full");
                                bounded.senders.push_back(entry);
                            }
                            None
                        }
                    },
                },
            }
        };
        wake(woken);
        drop(replaced);
        result
    }

    /// The outcome of a send entry the channel let go of, if it did.
    fn sent(entry: &Waiter<T>) -> Option<Result<(), SendError<T>>> {
        match entry.state() {
            DONE => {
                entry.set_state(UNLINKED);
                Some(Ok(()))
            }
            CLOSED => {
                entry.set_state(UNLINKED);
                // SAFETY: CLOSED (acquired): the channel let go of the entry, which still holds its
                // value.
                Some(Err(SendError(unsafe { entry.take_value() })))
            }
            _ => None,
        }
    }

    /// Takes a send entry out of the channel as its future is dropped; returns the value it still
    /// held (dropped by the caller, outside the lock).
    pub(crate) fn cancel_send(&self, entry: &Waiter<T>) -> Option<T> {
        match entry.state() {
            UNLINKED | DONE => return None,
            CLOSED => return Self::sent(entry).and_then(|r| r.err()).map(|e| e.0),
            _ => {}
        }
        let mut st = self.lock();
        match entry.state() {
            WAITING => {
                // SAFETY: we hold the lock and the entry is linked in the senders' list; it holds
                // its value.
                unsafe {
                    if let Some(bounded) = st.rest.bounded_mut() {
                        bounded.senders.remove(entry);
                    }
                    entry.set_state(UNLINKED);
                    Some(entry.take_value())
                }
            }
            _ => {
                drop(st);
                Self::sent(entry).and_then(|r| r.err()).map(|e| e.0)
            }
        }
    }
}
