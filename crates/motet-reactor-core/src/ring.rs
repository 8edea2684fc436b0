//! Interrupt-safe physical actions: [`IrqSender`] puts values into a fixed-capacity ring that the
//! program reserved when the sender was made, so sending allocates nothing and takes no lock.
//!
//! # Protocol
//!
//! The ring is a bounded multi-producer, single-consumer queue after Dmitry Vyukov's array queue
//! (crossbeam's `ArrayQueue` uses the same scheme). Its capacity is a power of two. Each slot has
//! a *stamp*; positions count up forever (wrapping) and a position `p` maps to slot `p mod cap`.
//!
//! - Slot `i` starts with stamp `i`: free for the producer of position `i`.
//! - **Send** (any thread or interrupt handler): read `tail` = `p`; if the stamp of slot `p` is
//!   `p`, claim the position with a compare-and-swap of `tail` from `p` to `p + 1`, write the
//!   value, then store stamp `p + 1` (Release: the value is visible to whoever sees the stamp).
//!   If the stamp is behind (`p + 1 - cap`, the consumer has not taken the previous lap's value),
//!   the ring is full: the value is handed back and the overflow counted. If it is ahead, another
//!   producer claimed `p` first: retry with the new tail.
//! - **Drain** (the scheduler only): at `head` = `p`, if the stamp of slot `p` is `p + 1`
//!   (Acquire, pairing with the send's Release), take the value and store stamp `p + cap`
//!   (Release: the slot is free for the next lap's producer), then go on with `p + 1`; otherwise
//!   stop (empty, or a producer that claimed `p` has not finished writing).
//!
//! A producer never waits for another: if an interrupt preempts a send between its claim and its
//! stamp, the interrupt's own send claims the next position and completes. The scheduler simply
//! stops at the unfinished slot and takes the rest later.
//!
//! **Wake-up.** After a send (or an overflow) the producer sets the inbox's `rings_pending` flag
//! with a SeqCst swap (a read-modify-write, so that the scheduler's swap that reads it
//! synchronises with every sender before it, not only the last) and calls the inbox's notifier, exactly as a [`PhysicalSender`] does after its push;
//! the scheduler clears the flag (SeqCst swap) *before* draining the rings, so a value that lands
//! after its drain passed it sets the flag again and is seen on the next check. The scheduler's
//! emptiness check before sleeping reads the flag beside the inbox's stack, with the ordering the
//! inbox's module docs describe, so a send is never left unnoticed while the scheduler sleeps.
//!
//! **Overflow** is a counted fault, never undefined behaviour: the send returns the value, the
//! ring counts it, and the scheduler, when it drains, fails the run with
//! [`RunError::PhysicalOverflow`](crate::RunError::PhysicalOverflow) naming the action and the
//! number of values lost.
//!
//! [`PhysicalSender`]: crate::PhysicalSender

use alloc::boxed::Box;
use alloc::sync::Arc;
use core::any::Any;
use core::fmt;
use core::marker::PhantomData;
use core::mem::MaybeUninit;

use crate::inbox::Inbox;
use crate::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use crate::sync::UnsafeCell;

/// One slot: its stamp and room for one value with its send time.
struct Slot<T> {
    stamp: AtomicUsize,
    value: UnsafeCell<MaybeUninit<(Option<u64>, T)>>,
}

/// The ring of one [`IrqSender`] and its clones (see the module docs).
pub(crate) struct Ring<T> {
    slots: Box<[Slot<T>]>,
    /// `cap - 1`: a position's slot is `position & mask`.
    mask: usize,
    /// The next position a producer claims.
    tail: AtomicUsize,
    /// The next position the scheduler takes; touched by the scheduler only (an atomic so that
    /// the ring is `Sync` without a cell, always accessed `Relaxed`).
    head: AtomicUsize,
    /// Values refused because the ring was full, counted by producers.
    overflows: AtomicU32,
    /// Overflows already reported by the scheduler (scheduler only).
    reported: AtomicU32,
    action: u32,
    program: u32,
}

// SAFETY: values cross from producers to the scheduler through the slots' stamps (a value is
// written before its stamp is released and read after it is acquired), so `T: Send` suffices;
// everything else is atomic.
unsafe impl<T: Send> Sync for Ring<T> {}
// SAFETY: as above; the ring owns its values.
unsafe impl<T: Send> Send for Ring<T> {}

