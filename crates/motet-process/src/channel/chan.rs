//! The channel core shared by every handle: a value queue and two wait queues behind one short lock.
//!
//! # Layout
//!
//! One allocation per channel, one 64-byte cache line for an unbounded channel: the handle counts,
//! the lock word (which, while free, also says whether the channel is idle and empty, or holds the
//! entry of a receiver parked in it: see `fast_park`) and the locked [`State`]: a `VecDeque` of values, the queue of waiting receivers (a circular
//! list, one word), and one word holding the closed and sender-less flags with a pointer to what
//! only a bounded channel needs (the queue of senders waiting for room and the capacity, boxed).
//! A bounded channel of capacity 0 is a rendezvous (every value goes from a waiting sender straight
//! to a receiver).
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
//! # Handles and lifetime
//!
//! `handles` counts senders (low 32 bits), receivers (the next 24) and pins (the top 8: processes
//! that park through the lock word keep the channel's memory alive, see `fast_park`). The last sender marks the
//! channel sender-less (receivers fail once it is empty; a receiver may mint a new sender, under the
//! lock, which undoes it), the last receiver closes it and drops the queued values; each does so
//! *before* giving up its count, so the channel is still there for it. Whoever takes the whole word
//! to zero frees the channel.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::task::Context;

use motet_runtime::alloc::BlockCache;

use super::error::{SendError, TrySendError};
use super::fast_park::{ParkVTable, EMPTY};
use super::waiter::{
    wake, WaitList, WaitWaker, Waiter, Wake, CLOSED, DONE, FAST, SKIPPED, UNLINKED, WAITING,
};
use crate::blocks::Blocks;
use crate::lock::{UnlockedWord, WordGuard, WordLock};
use crate::process::{self, Header};
use crate::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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

/// What the lock guards: 48 bytes, so that with the lock and the handle counts a channel is one
/// 64-byte cache line (a send or a receive touches one line of the channel, which matters once
/// there are more channels than the caches hold, as in a ring of 100,000 processes).
struct State<T> {
    queue: VecDeque<T>,
    receivers: WaitList<T>,
    /// The flags, and what only a bounded channel needs.
    rest: BoundAndFlags<T>,
}

/// What only a bounded channel needs, out of line: an unbounded channel never has waiting senders.
struct Bounded<T> {
    senders: WaitList<T>,
    cap: usize,
}

/// Closed explicitly, or by the last receiver: sends fail from now on.
const CLOSED_FLAG: usize = 1;
/// No sender exists: receives fail once the queue is empty, until a receiver mints a sender.
const NO_SENDERS_FLAG: usize = 2;
const FLAGS: usize = CLOSED_FLAG | NO_SENDERS_FLAG;

/// The channel's two flags and its [`Bounded`] part (null for an unbounded channel) in one word:
/// the box's address, aligned to at least 4, with the flags in its two low bits.
struct BoundAndFlags<T> {
    word: usize,
    _owns: PhantomData<Box<Bounded<T>>>,
}

