//! What a channel's lock guards ([`State`]: the value queue, the waiting receivers, the flags and
//! the bounded part) and the moves of values and wait entries under it.

use std::collections::VecDeque;
use std::marker::PhantomData;

use super::super::fast_park::{self, busy_word, empty_word};
use super::super::waiter::{WaitList, Waiter, Wake, CLOSED, DONE, SKIPPED};
use crate::lock::UnlockedWord;

/// What the lock guards: 48 bytes, so that with the lock and the handle counts a channel is one
/// 64-byte cache line (a send or a receive touches one line of the channel, which matters once
/// there are more channels than the caches hold, as in a ring of 100,000 processes).
pub(super) struct State<T> {
    pub(super) queue: VecDeque<T>,
    pub(super) receivers: WaitList<T>,
    /// The flags, and what only a bounded channel needs.
    pub(super) rest: BoundAndFlags<T>,
}

/// What only a bounded channel needs, out of line: an unbounded channel never has waiting senders.
pub(super) struct Bounded<T> {
    pub(super) senders: WaitList<T>,
    pub(super) cap: usize,
}

/// Closed explicitly, or by the last receiver: sends fail from now on.
const CLOSED_FLAG: usize = 1;
/// No sender exists: receives fail once the queue is empty, until a receiver mints a sender.
const NO_SENDERS_FLAG: usize = 2;
const FLAGS: usize = CLOSED_FLAG | NO_SENDERS_FLAG;

/// The channel's two flags and its [`Bounded`] part (null for an unbounded channel) in one word:
/// the box's address, aligned to at least 4, with the flags in its two low bits.
pub(super) struct BoundAndFlags<T> {
    word: usize,
    _owns: PhantomData<Box<Bounded<T>>>,
}

impl<T> BoundAndFlags<T> {
    pub(super) fn new(cap: usize) -> BoundAndFlags<T> {
        let word = if cap == usize::MAX {
            0
        } else {
            let bounded: *mut Bounded<T> = Box::into_raw(Box::new(Bounded {
                senders: WaitList::new(),
                cap,
            }));
            debug_assert_eq!(bounded as usize & FLAGS, 0);
            bounded as usize
        };
        BoundAndFlags {
            word,
            _owns: PhantomData,
        }
    }

    #[inline]
    pub(super) fn closed(&self) -> bool {
        self.word & CLOSED_FLAG != 0
    }

    pub(super) fn set_closed(&mut self) {
        self.word |= CLOSED_FLAG;
    }

    #[inline]
    pub(super) fn no_senders(&self) -> bool {
        self.word & NO_SENDERS_FLAG != 0
    }

    pub(super) fn set_no_senders(&mut self, no_senders: bool) {
        if no_senders {
            self.word |= NO_SENDERS_FLAG;
        } else {
            self.word &= !NO_SENDERS_FLAG;
        }
    }

    #[inline]
    pub(super) fn bounded(&self) -> Option<&Bounded<T>> {
        // SAFETY: a non-null address is the box made by `new`, owned by this word until its drop.
        unsafe { ((self.word & !FLAGS) as *const Bounded<T>).as_ref() }
    }

    #[inline]
    pub(super) fn bounded_mut(&mut self) -> Option<&mut Bounded<T>> {
        // SAFETY: as in `bounded`; `&mut self` makes the access exclusive.
        unsafe { ((self.word & !FLAGS) as *mut Bounded<T>).as_mut() }
    }

    /// The capacity (`usize::MAX`: unbounded).
    #[inline]
    pub(super) fn cap(&self) -> usize {
        self.bounded().map_or(usize::MAX, |b| b.cap)
    }

    /// Whether a sender waits for room.
    #[inline]
    pub(super) fn has_waiting_sender(&self) -> bool {
        self.bounded().is_some_and(|b| !b.senders.is_empty())
    }
}

impl<T> Drop for BoundAndFlags<T> {
    fn drop(&mut self) {
        let bounded = (self.word & !FLAGS) as *mut Bounded<T>;
        if !bounded.is_null() {
            // SAFETY: made by `Box::into_raw` in `new` and owned by this word, freed once, here.
            drop(unsafe { Box::from_raw(bounded) });
        }
    }
}

impl<T> UnlockedWord for State<T> {
    /// An empty word (a receiver may park in it) when no value is queued, nobody waits and the
    /// channel has not ended; a busy word otherwise.
    #[inline]
    fn unlocked_word(&self, generation: usize) -> usize {
        if self.is_idle() {
            empty_word(generation)
        } else {
            busy_word(generation)
        }
    }