impl<T> Ring<T> {
    fn new(capacity: usize, action: u32, program: u32) -> Ring<T> {
        let cap = capacity.max(1).next_power_of_two();
        let slots = (0..cap)
            .map(|i| Slot {
                stamp: AtomicUsize::new(i),
                value: UnsafeCell::new(MaybeUninit::uninit()),
            })
            .collect();
        Ring {
            slots,
            mask: cap - 1,
            tail: AtomicUsize::new(0),
            head: AtomicUsize::new(0),
            overflows: AtomicU32::new(0),
            reported: AtomicU32::new(0),
            action,
            program,
        }
    }

    fn capacity(&self) -> usize {
        self.mask + 1
    }

    /// Puts `value` in the ring, or hands it back if the ring is full.
    fn push(&self, value: T, sent_at: Option<u64>) -> Result<(), T> {
        let mut tail = self.tail.load(Ordering::Relaxed);
        loop {
            let slot = &self.slots[tail & self.mask];
            // Acquire: pairs with the scheduler's Release of the stamp that freed the slot, so
            // its read of the previous value happens before this write.
            let stamp = slot.stamp.load(Ordering::Acquire);
            let lag = stamp.wrapping_sub(tail) as isize;
            if lag == 0 {
                // Relaxed: the claim orders nothing; the stamp publishes the value.
                match self.tail.compare_exchange_weak(
                    tail,
                    tail.wrapping_add(1),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        // SAFETY: the claim made position `tail` ours alone, and its stamp says
                        // the scheduler has taken the previous lap's value: nobody else reads or
                        // writes the slot until the stamp below.
                        slot.value
                            .with_mut(|v| unsafe { (*v).write((sent_at, value)) });
                        // Release: the value is visible to the scheduler that acquires the stamp.
                        slot.stamp.store(tail.wrapping_add(1), Ordering::Release);
                        return Ok(());
                    }
                    Err(t) => tail = t,
                }
            } else if lag < 0 {
                // The previous lap's value is still there: full.
                self.overflows.fetch_add(1, Ordering::Relaxed);
                return Err(value);
            } else {
                // Another producer claimed this position first.
                tail = self.tail.load(Ordering::Relaxed);
            }
        }
    }

    /// Takes the next value, if one is complete (scheduler only).
    fn pop(&self) -> Option<(Option<u64>, T)> {
        let head = self.head.load(Ordering::Relaxed);
        let slot = &self.slots[head & self.mask];
        // Acquire: pairs with the producer's Release; its value write happens before the read.
        if slot.stamp.load(Ordering::Acquire) != head.wrapping_add(1) {
            return None;
        }
        // SAFETY: the stamp says a producer finished writing position `head`, and no producer
        // touches the slot again until the stamp below frees it.
        let v = slot.value.with_mut(|v| unsafe { (*v).assume_init_read() });
        // Release: the read above happens before the next lap's producer writes the slot.
        slot.stamp
            .store(head.wrapping_add(self.capacity()), Ordering::Release);
        self.head.store(head.wrapping_add(1), Ordering::Relaxed);
        Some(v)
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        while self.pop().is_some() {}
    }
}

/// The scheduler's view of a ring, whatever its value type.
pub(crate) trait RingDrain: Send + Sync {
    /// Takes every complete value, oldest first, boxed for the action's cell; returns how many
    /// overflows happened since the last call.
    fn drain(&self, f: &mut dyn FnMut(u32, u32, Option<u64>, Box<dyn Any + Send>)) -> u32;
    /// The action the ring's values are for.
    fn action(&self) -> u32;
}

impl<T: Send + 'static> RingDrain for Ring<T> {
    fn drain(&self, f: &mut dyn FnMut(u32, u32, Option<u64>, Box<dyn Any + Send>)) -> u32 {
        while let Some((sent_at, v)) = self.pop() {
            f(self.action, self.program, sent_at, Box::new(v));
        }
        let total = self.overflows.load(Ordering::Relaxed);
        let new = total.wrapping_sub(self.reported.load(Ordering::Relaxed));
        self.reported.store(total, Ordering::Relaxed);
        new
    }

    fn action(&self) -> u32 {
        self.action
    }
}

