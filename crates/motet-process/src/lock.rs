//! The channel's lock: a test-and-test-and-set spinlock around a few pointer moves.
//!
//! Every critical section of a channel is short and bounded: move a value in or out of a queue, link
//! or unlink a waiter, flip a waiting process's state bit. No user code runs under it (values are
//! moved, never dropped, and wakers that are not motet processes are woken after unlocking). For
//! sections that short a spinlock is cheaper than `std::sync::Mutex`: locking is one atomic swap and
//! unlocking a plain release store, where the futex mutex pays a second read-modify-write to unlock
//! (measured on pingpong: the channel takes and releases its lock twice per message). A waiter spins
//! briefly, then yields its thread, then sleeps between looks at the lock ([`backoff`]), so a holder
//! preempted by the OS gets the processor back, whatever the threads' scheduling policy.

use std::ops::{Deref, DerefMut};

#[cfg(not(loom))]
use crate::sync::atomic::{AtomicBool, Ordering};
use crate::sync::UnsafeCell;

#[cfg(not(loom))]
mod backoff;
#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(not(loom))]
use backoff::Backoff;

/// A spinlock owning its value.
pub(crate) struct SpinLock<T> {
    #[cfg(not(loom))]
    locked: AtomicBool,
    /// Under loom the lock is a loom mutex: loom models a blocked thread exactly, where a spinning
    /// one multiplies the states it explores (the spinning itself is not what the models check).
    #[cfg(loom)]
    mutex: loom::sync::Mutex<()>,
    value: UnsafeCell<T>,
}

// SAFETY: the lock hands out access to `value` to one thread at a time; `T: Send` lets it move there.
unsafe impl<T: Send> Send for SpinLock<T> {}
// SAFETY: as above: shared references only reach `value` through the lock.
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T> SpinLock<T> {
    pub(crate) fn new(value: T) -> SpinLock<T> {
        SpinLock {
            #[cfg(not(loom))]
            locked: AtomicBool::new(false),
            #[cfg(loom)]
            mutex: loom::sync::Mutex::new(()),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the lock, spinning (then yielding, then sleeping) while another thread holds it.
    #[cfg(loom)]
    pub(crate) fn lock(&self) -> SpinGuard<'_, T> {
        let held = self.mutex.lock().unwrap();
        SpinGuard {
            lock: self,
            access: std::mem::ManuallyDrop::new(self.value.get_mut()),
            held: Some(held),
        }
    }

    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn lock(&self) -> SpinGuard<'_, T> {
        // Acquire: the holder's writes, published by its release store in `drop`, are visible to us.
        if self.locked.swap(true, Ordering::Acquire) {
            self.lock_contended();
        }
        SpinGuard { lock: self }
    }

    #[cfg(not(loom))]
    #[cold]
    fn lock_contended(&self) {
        let mut backoff = Backoff::new();
        loop {
            // Test before test-and-set: wait on a shared copy of the line instead of bouncing it.
            while self.locked.load(Ordering::Relaxed) {
                backoff.wait();
            }
            if !self.locked.swap(true, Ordering::Acquire) {
                return;
            }
        }
    }
}

/// Access to a locked value; unlocks when dropped.
pub(crate) struct SpinGuard<'a, T> {
    #[cfg_attr(loom, allow(dead_code))]
    lock: &'a SpinLock<T>,
    /// Under loom, the tracked access to the value, held for as long as the guard.
    #[cfg(loom)]
    access: std::mem::ManuallyDrop<loom::cell::MutPtr<T>>,
    #[cfg(loom)]
    held: Option<loom::sync::MutexGuard<'a, ()>>,
}