    /// An entry's from the word its process's run replaced with it (see `fast_park`), any
    /// other's from the word itself.
    #[inline]
    unsafe fn generation(word: usize) -> usize {
        if !fast_park::is_entry(word) {
            return fast_park::generation_of(word);
        }
        // SAFETY: the caller's contract: the lock's swap took the entry out of the word, which
        // makes it ours; it is alive (pinned in its process's future), was filled before the
        // release compare-and-swap that parked it, and its process, which cannot run before
        // we schedule it, left the word it replaced in its header.
        unsafe {
            let entry = &*(word as *const Waiter<T>);
            let Some(header) = entry.fast_owner() else {
                unreachable!("an entry parks in the lock word with a claimed waker")
            };
            fast_park::generation_of(header.as_ref().replaced_word())
        }
    }
}

impl<T> State<T> {
    /// Whether no value is queued, nobody waits and the channel has not ended.
    #[inline]
    pub(super) fn is_idle(&self) -> bool {
        self.queue.is_empty()
            && self.receivers.is_empty()
            && self.rest.word & FLAGS == 0
            && !self.rest.has_waiting_sender()
    }

    /// Takes the next value: from the queue (refilling it from a waiting sender, whose wake-up is
    /// returned), or straight from a waiting sender (rendezvous).
    #[inline]
    pub(super) fn take(&mut self) -> (Option<T>, Option<Wake>) {
        match self.queue.pop_front() {
            Some(value) => {
                if !self.rest.has_waiting_sender() {
                    return (Some(value), None);
                }
                let (refill, wake) = self.take_from_sender();
                if let Some(refill) = refill {
                    self.queue.push_back(refill);
                }
                (Some(value), wake)
            }
            None => self.take_from_sender(),
        }
    }

    fn take_from_sender(&mut self) -> (Option<T>, Option<Wake>) {
        // SAFETY: we hold the lock; a waiting sender's entry holds its value.
        unsafe {
            let Some(entry) = self.rest.bounded_mut().and_then(|b| b.senders.pop_front()) else {
                return (None, None);
            };
            let value = entry.take_value();
            (Some(value), entry.finish(DONE))
        }
    }

    pub(super) fn has_value(&self) -> bool {
        !self.queue.is_empty() || self.rest.has_waiting_sender()
    }

    /// Whether a receive that finds no value fails rather than waits.
    pub(super) fn ended(&self) -> bool {
        self.rest.closed() || self.rest.no_senders()
    }

    /// Wakes every waiter because the channel closed (or lost its last sender); returns the
    /// wake-ups, to be carried out after unlocking.
    pub(super) fn wake_all(&mut self) -> Vec<Wake> {
        let mut wakes = Vec::new();
        if self.receivers.is_empty() && !self.rest.has_waiting_sender() {
            return wakes;
        }
        // SAFETY: we hold the lock; linked entries are alive.
        unsafe {
            while let Some(entry) = self.receivers.pop_front() {
                if entry.claim() {
                    wakes.extend(entry.finish(CLOSED));
                } else {
                    entry.set_state(SKIPPED);
                }
            }
            if let Some(bounded) = self.rest.bounded_mut() {
                while let Some(entry) = bounded.senders.pop_front() {
                    wakes.extend(entry.finish(CLOSED));
                }
            }
        }
        wakes
    }

    /// Hands `value` to the first waiting receiver whose select is still open (returning its
    /// wake-up), or gives the value back.
    #[inline]
    pub(super) fn hand_to_receiver(&mut self, value: T) -> Result<Option<Wake>, T> {
        // SAFETY: we hold the lock; linked entries are alive.
        unsafe {
            while let Some(entry) = self.receivers.pop_front() {
                if !entry.claim() {
                    entry.set_state(SKIPPED);
                    continue;
                }
                entry.put_value(value);
                return Ok(entry.finish(DONE));
            }
        }
        Err(value)
    }

    /// Puts back a value a receiver was handed but gave up (cancelled, timed out): to the next
    /// waiting receiver, or the front of the queue (so it is received next; a bounded channel may
    /// hold one value over its capacity for that).
    pub(super) fn give_back(&mut self, value: T) -> Option<Wake> {
        match self.hand_to_receiver(value) {
            Ok(wake) => wake,
            Err(value) => {
                self.queue.push_front(value);
                None
            }
        }
    }
}
