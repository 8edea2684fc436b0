//! Wait-queue entries: how a receiver (or a sender waiting for room) parks on a channel.
//!
//! An entry ([`Waiter`]) lives inside the future that waits (a receive, a bounded send, a select
//! branch), so parking allocates nothing: for a process, the entry is part of the process's own
//! allocation. The channel links entries into its wait queues ([`WaitList`]), intrusive doubly linked
//! lists guarded by the channel's lock.
//!
//! # Entry states
//!
//! `state` is written only under the channel's lock; its owner may read it without the lock.
//!
//! - `UNLINKED`: in no queue (new, or taken out by its owner).
//! - `WAITING`: linked into a queue; the channel may complete it at any time.
//! - `DONE`: the channel took it out and completed the operation: a receive entry holds the value
//!   handed to it, a send entry's value has been taken into the channel.
//! - `CLOSED`: the channel took it out because it closed; a send entry still holds its value.
//! - `SKIPPED`: the channel took it out without completing it, because the select the entry belongs
//!   to had already been decided by another branch.
//! - `FAST`: a plain receive inside a process asked its run to park the entry in the channel's lock
//!   word, or the run did (see `fast_park`); whoever takes it out of the word links it into the
//!   receivers' queue (`WAITING`) or gives it back to its process (`UNLINKED`).
//!
//! # The hand-off
//!
//! A sender that finds a waiting receiver does everything under the lock: it unlinks the entry, claims
//! its select group if it has one, moves the value into the entry, records the wake-up, and stores
//! `DONE` with release ordering. The wake-up of a process is its state flip (`Header::notify`) done
//! right there, before `DONE` is published: once `DONE` is visible the owner may run, finish and be
//! freed, so nothing may touch the entry or the process after it, except a sender that won the
//! process's idle-to-running transition, which alone can schedule it (so it cannot have run). Other
//! wakers are moved out of the entry and woken after unlocking.
//!
//! The owner reads `DONE` without the lock (the fast path of a woken receiver: no lock at all). Any
//! other state it re-checks under the lock, which orders it after any sender's critical section: so a
//! poll that sees `WAITING` under the lock is guaranteed a later wake-up.

use std::marker::PhantomPinned;
use std::mem::MaybeUninit;
use std::ptr::{self, NonNull};
use std::task::{RawWaker, RawWakerVTable, Waker};

use crate::process::{self, Header, Woken};
use crate::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use crate::sync::UnsafeCell;

/// In no queue.
pub(crate) const UNLINKED: u8 = 0;
/// Linked into a queue.
pub(crate) const WAITING: u8 = 1;
/// Completed by the channel.
pub(crate) const DONE: u8 = 2;
/// Taken out because the channel closed.
pub(crate) const CLOSED: u8 = 3;
/// Taken out because its select was decided elsewhere.
pub(crate) const SKIPPED: u8 = 4;
/// Asked to park in the channel's lock word, or parked there (see `fast_park`).
pub(crate) const FAST: u8 = 5;

/// Who an entry wakes.
pub(crate) enum WaitWaker {
    /// A process whose allocation holds the entry: woken through its header, without a reference
    /// (see the module docs of `process`).
    Process(NonNull<Header>),
    /// A process that parked through the channel's lock word (see `fast_park`): it is idle but
    /// still marked `RUNNING`, and whoever took the entry out of the word owns its scheduling, so
    /// completing the entry schedules it without touching its state word.
    Claimed(NonNull<Header>),
    /// Any other waker: a thread blocked outside the runtime, another executor, or a process whose
    /// entry lies outside its allocation (a boxed future).
    Other(Waker),
}

impl WaitWaker {
    /// What an entry at `entry` should hold to wake the task polling it with `waker`.
    #[inline]
    pub(crate) fn for_entry(waker: &Waker, entry: *const ()) -> WaitWaker {
        if let Some(header) = process::header_of(waker) {
            // SAFETY: a process waker's header is alive while the process polls with it.
            if unsafe { header.as_ref() }.contains(entry as usize) {
                return WaitWaker::Process(header);
            }
        }
        WaitWaker::Other(waker.clone())
    }
}