/// Schedules a [`PhysicalAction`](crate::PhysicalAction) from an interrupt handler (or any
/// thread) without allocating and without taking a lock: values go into a ring of fixed
/// capacity reserved when the sender is made ([`ProgramBuilder::irq_sender`]). Cheap to clone;
/// clones share the ring. While a sender lives, a program with nothing else to do waits for it
/// (keepalive), as with [`PhysicalSender`].
///
/// A send that finds the ring full hands the value back and counts an overflow; the scheduler
/// then fails the run with [`RunError::PhysicalOverflow`](crate::RunError::PhysicalOverflow)
/// (the protocol is written out beside the code, in `ring.rs`).
///
/// What a send does besides filling the ring is call the notifier the platform installed with
/// [`Inbox::set_notify`] to wake a sleeping scheduler. A bare-metal platform that sleeps in
/// `WFI` installs none (any interrupt wakes the core); a platform whose notifier locks (the host
/// schedulers of motet-reactor) makes the send lock too, which is fine from threads but not from
/// a signal or interrupt handler.
///
/// [`ProgramBuilder::irq_sender`]: crate::ProgramBuilder::irq_sender
/// [`PhysicalSender`]: crate::PhysicalSender
pub struct IrqSender<T> {
    ring: Arc<Ring<T>>,
    inbox: Arc<Inbox>,
    _t: PhantomData<fn(T)>,
}

impl<T: Send + 'static> IrqSender<T> {
    pub(crate) fn new(inbox: Arc<Inbox>, program: u32, action: u32, capacity: usize) -> Self {
        let ring = Arc::new(Ring::<T>::new(capacity, action, program));
        inbox.add_ring(ring.clone());
        inbox.sender_added();
        IrqSender {
            ring,
            inbox,
            _t: PhantomData,
        }
    }

    /// Schedules the action with `value`, tagged from the platform clock now (the clock
    /// installed with [`set_clock`](crate::set_clock), which must be readable here; else when
    /// the scheduler takes it) plus the action's minimum delay.
    ///
    /// # Errors
    /// The ring is full: `value` comes back, and the overflow is counted and reported.
    pub fn send(&self, value: T) -> Result<(), T> {
        self.push(value, crate::inbox::clock_now())
    }

    /// Schedules the action with `value`, tagged as if sent at `now` (platform clock,
    /// nanoseconds).
    ///
    /// # Errors
    /// As for [`IrqSender::send`].
    pub fn send_at(&self, value: T, now: u64) -> Result<(), T> {
        self.push(value, Some(now))
    }

    fn push(&self, value: T, sent_at: Option<u64>) -> Result<(), T> {
        let outcome = self.ring.push(value, sent_at);
        self.inbox.ring_pushed();
        outcome
    }

    /// The ring's capacity (the capacity asked for, rounded up to a power of two).
    pub fn capacity(&self) -> usize {
        self.ring.capacity()
    }

    /// Values refused so far because the ring was full.
    pub fn overflows(&self) -> u32 {
        self.ring.overflows.load(Ordering::Relaxed)
    }
}

impl<T> Clone for IrqSender<T> {
    fn clone(&self) -> Self {
        self.inbox.sender_added();
        IrqSender {
            ring: self.ring.clone(),
            inbox: self.inbox.clone(),
            _t: PhantomData,
        }
    }
}

impl<T> Drop for IrqSender<T> {
    fn drop(&mut self) {
        self.inbox.sender_dropped();
    }
}

