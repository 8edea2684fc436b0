//! The channel's side of the fast park (see `fast_park`): a receive inside a process asks to park
//! its entry in the channel's lock word, and the operations the process's run and its wakers use
//! on a channel whose value type they do not know ([`ParkVTable`]).

use std::ptr::{self, NonNull};
use std::task::Context;

use super::super::fast_park::{self, ParkVTable};
use super::super::waiter::{WaitWaker, Waiter, FAST, UNLINKED};
use super::state::State;
use super::Chan;
use crate::lock::WordLock;
use crate::process::{self, Header};
use crate::sync::atomic::Ordering;

impl<T> Chan<T> {
    const PARK_VTABLE: &'static ParkVTable = &ParkVTable {
        word_offset: std::mem::offset_of!(Chan<T>, state) + WordLock::<State<T>>::WORD_OFFSET,
        abandon: Self::abandon_entry,
        pin: Self::pin,
        unpin: Self::unpin,
        claim: Self::claim,
    };

    /// A receive inside a process that finds the channel idle and empty: asks the run to park its
    /// entry in the lock word (see `fast_park`). True if it did (the receive returns `Pending`).
    #[inline]
    pub(crate) fn request_fast_park(&self, entry: &Waiter<T>, cx: &Context<'_>) -> bool {
        // Relaxed: a hint; the park's compare-and-swap decides.
        if !fast_park::is_empty(self.state.word().load(Ordering::Relaxed))
            || entry.state() != UNLINKED
        {
            return false;
        }
        let Some(header) = process::header_of(cx.waker()) else {
            return false;
        };
        let at = entry as *const Waiter<T> as *const ();
        // SAFETY: a process waker's header is alive while the process polls with it.
        let process = unsafe { header.as_ref() };
        // An entry inside the process's allocation cannot be dropped while it is parked (only a
        // run of the process drops its future), and is asked for by a poll of that process.
        if !process.contains(at as usize) {
            return false;
        }
        let me = self as *const Chan<T> as *const ();
        // SAFETY: the entry lies in the process's future, so this is a poll of the process by its
        // run; the receive borrows the channel, which is alive.
        if !unsafe { process.request_park(at, me, Self::PARK_VTABLE) } {
            return false;
        }
        // SAFETY: the entry is in no queue and owned by this poll; the park publishes it.
        let replaced = unsafe { entry.prepare(WaitWaker::Claimed(header), ptr::null()) };
        entry.set_state(FAST);
        drop(replaced);
        true
    }

    /// [`ParkVTable::abandon`].
    unsafe fn abandon_entry(entry: *const ()) {
        // SAFETY: the caller's entry is alive and in no queue.
        unsafe { &*(entry as *const Waiter<T>) }.set_state(UNLINKED);
    }

    /// [`ParkVTable::claim`].
    unsafe fn claim(chan: *const (), header: NonNull<Header>) -> bool {
        // SAFETY: the process's pin keeps the channel allocated.
        let chan = unsafe { &*(chan as *const Chan<T>) };
        let mut st = chan.lock();
        // SAFETY: we hold the lock.
        let Some(entry) = (unsafe { st.receivers.find(|e| e.is_claimed_by(header)) })
            .map(|e| e as *const Waiter<T>)
        else {
            return false;
        };
        // SAFETY: we hold the lock and the entry is linked in the receivers' list, hence alive.
        let entry = unsafe { &*entry };
        // SAFETY: as above.
        unsafe {
            st.receivers.remove(entry);
            drop(entry.take_waker());
        }
        entry.set_state(UNLINKED);
        true
    }

    /// Whether the channel looked idle and empty (its free lock word empty) a moment ago: a hint
    /// that locking it would find no value.
    #[inline]
    pub(crate) fn looks_empty(&self) -> bool {
        // Relaxed: a hint; whoever acts on it re-checks under the lock or through the fast park.
        fast_park::is_empty(self.state.word().load(Ordering::Relaxed))
    }
}