/// A wake-up decided under a channel's lock and carried out after unlocking. An operation decides
/// at most one (a send wakes one receiver, a receive at most one waiting sender), so it returns an
/// `Option<Wake>`; only closing a channel wakes many (a `Vec<Wake>`).
pub(crate) enum Wake {
    /// Schedule this process (the caller won its idle-to-running transition).
    Process(NonNull<Header>),
    /// Look for this process parked in its pinned channel's word (a wake-up found it `RUNNING`
    /// and `PINNED`, see `fast_park`); holds a reference to it, given up after.
    LookUp(NonNull<Header>),
    /// Wake this waker.
    Other(Waker),
}

impl Wake {
    /// Carries the wake-up out. Call after unlocking.
    #[inline]
    pub(crate) fn run(self) {
        match self {
            // SAFETY: `Wake::Process` is only made for a process whose idle-to-running transition
            // this operation won (see `Waiter::finish`).
            Wake::Process(header) => unsafe { process::schedule(header) },
            Wake::LookUp(header) => look_up_and_release(header),
            Wake::Other(waker) => waker.wake(),
        }
    }
}

/// [`Wake::LookUp`], out of line (rare).
#[cold]
#[inline(never)]
fn look_up_and_release(header: NonNull<Header>) {
    // SAFETY: `Wake::LookUp` holds a reference to the process, given up here; its wake-up saw
    // `PINNED`.
    unsafe {
        process::look_up(header);
        Header::release(header);
    }
}

/// Carries out the wake-up an operation decided, if any. Call after unlocking.
#[inline]
pub(crate) fn wake(wake: Option<Wake>) {
    if let Some(wake) = wake {
        wake.run();
    }
}

/// An entry's [`WaitWaker`], or none, in two words, none being all zeros: a new entry is then
/// all zeros but its value, which the compiler writes in place into the future that holds it
/// (an `Option<WaitWaker>` left the payload of its `None` uninitialised, and a receive's future
/// was built on the stack and copied, uninitialised bytes included, into the process's state).
///
/// `tag` is [`NO_WAKER`], [`PROCESS_WAKER`] or [`CLAIMED_WAKER`] (then `data` is the process's
/// header), or the address of the vtable of an owned [`Waker`] whose data pointer is `data`
/// (a `&'static RawWakerVTable` is aligned, so never 0, 1 or 2).
struct WakerSlot {
    tag: usize,
    data: *const (),
}

const NO_WAKER: usize = 0;
const PROCESS_WAKER: usize = 1;
const CLAIMED_WAKER: usize = 2;

impl WakerSlot {
    const fn none() -> WakerSlot {
        WakerSlot {
            tag: NO_WAKER,
            data: ptr::null(),
        }
    }

    /// The header of a process waker (of either kind), with its tag.
    #[inline]
    fn process(&self) -> Option<(usize, NonNull<Header>)> {
        match self.tag {
            PROCESS_WAKER | CLAIMED_WAKER => {
                Some((self.tag, NonNull::new(self.data as *mut Header)?))
            }
            _ => None,
        }
    }

    /// Stores `waker`; returns the one it replaces.
    #[inline]
    fn replace(&mut self, waker: WaitWaker) -> Option<WaitWaker> {
        let old = self.take();
        (self.tag, self.data) = match waker {
            WaitWaker::Process(h) => (PROCESS_WAKER, h.as_ptr() as *const ()),
            WaitWaker::Claimed(h) => (CLAIMED_WAKER, h.as_ptr() as *const ()),
            WaitWaker::Other(w) => {
                let w = std::mem::ManuallyDrop::new(w);
                (w.vtable() as *const RawWakerVTable as usize, w.data())
            }
        };
        old
    }

    /// Takes the waker out, leaving none.
    #[inline]
    fn take(&mut self) -> Option<WaitWaker> {
        let (tag, data) = (self.tag, self.data);
        self.tag = NO_WAKER;
        match tag {
            NO_WAKER => None,
            // SAFETY: stored from a header by `replace`.
            PROCESS_WAKER => Some(WaitWaker::Process(unsafe {
                NonNull::new_unchecked(data as *mut Header)
            })),
            // SAFETY: as above.
            CLAIMED_WAKER => Some(WaitWaker::Claimed(unsafe {
                NonNull::new_unchecked(data as *mut Header)
            })),
            // SAFETY: the raw parts of an owned waker, stored by `replace`, whose ownership moves
            // back into the `Waker` (the slot holds none now).
            _ => Some(WaitWaker::Other(unsafe {
                Waker::from_raw(RawWaker::new(data, &*(tag as *const RawWakerVTable)))
            })),
        }
    }