impl<T> BoundAndFlags<T> {
    fn new(cap: usize) -> BoundAndFlags<T> {
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
    fn closed(&self) -> bool {
        self.word & CLOSED_FLAG != 0
    }

    fn set_closed(&mut self) {
        self.word |= CLOSED_FLAG;
    }

    #[inline]
    fn no_senders(&self) -> bool {
        self.word & NO_SENDERS_FLAG != 0
    }

    fn set_no_senders(&mut self, no_senders: bool) {
        if no_senders {
            self.word |= NO_SENDERS_FLAG;
        } else {
            self.word &= !NO_SENDERS_FLAG;
        }
    }

    #[inline]
    fn bounded(&self) -> Option<&Bounded<T>> {
        // SAFETY: a non-null address is the box made by `new`, owned by this word until its drop.
        unsafe { ((self.word & !FLAGS) as *const Bounded<T>).as_ref() }
    }

    #[inline]
    fn bounded_mut(&mut self) -> Option<&mut Bounded<T>> {
        // SAFETY: as in `bounded`; `&mut self` makes the access exclusive.
        unsafe { ((self.word & !FLAGS) as *mut Bounded<T>).as_mut() }
    }

    /// The capacity (`usize::MAX`: unbounded).
    #[inline]
    fn cap(&self) -> usize {
        self.bounded().map_or(usize::MAX, |b| b.cap)
    }

    /// Whether a sender waits for room.
    #[inline]
    fn has_waiting_sender(&self) -> bool {
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
    /// `EMPTY` (a receiver may park in the word) when no value is queued, nobody waits and the
    /// channel has not ended; 0 otherwise.
    #[inline]
    fn unlocked_word(&self) -> usize {
        let idle = self.queue.is_empty()
            && self.receivers.is_empty()
            && self.rest.word & FLAGS == 0
            && !self.rest.has_waiting_sender();
        if idle {
            EMPTY
        } else {
            0
        }
    }
}

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

impl<T> State<T> {
    /// Takes the next value: from the queue (refilling it from a waiting sender, whose wake-up is
    /// returned), or straight from a waiting sender (rendezvous).
    #[inline]
    fn take(&mut self) -> (Option<T>, Option<Wake>) {
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

    fn has_value(&self) -> bool {
        !self.queue.is_empty() || self.rest.has_waiting_sender()
    }

    /// Whether a receive that finds no value fails rather than waits.
    fn ended(&self) -> bool {
        self.rest.closed() || self.rest.no_senders()
    }

    /// Wakes every waiter because the channel closed (or lost its last sender); returns the
    /// wake-ups, to be carried out after unlocking.
    fn wake_all(&mut self) -> Vec<Wake> {
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
    fn hand_to_receiver(&mut self, value: T) -> Result<Option<Wake>, T> {
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
    fn give_back(&mut self, value: T) -> Option<Wake> {
        match self.hand_to_receiver(value) {
            Ok(wake) => wake,
            Err(value) => {
                self.queue.push_front(value);
                None
            }
        }
    }
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
        if word > EMPTY {
            // SAFETY: the word held a parked entry (see `fast_park`): alive, pinned in its
            // process's future and filled before the release compare-and-swap our acquire swap
            // read; taking it out of the word made it ours to link, under the lock.
            unsafe { st.receivers.push_back(&*(word as *const Waiter<T>)) };
        }
        st
    }

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
        if self.state.word().load(Ordering::Relaxed) != EMPTY || entry.state() != UNLINKED {
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

    /// [`ParkVTable::pin`].
    unsafe fn pin(chan: *const ()) -> bool {
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

    /// [`ParkVTable::unpin`].
    unsafe fn unpin(chan: *const ()) {
        let this = chan as *mut Chan<T>;
        // SAFETY: the pin keeps the channel allocated. AcqRel as in `release_last_of_kind`.
        if unsafe { &*this }.handles.fetch_sub(PIN, Ordering::AcqRel) == PIN {
            // SAFETY: nothing else holds the channel.
            unsafe { Self::free(NonNull::new_unchecked(this)) };
        }
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

    /// Sends without waiting.
    #[inline]
    pub(crate) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let woken = {
            let (mut st, word) = self.state.lock();
            if word > EMPTY {
                // The channel was idle and empty with a receiver parked in its word, which the
                // lock's swap took (see `fast_park`): hand it the value and schedule its process.
                // SAFETY: as in `lock`: the entry is alive and ours until it is `DONE`.
                let header = unsafe { (*(word as *const Waiter<T>)).hand_over(value) };
                // Nothing else changed since the receiver parked in an `EMPTY` word.
                st.unlock_as(EMPTY);
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

    /// Whether the channel looked idle and empty (its free lock word `EMPTY`) a moment ago: a hint
    /// that locking it would find no value.
    #[inline]
    pub(crate) fn looks_empty(&self) -> bool {
        // Relaxed: a hint; whoever acts on it re-checks under the lock or through the fast park.
        self.state.word().load(Ordering::Relaxed) == EMPTY
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

    /// Puts a value back at the front of the channel (see [`State::give_back`]).
    pub(crate) fn give_back(&self, value: T) {
        let woken = self.lock().give_back(value);
        wake(woken);
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