impl<T> fmt::Debug for IrqSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IrqSender")
            .field("action", &self.ring.action)
            .field("capacity", &self.ring.capacity())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use std::sync::atomic::AtomicUsize as StdCount;

    fn ring(cap: usize) -> Ring<u32> {
        Ring::new(cap, 0, 1)
    }

    #[test]
    fn capacity_rounds_up_to_a_power_of_two() {
        assert_eq!(ring(0).capacity(), 1);
        assert_eq!(ring(3).capacity(), 4);
        assert_eq!(ring(8).capacity(), 8);
    }

    #[test]
    fn fifo_across_many_laps() {
        let r = ring(4);
        let mut next = 0;
        for lap in 0..100u32 {
            for i in 0..3 {
                r.push(lap * 3 + i, Some(u64::from(i))).unwrap();
            }
            for _ in 0..3 {
                let (at, v) = r.pop().unwrap();
                assert_eq!(v, next);
                assert_eq!(at, Some(u64::from(next % 3)));
                next += 1;
            }
            assert!(r.pop().is_none());
        }
    }

    #[test]
    fn a_full_ring_hands_the_value_back_and_counts_it() {
        let r = ring(2);
        r.push(1, None).unwrap();
        r.push(2, None).unwrap();
        assert_eq!(r.push(3, None), Err(3));
        assert_eq!(r.push(4, None), Err(4));
        let mut got = Vec::new();
        let lost = r.drain(&mut |a, p, _, v| {
            assert_eq!((a, p), (0, 1));
            got.push(*v.downcast::<u32>().unwrap());
        });
        assert_eq!(got, [1, 2]);
        assert_eq!(lost, 2);
        // Counted once: the next drain reports only new overflows.
        r.push(5, None).unwrap();
        assert_eq!(r.drain(&mut |_, _, _, _| {}), 0);
    }

    /// Values left in the ring are dropped with it, once each.
    #[test]
    fn dropping_the_ring_drops_what_it_holds() {
        static DROPS: StdCount = StdCount::new(0);
        struct Counted;
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let r = Ring::<Counted>::new(4, 0, 1);
        for _ in 0..3 {
            assert!(r.push(Counted, None).is_ok());
        }
        drop(r.pop());
        assert_eq!(DROPS.load(std::sync::atomic::Ordering::SeqCst), 1);
        drop(r);
        assert_eq!(DROPS.load(std::sync::atomic::Ordering::SeqCst), 3);
    }

    /// Three threads send into a small ring while this one drains: every value arrives once, in
    /// each sender's order, and what did not arrive was refused and counted.
    #[test]
    fn stress_senders_and_a_draining_scheduler() {
        const PER_SENDER: u32 = if cfg!(miri) { 200 } else { 50_000 };
        let inbox = Arc::new(Inbox::new());
        let s = IrqSender::<(u32, u32)>::new(inbox.clone(), 1, 0, 16);
        let senders: Vec<_> = (0..3u32)
            .map(|k| {
                let s = s.clone();
                std::thread::spawn(move || {
                    let mut refused = 0u32;
                    for i in 0..PER_SENDER {
                        if s.send_at((k, i), 0).is_err() {
                            refused += 1;
                            std::thread::yield_now();
                        }
                    }
                    refused
                })
            })
            .collect();
        drop(s);
        let mut last = [None::<u32>; 3];
        let (mut got, mut lost) = (0u64, 0u64);
        loop {
            let done = !inbox.keepalive();
            inbox.drain_rings(
                &mut |_, _, _, v| {
                    let (k, i) = *v.downcast::<(u32, u32)>().unwrap();
                    let prev = last[k as usize].replace(i);
                    assert!(prev.is_none_or(|p| p < i), "sender {k}: {prev:?} then {i}");
                    got += 1;
                },
                &mut |_, n| lost += u64::from(n),
            );
            if done && inbox.is_empty() {
                break;
            }
        }
        let refused: u32 = senders.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(lost, u64::from(refused));
        assert_eq!(got + lost, 3 * u64::from(PER_SENDER));
        assert!(got > 0);
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use alloc::vec::Vec;

    /// Two senders (standing for two interrupt priorities, or threads) send two values each into a
    /// ring of two slots while the scheduler drains and checks emptiness as it would before
    /// sleeping: every value is taken at most once and in its sender's order, every value that
    /// was not refused is taken, the refusals are counted exactly, and after the senders finish
    /// a pending value is always visible to the emptiness check.
    #[test]
    fn loom_ring_sends_drains_and_overflows() {
        loom::model(|| {
            let inbox = Arc::new(Inbox::new());
            let s = IrqSender::<u32>::new(inbox.clone(), 1, 0, 2);
            let senders: Vec<_> = (0..2u32)
                .map(|k| {
                    let s = s.clone();
                    loom::thread::spawn(move || {
                        let a = s.send_at(k * 10, 0).is_err() as u32;
                        a + s.send_at(k * 10 + 1, 0).is_err() as u32
                    })
                })
                .collect();
            drop(s);
            let mut got: Vec<u32> = Vec::new();
            let mut lost = 0u32;
            let drain = |got: &mut Vec<u32>, lost: &mut u32| {
                inbox.drain_rings(
                    &mut |_, _, _, v| got.push(*v.downcast::<u32>().unwrap()),
                    &mut |_, n| *lost += n,
                );
            };
            drain(&mut got, &mut lost);
            let refused: u32 = senders.into_iter().map(|t| t.join().unwrap()).sum();
            // Everything sent is now complete: a scheduler about to sleep must see it.
            if got.len() as u32 + lost < 4 {
                assert!(
                    !inbox.is_empty(),
                    "a value waits unseen: got {got:?}, lost {lost}, refused {refused}"
                );
            }
            drain(&mut got, &mut lost);
            assert_eq!(lost, refused);
            assert_eq!(got.len() as u32 + refused, 4);
            for k in 0..2 {
                let mine: Vec<u32> = got.iter().copied().filter(|v| v / 10 == k).collect();
                assert!(mine.windows(2).all(|w| w[0] < w[1]), "{mine:?}");
            }
        });
    }
}
