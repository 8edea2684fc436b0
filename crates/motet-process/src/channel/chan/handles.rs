//! The counts of a channel's handles and pins, and its lifetime.
//!
//! `handles` counts senders (low 32 bits), receivers (the next 24) and pins (the top 8: processes
//! that park through the lock word keep the channel's memory alive, see `fast_park`). The last
//! sender marks the channel sender-less (receivers fail once it is empty; a receiver may mint a new
//! sender, under the lock, which undoes it), the last receiver closes it and drops the queued
//! values; each does so *before* giving up its count, so the channel is still there for it.
//! Whoever takes the whole word to zero frees the channel.

use std::ptr::NonNull;

use super::{run_all, Chan};
use crate::sync::atomic::Ordering;

/// One sender in `handles` (bits 0 to 31).
pub(crate) const SENDER: u64 = 1;
/// One receiver in `handles` (bits 32 to 55).
pub(crate) const RECEIVER: u64 = 1 << 32;
/// One pin in `handles` (bits 56 to 63): a process that parks on the channel through its lock
/// word keeps the channel's memory, not a receiver, alive (see `fast_park`).
const PIN: u64 = 1 << 56;
/// The most pins a channel counts; a process that finds this many uses the wait queue.
const MAX_PINS: u64 = 0xFF;
/// The pins' field of `handles`.
const PINS: u64 = MAX_PINS * PIN;

/// How close a handle count may come to its field's end before [`Chan::retain`] aborts: more
/// threads than this would have to add a handle at once to carry into the next field.
const HANDLE_MARGIN: u64 = 4096;

/// Ends the process: a channel's sender or receiver count is about to overflow (over 2^32 -
/// 4096 senders or 2^24 - 4096 receivers on one channel). Aborting, as `Arc` does on overflow,
/// since unwinding would leave the count wrong.
#[cold]
#[inline(never)]
fn too_many_handles() -> ! {
    eprintln!("motet-process: too many handles to one channel");
    std::process::abort()
}

/// How many handles of kind `one` (`SENDER` or `RECEIVER`) the word `handles` counts.
#[inline]
fn count(handles: u64, one: u64) -> u64 {
    if one == SENDER {
        handles & 0xFFFF_FFFF
    } else {
        (handles >> 32) & 0xFF_FFFF
    }
}

impl<T> Chan<T> {
    /// [`ParkVTable::pin`](super::super::fast_park::ParkVTable::pin).
    pub(super) unsafe fn pin(chan: *const ()) -> bool {
        // SAFETY: the caller's receive handle keeps the channel alive.
        let chan = unsafe { &*(chan as *const Chan<T>) };
        let mut cur = chan.handles.load(Ordering::Relaxed);
        loop {
            if cur >> 56 == MAX_PINS {
                return false;
            }
            // Relaxed: as in `retain`.
            match chan.handles.compare_exchange_weak(
                cur,
                cur + PIN,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(actual) => cur = actual,
            }
        }
    }

    /// [`ParkVTable::unpin`](super::super::fast_park::ParkVTable::unpin).
    pub(super) unsafe fn unpin(chan: *const ()) {
        let this = chan as *mut Chan<T>;
        // SAFETY: the pin keeps the channel allocated. AcqRel as in `release_last_of_kind`.
        if unsafe { &*this }.handles.fetch_sub(PIN, Ordering::AcqRel) == PIN {
            // SAFETY: nothing else holds the channel.
            unsafe { Self::free(NonNull::new_unchecked(this)) };
        }
    }

    /// Adds a handle (`SENDER` or `RECEIVER`).
    #[inline]
    pub(crate) fn retain(&self, one: u64) {
        // Relaxed: the caller holds a handle, which keeps the channel alive; a new handle is
        // published by whatever sends it to another thread.
        let prev = self.handles.fetch_add(one, Ordering::Relaxed);
        // A count that nears its field's end would carry into the next field (receivers into the
        // pins, senders into the receivers) and free the channel while handles remain: abort, as
        // `Arc` does, while thousands of concurrent increments still separate it from the carry.
        if count(prev, one) >= count(u64::MAX, one) - HANDLE_MARGIN {
            too_many_handles();
        }
    }

    /// A new sender minted by a receiver: the channel has a sender again (receives wait again
    /// instead of failing, unless it was closed).
    pub(crate) fn mint_sender(&self) {
        // Under the lock, so that the last sender's drop (which decides under it) sees it.
        let mut st = self.lock();
        self.retain(SENDER);
        st.rest.set_no_senders(false);
    }