    /// Whether the stored waker wakes the same task as `waker`.
    #[inline]
    fn will_wake(&self, waker: &Waker) -> bool {
        match self.tag {
            NO_WAKER => false,
            PROCESS_WAKER | CLAIMED_WAKER => {
                process::header_of(waker).map(|h| h.as_ptr() as *const ()) == Some(self.data)
            }
            tag => {
                std::ptr::eq(waker.vtable(), tag as *const RawWakerVTable)
                    && waker.data() == self.data
            }
        }
    }
}

impl Drop for WakerSlot {
    fn drop(&mut self) {
        drop(self.take());
    }
}

/// The parts of an entry guarded by the channel's lock.
struct Links<T> {
    prev: *const Waiter<T>,
    next: *const Waiter<T>,
    waker: WakerSlot,
    /// The select this entry is a branch of (a flag set by whichever branch wins), or null.
    group: *const AtomicBool,
}

/// A wait-queue entry. Must not move while linked (it is pinned inside its future).
pub(crate) struct Waiter<T> {
    links: UnsafeCell<Links<T>>,
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<T>>,
    _pin: PhantomPinned,
}

// SAFETY: the entry is shared with the channel's other users only through the channel's lock (links,
// value while linked) and the atomic state; the value it carries is `Send`.
unsafe impl<T: Send> Send for Waiter<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Waiter<T> {}

impl<T> Waiter<T> {
    pub(crate) fn new() -> Waiter<T> {
        Waiter {
            links: UnsafeCell::new(Links {
                prev: ptr::null(),
                next: ptr::null(),
                waker: WakerSlot::none(),
                group: ptr::null(),
            }),
            state: AtomicU8::new(UNLINKED),
            // Zeroed, not left uninitialised: an entry whose bytes are all defined is written in
            // place into the future that holds it, where one with undefined bytes was built on the
            // stack and copied (with 16-byte moves that straddled the stores before them).
            value: UnsafeCell::new(MaybeUninit::zeroed()),
            _pin: PhantomPinned,
        }
    }

    /// The state as the owner sees it without the lock (acquire: a `DONE` makes the value visible).
    #[inline]
    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    /// The value a channel handed to this receive entry, if it did (`DONE`, read without the
    /// lock): the entry is in no queue again.
    #[inline]
    pub(crate) fn take_if_done(&self) -> Option<T> {
        if self.state() != DONE {
            return None;
        }
        self.set_state(UNLINKED);
        // SAFETY: DONE (acquired) means the channel moved a value in and let go of the entry.
        Some(unsafe { self.take_value() })
    }

    /// Sets the state. Under the channel's lock, or by the owner of an entry in no queue.
    #[inline]
    pub(crate) fn set_state(&self, state: u8) {
        self.state.store(state, Ordering::Release);
    }

    /// Runs `f` on the guarded parts.
    ///
    /// # Safety
    /// The caller holds the lock of the channel the entry is (or is being) linked to.
    #[inline]
    unsafe fn links<R>(&self, f: impl FnOnce(&mut Links<T>) -> R) -> R {
        // SAFETY: the caller holds the lock, so this is the only access.
        self.links.with_mut(|p| f(unsafe { &mut *p }))
    }

    /// Sets who to wake and the select group, before linking; returns the waker it replaces.
    ///
    /// # Safety
    /// As for `links`.
    #[inline]
    pub(crate) unsafe fn prepare(
        &self,
        waker: WaitWaker,
        group: *const AtomicBool,
    ) -> Option<WaitWaker> {
        // SAFETY: the caller's contract.
        unsafe {
            self.links(|l| {
                l.group = group;
                l.waker.replace(waker)
            })
        }
    }

    /// Whether the registered waker wakes the same task as `waker`.
    ///
    /// # Safety
    /// As for `links`.
    pub(crate) unsafe fn will_wake(&self, waker: &std::task::Waker) -> bool {
        // SAFETY: the caller's contract.
        unsafe { self.links(|l| l.waker.will_wake(waker)) }
    }

