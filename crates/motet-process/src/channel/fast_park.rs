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
//! whether the channel is idle and empty (tag [`EMPTY`]: no value, no waiter, not closed) or not,
//! or holds the address of the one receiver parked on it. A receive inside a process that finds
//! the word empty does not lock: it fills its entry (its waker is [`WaitWaker::Claimed`]: whoever
//! takes the entry out of the word owns the process's scheduling), marks it `FAST` and leaves the
//! entry's address in its process's header for the run (`Header::request_park`: one word, next to
//! the channel the process pins, which says where the word is), and its poll returns `Pending`.
//! The run, once the process's poll has returned (the future's state is written then, so nobody
//! may run the process before), reads the word, checks its process's state word for a pending
//! wake-up (below), and swaps the word from the empty value it read to the entry's address: that
//! one compare-and-swap parks the receiver and ends the run, which touches neither the process
//! nor the channel after it (whoever takes the entry may run the process, finish it and free
//! both at once). The process's state word keeps `RUNNING` (the channel now owns the run). A
//! sender's lock takes the word and with it the entry (moving it into the wait list, where the
//! hand-off delivers the value and returns the wake-up): one swap both finds the receiver and
//! claims it. If the word changed since the run read it, the run polls again.
//!
//! # Generations
//!
//! Every free word but an entry carries the lock's generation, which each unlock advances (while
//! an entry is parked, its process's header keeps the word it replaced, for the lock that takes
//! the entry out: `Header::replaced_word`), so
//! no empty word is ever stored twice: a lock taken and released between the run's read and its
//! compare-and-swap, even one that left the channel as empty as it found it, makes the
//! compare-and-swap fail. A generation wraps after 2^62 unlocks (2^30 on a 32-bit target).
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
//! schedules the process ([`ParkVTable::claim`]). The run reads the channel's word, then its
//! state word, and does not park if it finds `NOTIFIED` or `CANCELLED` there. The two orders are
//! covered: a wake whose `NOTIFIED` the run's read of the state word missed comes after that
//! read, so its lock of the channel comes after the run's read of the word (the lock's release
//! chain orders everything before it, that wake's `NOTIFIED` included, before any later read of
//! the word); if that lock comes before the park's compare-and-swap, it changed the generation and
//! the compare-and-swap fails; if after, it finds the entry. (A first park sets `PINNED` with a
//! read-modify-write that a later wake's acquires, which orders the run's read of the word before
//! that wake's lock in the same way.)
//!
//! A process pins one channel for its life: one that receives on another channel uses the wait
//! queue there (as do select branches, receives with a timeout and any receiver outside a
//! process).

use std::ptr::NonNull;

use crate::process::Header;
use crate::sync::atomic::{AtomicUsize, Ordering};

/// The tag (two low bits) of a free word that says the channel is idle and empty: a receiver may
/// park in it. The rest of the word is the lock's generation.
pub(crate) const EMPTY: usize = 2;
/// The tag of a free word that says the channel is not idle and empty (a value is queued, someone
/// waits, or the channel ended). The rest of the word is the lock's generation.
const BUSY: usize = 3;
/// The tag bits of a free word. A parked entry's address has none set (entries are aligned to at
/// least 4), and the held lock's word is [`LOCKED`](crate::lock::LOCKED) (tag 1).
const TAG: usize = 3;

/// The free word of an idle and empty channel whose lock is at `generation`.
#[inline]
pub(crate) fn empty_word(generation: usize) -> usize {
    generation << 2 | EMPTY
}

/// The free word of a channel that is not idle and empty, whose lock is at `generation`.
#[inline]
pub(crate) fn busy_word(generation: usize) -> usize {
    generation << 2 | BUSY
}

/// Whether a free word says the channel is idle and empty (a receiver may park in it).
#[inline]
pub(crate) fn is_empty(word: usize) -> bool {
    word & TAG == EMPTY
}

/// Whether a free word is the address of a parked entry.
#[inline]
pub(crate) fn is_entry(word: usize) -> bool {
    word & TAG == 0
}

/// The generation an empty or busy free word carries.
#[inline]
pub(crate) fn generation_of(word: usize) -> usize {
    debug_assert!(!is_entry(word));
    word >> 2
}

/// The channel operations the run needs for a fast park, for a channel whose value type it does
/// not know.
pub(crate) struct ParkVTable {
    /// Where the channel's lock word lies, from the channel's address.
    pub(crate) word_offset: usize,
    /// Marks an entry that did not park as in no queue.
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

/// Swaps the channel's word from `empty` (an empty word the caller read) to the entry's address;
/// false if the word is no longer `empty`.
#[inline]
pub(crate) fn park(word: &AtomicUsize, empty: usize, entry: *const ()) -> bool {
    debug_assert!(is_empty(empty) && is_entry(entry as usize));
    // Release: the entry's contents, for whoever takes it.
    word.compare_exchange(empty, entry as usize, Ordering::Release, Ordering::Relaxed)
        .is_ok()
}