    /// Gives up a handle. The last sender leaves the channel without senders (receivers fail once it
    /// is empty); the last receiver closes it and drops the queued values; the last handle frees it.
    ///
    /// # Safety
    /// The caller owns a handle of kind `one` to the live channel at `this` and does not use it
    /// afterwards.
    #[inline]
    pub(crate) unsafe fn release(this: NonNull<Chan<T>>, one: u64) {
        // SAFETY: the caller's handle keeps the channel alive until it is given up below.
        let chan = unsafe { this.as_ref() };
        let mut cur = chan.handles.load(Ordering::Relaxed);
        // Not the last of its kind, so the word stays non-zero: a plain decrement. Release orders our
        // uses of the channel before whoever frees it (its decrement acquires).
        while count(cur, one) > 1 {
            match chan.handles.compare_exchange_weak(
                cur,
                cur - one,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(actual) => cur = actual,
            }
        }
        // SAFETY: the caller's contract.
        unsafe { Self::release_last_of_kind(this, one) }
    }

    /// [`release`](Chan::release) of what looked like the last handle of its kind.
    ///
    /// # Safety
    /// As for `release`.
    #[cold]
    #[inline(never)]
    unsafe fn release_last_of_kind(this: NonNull<Chan<T>>, one: u64) {
        // SAFETY: the caller's handle keeps the channel alive until it is given up below.
        let chan = unsafe { this.as_ref() };
        let mut cur = chan.handles.load(Ordering::Acquire);
        if cur == one {
            // The only handle left, of either kind: nobody else can reach the channel, mint a handle
            // or wait on it (a wait-queue entry lives in a future that borrows a handle), so there is
            // no one to tell that it closes. The Acquire load saw every other holder's release.
            // SAFETY: no other handle exists.
            unsafe { Self::free(this) };
            return;
        }
        if cur & !PINS == one {
            // The only sender or receiver left, with pins: as above, nobody can wait on the
            // channel or be told that it closes (a pin is no handle: its process parks here only
            // through a receive, which borrows a receiver), but the pinning processes keep its
            // memory. A process that parks on its own channel through the lock word and ends
            // drops its receiver here, before its pin (in a ring, after its predecessor's
            // sender): the queued values go now, without the close's wake-ups.
            // SAFETY: the caller's contract.
            unsafe { Self::release_beside_pins(this, one) };
            return;
        }
        loop {
            if count(cur, one) == 1 {
                // Perhaps the last of its kind: only a holder of this kind could add one (or a
                // receiver minting a sender, which does so under the lock).
                let last = if one == RECEIVER {
                    chan.close_and_drain();
                    true
                } else {
                    chan.last_sender_gone()
                };
                if !last {
                    cur = chan.handles.load(Ordering::Acquire);
                    continue;
                }
                // AcqRel: Release orders our uses before the freeing; Acquire (for the last one)
                // sees every other holder's uses.
                if chan.handles.fetch_sub(one, Ordering::AcqRel) == one {
                    // SAFETY: no handle is left: nobody else can reach the channel.
                    unsafe { Self::free(this) };
                }
                return;
            }
            // Not the last of its kind (a sender was minted meanwhile): a plain decrement.
            match chan.handles.compare_exchange_weak(
                cur,
                cur - one,
                Ordering::Release,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => cur = actual,
            }
        }
    }

    /// [`release_last_of_kind`](Chan::release_last_of_kind) of the only sender or receiver left
    /// beside pins: drops the queued values (under the lock, which a waker looking for a pinned
    /// process may take) and gives up the handle, freeing the channel if the pins went meanwhile.
    ///
    /// # Safety
    /// As for `release`, and no other sender or receiver exists.
    unsafe fn release_beside_pins(this: NonNull<Chan<T>>, one: u64) {
        // SAFETY: the caller's handle keeps the channel alive until it is given up below.
        let chan = unsafe { this.as_ref() };
        let values = {
            let mut st = chan.lock();
            // Closed, as by any last receiver (for a last sender, the last receiver closed it
            // already): no handle is left to send, and none can be minted without a receiver.
            st.rest.set_closed();
            std::mem::take(&mut st.queue)
        };
        drop(values);
        // AcqRel as below: the pins' holders may free the channel once this handle is gone.
        if chan.handles.fetch_sub(one, Ordering::AcqRel) == one {
            // SAFETY: no handle or pin is left: nobody else can reach the channel.
            unsafe { Self::free(this) };
        }
    }

    /// The last sender is going: marks the channel sender-less and wakes the waiting receivers.
    /// Returns false if a sender was minted meanwhile (the caller is not the last any more).
    fn last_sender_gone(&self) -> bool {
        let wakes = {
            let mut st = self.lock();
            // Mints happen under the lock: if we are still the only sender, we stay so until the
            // caller's decrement (no other sender exists to clone).
            if self.handles.load(Ordering::Acquire) & 0xFFFF_FFFF != 1 {
                return false;
            }
            st.rest.set_no_senders(true);
            if st.receivers.is_empty() {
                // Nobody to wake (a sender waiting for room would hold a sender of its own): the
                // common case of a channel whose receiver is busy or gone, without the calls.
                return true;
            }
            st.wake_all()
        };
        run_all(wakes);
        true
    }
}