    /// Whether the entry is a fast-parked receive of the process at `header` (see `fast_park`).
    ///
    /// # Safety
    /// As for `links`.
    pub(crate) unsafe fn is_claimed_by(&self, header: NonNull<Header>) -> bool {
        // SAFETY: the caller's contract.
        unsafe { self.links(|l| l.waker.process() == Some((CLAIMED_WAKER, header))) }
    }

    /// The process of an entry a receive asked to park in its channel's word (state `FAST`): its
    /// waker is that process's claimed one.
    ///
    /// # Safety
    /// The caller is the poll that asked (the entry is in no queue and parked in no word), or the
    /// lock that just took the entry out of the word (and links it nowhere yet).
    pub(crate) unsafe fn fast_owner(&self) -> Option<NonNull<Header>> {
        // SAFETY: the caller's contract: nobody else reaches the entry.
        unsafe {
            self.links(|l| match l.waker.process() {
                Some((CLAIMED_WAKER, header)) => Some(header),
                _ => None,
            })
        }
    }

    /// Takes the registered waker out (dropped by the caller after unlocking).
    ///
    /// # Safety
    /// As for `links`.
    pub(crate) unsafe fn take_waker(&self) -> Option<WaitWaker> {
        // SAFETY: the caller's contract.
        unsafe { self.links(|l| l.waker.take()) }
    }

    /// Claims the entry's select, if it has one: false if another branch already won it.
    ///
    /// # Safety
    /// As for `links`; the group (owned by the waiting future) is alive while the entry is linked.
    #[inline]
    pub(crate) unsafe fn claim(&self) -> bool {
        // SAFETY: the caller's contract.
        let group = unsafe { self.links(|l| l.group) };
        if group.is_null() {
            return true;
        }
        // SAFETY: as above. AcqRel: the winner's later writes (under the lock) reach the owner, who
        // acquires through the entry's state anyway.
        unsafe { &*group }
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Moves `value` into the entry.
    ///
    /// # Safety
    /// The caller holds the channel's lock with the entry just unlinked, or owns the unlinked entry;
    /// the entry holds no value.
    #[inline]
    pub(crate) unsafe fn put_value(&self, value: T) {
        // SAFETY: exclusive access by the caller's contract.
        self.value.with_mut(|p| unsafe { (*p).write(value) });
    }

    /// Moves the value out of the entry.
    ///
    /// # Safety
    /// As for `put_value`, and the entry holds a value (which it no longer does afterwards).
    #[inline]
    pub(crate) unsafe fn take_value(&self) -> T {
        // SAFETY: exclusive access and an initialised value, by the caller's contract.
        self.value.with_mut(|p| unsafe { (*p).assume_init_read() })
    }

    /// Completes a receive entry taken out of the channel's lock word (see `fast_park`): moves
    /// `value` in, publishes `DONE` and returns the process whose scheduling the caller now owns.
    ///
    /// # Safety
    /// The caller holds the channel's lock, whose swap took the entry out of the word.
    #[inline]
    pub(crate) unsafe fn hand_over(&self, value: T) -> NonNull<Header> {
        // SAFETY: the caller's contract: the entry is ours and holds no value.
        let header = unsafe {
            self.put_value(value);
            self.links(|l| match l.waker.take() {
                Some(WaitWaker::Claimed(header)) => header,
                _ => unreachable!("an entry parks in the lock word with a claimed waker"),
            })
        };
        self.set_state(DONE);
        header
    }

    /// Completes an entry just unlinked by the channel: decides the wake-up (returned, to be carried
    /// out after unlocking) and publishes `state` (`DONE` or `CLOSED`). After this the entry and its
    /// owner must not be touched: the owner may already be running.
    ///
    /// # Safety
    /// The caller holds the channel's lock and has just unlinked the entry (and moved the value in or
    /// out as the operation requires).
    #[inline]
    pub(crate) unsafe fn finish(&self, state: u8) -> Option<Wake> {
        // SAFETY: the caller's contract.
        let wake = match unsafe { self.take_waker() } {
            Some(WaitWaker::Process(header)) => {
                // SAFETY: the entry was linked, so its process (whose allocation holds it) is
                // alive.
                let process = unsafe { header.as_ref() };
                match process.notify() {
                    Woken::Schedule => Some(Wake::Process(header)),
                    Woken::LookUp => {
                        // The look-up runs after unlocking, when the entry no longer keeps the
                        // process alive: a reference does.
                        process.retain();
                        Some(Wake::LookUp(header))
                    }
                    Woken::Nothing => None,
                }
            }
            Some(WaitWaker::Claimed(header)) => Some(Wake::Process(header)),
            None => None,
            Some(WaitWaker::Other(waker)) => Some(Wake::Other(waker)),
        };
        self.set_state(state);
        wake
    }
}

/// An intrusive FIFO of entries, guarded by its channel's lock: a circular doubly linked list of
/// which the channel keeps only the head (the tail is the head's `prev`), so that the list is one
/// word of the channel (see the layout in `chan`). An entry alone in the list links to itself.
pub(crate) struct WaitList<T> {
    head: *const Waiter<T>,
}

// SAFETY: the list is only used under its channel's lock; the entries it points to are `Send`.
unsafe impl<T: Send> Send for WaitList<T> {}

impl<T> WaitList<T> {
    pub(crate) const fn new() -> WaitList<T> {
        WaitList { head: ptr::null() }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_null()
    }