/// `Deref` and `DerefMut` for a lock guard whose `lock.value` is the locked cell and, under loom,
/// whose `access` is the tracked access to it, held for as long as the guard.
macro_rules! guard_deref {
    ($guard:ident $(: $bound:path)?) => {
        impl<T $(: $bound)?> Deref for $guard<'_, T> {
            type Target = T;
            #[inline(always)]
            fn deref(&self) -> &T {
                #[cfg(not(loom))]
                // SAFETY: the guard proves this thread holds the lock, so no other reference to
                // the value exists while the guard lives.
                return self.lock.value.with(|p| unsafe { &*p });
                #[cfg(loom)]
                // SAFETY: as above; loom tracks the access through `access`.
                return unsafe { loom::cell::MutPtr::deref(&self.access) };
            }
        }

        impl<T $(: $bound)?> DerefMut for $guard<'_, T> {
            #[inline(always)]
            fn deref_mut(&mut self) -> &mut T {
                #[cfg(not(loom))]
                // SAFETY: as in `deref`; the guard is borrowed mutably, so this is the only
                // reference.
                return self.lock.value.with_mut(|p| unsafe { &mut *p });
                #[cfg(loom)]
                // SAFETY: as above.
                return unsafe { loom::cell::MutPtr::deref(&self.access) };
            }
        }
    };
}

guard_deref!(SpinGuard);

impl<T> Drop for SpinGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // The tracked access ends before the lock is released.
        #[cfg(loom)]
        // SAFETY: dropped once, here, and never used again.
        unsafe {
            std::mem::ManuallyDrop::drop(&mut self.access)
        };
        #[cfg(loom)]
        drop(self.held.take());
        // Release: everything written under the lock is visible to the next holder's acquire swap.
        #[cfg(not(loom))]
        self.lock.locked.store(false, Ordering::Release);
    }
}

/// What a [`WordLock`]'s word says while nobody holds it, computed from the guarded value and the
/// lock's generation at each unlock.
///
/// The generation counts the lock's unlocks, so that a free word is never stored twice (see
/// `channel::fast_park`): each lock reads it out of the free word its swap took, and its unlock
/// stores the next one.
pub(crate) trait UnlockedWord {
    /// The word to store when the lock is released at `generation`: anything but [`LOCKED`].
    fn unlocked_word(&self, generation: usize) -> usize;

    /// The generation of a free word that the lock's swap just took out.
    ///
    /// # Safety
    /// `word` is a free word of this value's lock, just taken out by a lock's swap, which holds
    /// the lock now.
    unsafe fn generation(word: usize) -> usize;
}

/// A [`WordLock`]'s word while a thread holds it.
pub(crate) const LOCKED: usize = 1;

/// A spinlock whose word says more than locked or not while nobody holds it: the channel's lock,
/// whose free word also tells whether the channel is idle and empty, or holds the wait-queue entry
/// of the one receiver parked on it (see `channel::fast_park`). Locking swaps in [`LOCKED`] and
/// returns what the word held; unlocking stores the value's [`UnlockedWord`]. The word may also be
/// changed while free, by a compare-and-swap from one free value to another (a receiver parking).
///
/// Under loom a loom mutex also guards the word's swaps between holders: a thread waiting for the
/// lock blocks (which loom models exactly) instead of spinning; the word still goes through
/// [`LOCKED`] and back, so the compare-and-swaps of parking receivers race the holders as on the
/// real build.
pub(crate) struct WordLock<T> {
    word: crate::sync::atomic::AtomicUsize,
    #[cfg(loom)]
    mutex: loom::sync::Mutex<()>,
    value: UnsafeCell<T>,
}

// SAFETY: as for `SpinLock`: the lock hands out access to `value` to one thread at a time.
unsafe impl<T: Send> Send for WordLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for WordLock<T> {}

impl<T: UnlockedWord> WordLock<T> {
    pub(crate) fn new(value: T) -> WordLock<T> {
        WordLock {
            word: crate::sync::atomic::AtomicUsize::new(value.unlocked_word(0)),
            #[cfg(loom)]
            mutex: loom::sync::Mutex::new(()),
            value: UnsafeCell::new(value),
        }
    }

    /// Where the word lies in the lock, for code that reaches it without knowing `T`.
    pub(crate) const WORD_OFFSET: usize = std::mem::offset_of!(WordLock<T>, word);

