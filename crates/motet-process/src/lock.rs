//! The channel's lock: a test-and-test-and-set spinlock around a few pointer moves.
//!
//! Every critical section of a channel is short and bounded: move a value in or out of a queue, link
//! or unlink a waiter, flip a waiting process's state bit. No user code runs under it (values are
//! moved, never dropped, and wakers that are not motet processes are woken after unlocking). For
//! sections that short a spinlock is cheaper than `std::sync::Mutex`: locking is one atomic swap and
//! unlocking a plain release store, where the futex mutex pays a second read-modify-write to unlock
//! (measured on pingpong: the channel takes and releases its lock twice per message). A waiter spins
//! briefly, then yields its thread, so a holder preempted by the OS gets the processor back.

use std::ops::{Deref, DerefMut};

use crate::sync::UnsafeCell;
#[cfg(not(loom))]
use crate::sync::{spin_hint, yield_now, AtomicBool, Ordering};

/// How many times a contended lock spins before it starts yielding its thread.
#[cfg(not(loom))]
const SPINS_BEFORE_YIELD: u32 = 64;

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

    /// Takes the lock, spinning (then yielding) while another thread holds it.
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
        let mut spins = 0;
        loop {
            // Test before test-and-set: wait on a shared copy of the line instead of bouncing it.
            while self.locked.load(Ordering::Relaxed) {
                if spins < SPINS_BEFORE_YIELD {
                    spins += 1;
                    spin_hint();
                } else {
                    yield_now();
                }
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

impl<T> Deref for SpinGuard<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        #[cfg(not(loom))]
        // SAFETY: the guard proves this thread holds the lock, so no other reference to the value
        // exists while the guard lives.
        return self.lock.value.with(|p| unsafe { &*p });
        #[cfg(loom)]
        // SAFETY: as above; loom tracks the access through `access`.
        return unsafe { loom::cell::MutPtr::deref(&self.access) };
    }
}

impl<T> DerefMut for SpinGuard<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        #[cfg(not(loom))]
        // SAFETY: as in `deref`; the guard is borrowed mutably, so this is the only reference.
        return self.lock.value.with_mut(|p| unsafe { &mut *p });
        #[cfg(loom)]
        // SAFETY: as above.
        return unsafe { loom::cell::MutPtr::deref(&self.access) };
    }
}

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