    /// Links `entry` at the back and marks it `WAITING`.
    ///
    /// # Safety
    /// The caller holds the channel's lock; `entry` is pinned, in no list, and stays alive until it
    /// is unlinked.
    pub(crate) unsafe fn push_back(&mut self, entry: &Waiter<T>) {
        let me: *const Waiter<T> = entry;
        // SAFETY: the caller's contract; linked entries are alive.
        unsafe {
            match self.head.as_ref() {
                None => {
                    entry.links(|l| {
                        l.prev = me;
                        l.next = me;
                    });
                    self.head = me;
                }
                Some(head) => {
                    let tail = head.links(|l| l.prev);
                    entry.links(|l| {
                        l.prev = tail;
                        l.next = head;
                    });
                    (*tail).links(|l| l.next = me);
                    head.links(|l| l.prev = me);
                }
            }
        }
        entry.set_state(WAITING);
    }

    /// Unlinks the first entry (its state is left for the caller to set).
    ///
    /// # Safety
    /// The caller holds the channel's lock.
    pub(crate) unsafe fn pop_front(&mut self) -> Option<&Waiter<T>> {
        // SAFETY: linked entries are alive while linked; the caller holds the lock.
        let head = unsafe { self.head.as_ref()? };
        // SAFETY: as above.
        unsafe { self.unlink(head) };
        Some(head)
    }

    /// The first entry for which `f` is true.
    ///
    /// # Safety
    /// The caller holds the channel's lock.
    pub(crate) unsafe fn find(&self, mut f: impl FnMut(&Waiter<T>) -> bool) -> Option<&Waiter<T>> {
        // SAFETY: linked entries are alive while linked; the caller holds the lock.
        let head = unsafe { self.head.as_ref()? };
        let mut cur = head;
        loop {
            if f(cur) {
                return Some(cur);
            }
            // SAFETY: as above.
            cur = unsafe { &*cur.links(|l| l.next) };
            if ptr::eq(cur, head) {
                return None;
            }
        }
    }

    /// Unlinks `entry` (its state is left for the caller to set).
    ///
    /// # Safety
    /// The caller holds the channel's lock and `entry` is linked in this list.
    pub(crate) unsafe fn remove(&mut self, entry: &Waiter<T>) {
        // SAFETY: the caller's contract.
        unsafe { self.unlink(entry) }
    }

    unsafe fn unlink(&mut self, entry: &Waiter<T>) {
        let me: *const Waiter<T> = entry;
        // SAFETY: the caller holds the lock; the neighbours are linked, hence alive.
        unsafe {
            let (prev, next) = entry.links(|l| {
                let pn = (l.prev, l.next);
                l.prev = ptr::null();
                l.next = ptr::null();
                pn
            });
            if next == me {
                // Alone in the list.
                self.head = ptr::null();
                return;
            }
            (*prev).links(|l| l.next = next);
            (*next).links(|l| l.prev = prev);
            if self.head == me {
                self.head = next;
            }
        }
    }
}