    /// The word, for a compare-and-swap between free values (never to or from [`LOCKED`]).
    #[inline]
    pub(crate) fn word(&self) -> &crate::sync::atomic::AtomicUsize {
        &self.word
    }

    /// Takes the lock, spinning (then yielding, then sleeping) while another thread holds it; returns the guard
    /// and the free word it replaced.
    #[inline]
    pub(crate) fn lock(&self) -> (WordGuard<'_, T>, usize) {
        use crate::sync::atomic::Ordering;
        #[cfg(loom)]
        let held = self.mutex.lock().unwrap();
        // Acquire: the previous holder's writes (published by its release store at unlock), or a
        // parking receiver's (published by its release compare-and-swap), are visible to us.
        let mut prev = self.word.swap(LOCKED, Ordering::Acquire);
        if prev == LOCKED {
            prev = self.lock_contended();
        }
        // SAFETY: `prev` is the free word the swap took; we hold the lock.
        let generation = unsafe { T::generation(prev) }.wrapping_add(1);
        (
            WordGuard {
                lock: self,
                generation,
                #[cfg(loom)]
                access: std::mem::ManuallyDrop::new(self.value.get_mut()),
                #[cfg(loom)]
                held: Some(held),
            },
            prev,
        )
    }

    #[cold]
    fn lock_contended(&self) -> usize {
        #[cfg(loom)]
        unreachable!("under loom the mutex keeps other holders out");
        #[cfg(not(loom))]
        self.spin()
    }

    #[cfg(not(loom))]
    fn spin(&self) -> usize {
        let mut backoff = Backoff::new();
        loop {
            // Test before test-and-set: wait on a shared copy of the line instead of bouncing it.
            while self.word.load(Ordering::Relaxed) == LOCKED {
                backoff.wait();
            }
            let prev = self.word.swap(LOCKED, Ordering::Acquire);
            if prev != LOCKED {
                return prev;
            }
        }
    }
}

/// Access to a [`WordLock`]'s value; unlocks when dropped, storing the value's free word.
pub(crate) struct WordGuard<'a, T: UnlockedWord> {
    lock: &'a WordLock<T>,
    /// The generation the unlock stores: the free word's that this lock took, plus one.
    generation: usize,
    #[cfg(loom)]
    access: std::mem::ManuallyDrop<loom::cell::MutPtr<T>>,
    #[cfg(loom)]
    held: Option<loom::sync::MutexGuard<'a, ()>>,
}

guard_deref!(WordGuard: UnlockedWord);

impl<T: UnlockedWord> WordGuard<'_, T> {
    /// The generation this guard's unlock stores.
    #[inline]
    pub(crate) fn generation(&self) -> usize {
        self.generation
    }

    /// Unlocks, storing `word`, which the caller knows to be the value's
    /// [`UnlockedWord::unlocked_word`] at [`generation`](WordGuard::generation) (a sender that
    /// handed its value to the receiver it took out of the word left the channel as idle and
    /// empty as it found it), without computing it.
    #[inline]
    pub(crate) fn unlock_as(self, word: usize) {
        debug_assert_eq!(word, (*self).unlocked_word(self.generation));
        let mut this = std::mem::ManuallyDrop::new(self);
        this.unlock(word);
    }

    /// Releases the lock, storing `word`. Once per guard: from `drop` or `unlock_as`.
    #[inline]
    fn unlock(&mut self, word: usize) {
        debug_assert_ne!(word, LOCKED);
        #[cfg(loom)]
        // SAFETY: dropped once, here, and never used again.
        unsafe {
            std::mem::ManuallyDrop::drop(&mut self.access)
        };
        // Release: everything written under the lock is visible to the next holder's acquire swap
        // (or a parking receiver's acquire compare-and-swap).
        self.lock
            .word
            .store(word, crate::sync::atomic::Ordering::Release);
        #[cfg(loom)]
        drop(self.held.take());
    }
}

impl<T: UnlockedWord> Drop for WordGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        let word = (**self).unlocked_word(self.generation);
        self.unlock(word);
    }
}
