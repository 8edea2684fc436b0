//! The fast park: a receiving process parks in its channel's lock word, so that a hop of a message
//! to it costs two atomic read-modify-writes, as an actor's message does.
//!
//! # Why
//!
//! Through the wait queue a hop costs four: the sender locks the channel and wakes the receiver
//! (a compare-and-swap of its state word), the receiver locks the channel again to park and ends
//! its run (a `fetch_sub` of its state word). An actor's mailbox word also records that the actor
//! is idle, so its hop is one push (which finds the actor idle and schedules it) and one
//! compare-and-swap at the end of its turn.
//!
//! # How
//!
//! The channel's lock word ([`WordLock`](crate::lock::WordLock)) says, while nobody holds it,
//! whether the channel is idle and empty ([`EMPTY`]: no value, no waiter, not closed) or holds the
//! address of the one receiver parked on it. A receive inside a process that finds the word
//! `EMPTY` does not lock: it fills its entry (its waker is [`WaitWaker::Claimed`]: whoever takes
//! the entry out of the word owns the process's scheduling), marks it `FAST` and leaves the
//! entry's address in its process's header for the run (`Header::request_park`: one word, next to
//! the channel the process pins, which says where the word is), and its poll returns `Pending`. The run, once the process's poll has
//! returned (the future's state is written then, so nobody may run the process before), swaps the
//! word from `EMPTY` to the entry's address: that one compare-and-swap parks the receiver and ends
//! the run; the process's state word keeps `RUNNING` (the channel now owns the run). A sender's
//! lock takes the word and with it the entry (moving it into the wait list, where the hand-off
//! delivers the value and returns the wake-up): one swap both finds the receiver and claims it.
//! If the word changed between the receive's look and the run's swap, the run polls again.
//!
//! [`WaitWaker::Claimed`]: super::waiter::WaitWaker::Claimed
//!
//! # Other wake-ups
//!
//! A fast-parked process looks `RUNNING` to anything that wakes it through its state word (a
//! cloned waker, a wait entry of another channel, a shutdown's cancellation), which only sets
//! `NOTIFIED`. So a process pins the channel it fast-parks on (a count in the channel's handle
//! word that keeps its memory, not a receiver, alive until the process is freed) and sets
//! `PINNED` in its state word, once. A wake that sets `NOTIFIED` on a `RUNNING`, `PINNED` process
//! then locks the pinned channel and, if it finds the process's entry there, takes it and
//! schedules the process ([`ParkVTable::claim`]). The run checks its state word after its park's
//! compare-and-swap, and takes its entry back if it finds `NOTIFIED` or `CANCELLED` there. The two
//! orders are covered: a wake whose lock of the channel comes after the park finds the entry; one
//! whose lock comes before it is ordered before the park's compare-and-swap (which reads the word
//! that lock's release wrote, or a later one), so the run's check sees its `NOTIFIED`.
//!
//! A process pins one channel for its life: one that receives on another channel uses the wait
//! queue there (as do select branches, receives with a timeout and any receiver outside a
//! process).

use std::ptr::NonNull;

use crate::process::Header;
use crate::sync::atomic::{AtomicUsize, Ordering};

/// The lock word of a free channel that is idle and empty: a receiver may park in it.
pub(crate) const EMPTY: usize = 2;

/// The channel operations the run needs for a fast park, for a channel whose value type it does
/// not know.
pub(crate) struct ParkVTable {
    /// Where the channel's lock word lies, from the channel's address.
    pub(crate) word_offset: usize,
    /// Marks an entry that did not park (or was taken back) as in no queue.
    pub(crate) abandon: unsafe fn(entry: *const ()),
    /// Takes a pin on the channel; false if it has as many as it can count.
    pub(crate) pin: unsafe fn(chan: *const ()) -> bool,
    /// Gives a pin back (freeing the channel if nothing else holds it).
    pub(crate) unpin: unsafe fn(chan: *const ()),
    /// Locks the channel and takes out the entry of `header`'s process parked there, if any: true
    /// if it did (the caller then schedules the process).
    pub(crate) claim: unsafe fn(chan: *const (), header: NonNull<Header>) -> bool,
}

/// The park request a run reads after each poll (`Header::park`): none.
pub(crate) const NO_REQUEST: usize = 0;
/// The park request a run reads after each poll: none, and none may be made for the rest of the
/// run (its receives go through the wait queue: the pin it needed could not be taken).
pub(crate) const REFUSED: usize = 1;

/// The channel's lock word, from its address and operations.
///
/// # Safety
/// `chan` is a live channel whose operations are `vtable`.
#[inline]
pub(crate) unsafe fn word<'a>(chan: *const (), vtable: &ParkVTable) -> &'a AtomicUsize {
    // SAFETY: the caller's contract: `word_offset` is where that channel keeps its word.
    unsafe {
        &*chan
            .cast::<u8>()
            .add(vtable.word_offset)
            .cast::<AtomicUsize>()
    }
}

/// Swaps the channel's word from `EMPTY` to the entry's address; false if it was not `EMPTY`.
#[inline]
pub(crate) fn park(word: &AtomicUsize, entry: *const ()) -> bool {
    // Release: the entry's contents, for whoever takes it; Acquire: the last holder's writes,
    // so that a wake-up ordered before its unlock is visible to the check after the park.
    word.compare_exchange(EMPTY, entry as usize, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
}

/// Swaps the word back from the entry's address to `EMPTY`; false if someone took the entry.
pub(crate) fn unpark(word: &AtomicUsize, entry: *const ()) -> bool {
    word.compare_exchange(entry as usize, EMPTY, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
}
