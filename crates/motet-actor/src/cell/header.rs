//! The shared part of a cell, which addresses point to, and its reference protocol.
//!
//! # References and lifetime
//!
//! `refs` holds `2 * addresses + LIFE`. `LIFE` (bit 0) is set while the actor has not stopped; it
//! is owned by the actor itself, so a scheduled or running actor never needs a reference per
//! scheduling (no atomic increment per message). Every [`Addr`](crate::Addr) and
//! [`AnyAddr`](crate::AnyAddr) owns 2.
//!
//! - The actor is *unreachable* when `refs == LIFE`: no address is left, so nobody can send to it
//!   again (only the actor itself could create an address, and only while running a handler). A
//!   turn checks this whenever it finds the mailbox empty, and then stops the actor with
//!   [`ExitReason::Unreachable`](crate::ExitReason::Unreachable). (Not earlier: messages already
//!   queued must still run.)
//! - Dropping an address when `refs == LIFE + 2` (perhaps the last one) must make sure the actor
//!   notices, without allocating and without touching the cell after the actor could have stopped.
//!   The dropper sets `BUSY` in the mailbox's head word (taking over the idle mark if the actor was
//!   idle), decrements, and replaces `BUSY` by `CHECK`; if it took over the idle mark it then
//!   schedules the actor. A consumer cannot mark its mailbox idle while `BUSY` or `CHECK` is set; on
//!   `CHECK` it clears the bit and re-reads `refs`. Stopping waits for `BUSY` to clear. So either the
//!   actor sees the decrement before it goes idle, or the dropper finds it idle and wakes it.
//! - Any other drop decrements with a CAS; the one that takes `refs` to 0 frees the cell.
//! - When the actor stops, it closes the mailbox, processes what is left (answering queued links and
//!   monitors), notifies its links, monitors and watchers, parks its runnable (dead: the mailbox is
//!   closed, so nobody schedules it again) and clears `LIFE`; if that takes `refs` to 0, it frees
//!   the cell itself.
//! - *Freeing* is dropping the parked runnable, which the runtime answers by dropping the cell's
//!   parts and its memory: the one that takes `refs` to 0 takes it out of the header.

use std::mem::MaybeUninit;
use std::ptr::NonNull;

use motet_runtime::{Handle, Runnable};

use super::extra::{Extra, Forward};
use crate::addr::AnyOps;
use crate::bounded::Bound;
use crate::envelope::{Envelope, Signal};
use crate::exit::ActorId;
use crate::home::Home;
use crate::ids::next_id;
use crate::lazy::Lazy;
use crate::mailbox::{Mailbox, MarkIdle, ReleaseStart};
use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::UnsafeCell;

pub(super) const LIFE: usize = 1;
pub(super) const ONE_ADDR: usize = 2;

/// The part of a cell that addresses see: the task's shared part.
pub(crate) struct Header<M> {
    pub(super) refs: AtomicUsize,
    pub(crate) id: ActorId,
    runtime: Handle,
    pub(crate) mailbox: Mailbox<Envelope<M>>,
    /// The actor's runnable while the mailbox is marked idle, or once the actor has stopped (see
    /// the module docs); empty (uninitialised) while the actor is scheduled or running. Never
    /// dropped with the header: a parked runnable is taken out by whoever frees the cell.
    runnable: UnsafeCell<MaybeUninit<Runnable<Header<M>>>>,
    /// What only detached, scoped, bounded, forwarding and priority-taking actors have; `None` for
    /// a plain actor. Never read on a plain actor's wake or turn (the task kind and the `GATED` and
    /// `PRIORITIES` constants say where it is needed).
    pub(crate) extra: Lazy<Extra<M>>,
}

// SAFETY: the runnable slot is touched only by the owner of the mailbox's idle mark (or, once the
// actor stopped, by whoever takes `refs` to 0), which the mailbox's atomic head word makes one
// thread at a time; every other field is thread-safe.
unsafe impl<M: Send> Sync for Header<M> {}
// SAFETY: as above; messages are `Send`.
unsafe impl<M: Send> Send for Header<M> {}

impl<M: Send + 'static> Header<M> {
    pub(crate) const ANY_OPS: &'static AnyOps = &AnyOps {
        push_signal: any_push_signal::<M>,
        retain: any_retain::<M>,
        release: any_release::<M>,
        id: any_id::<M>,
    };

    pub(crate) fn runtime(&self) -> &Handle {
        &self.runtime
    }

    /// Puts the actor's runnable in its slot, before the idle mark that gives it away is set (or
    /// before `LIFE` is cleared at the end).
    ///
    /// # Safety
    /// The caller holds the runnable, so the slot is empty, and no one else touches the slot until
    /// the caller publishes the park.
    #[inline(always)]
    pub(super) unsafe fn park(&self, runnable: Runnable<Header<M>>) {
        // SAFETY: the caller's contract: the slot is empty and ours (a plain write, no drop).
        self.runnable
            .with_mut(|slot| unsafe { (*slot).write(runnable) });
    }

    /// Takes the actor's runnable out of its slot, leaving it empty.
    ///
    /// # Safety
    /// The caller owns the slot, which holds the runnable: it cleared the idle mark (or took over
    /// the mark in the release protocol), or took `refs` to 0.
    #[inline(always)]
    pub(super) unsafe fn unpark(&self) -> Runnable<Header<M>> {
        // SAFETY: the caller's contract; whoever parked it published the park with the release
        // ordering of the idle mark (or of the `LIFE` decrement), which the caller acquired.
        self.runnable
            .with_mut(|slot| unsafe { (*slot).assume_init_read() })
    }

    /// Schedules the actor, whose idle mark the caller just cleared. On the runtime, whatever the
    /// actor: the task kind of a detached or scoped actor hands the runnable to its home thread
    /// when a worker runs it ([`send_home`](super::send_home)), so that a pooled actor's wake tests
    /// nothing.
    ///
    /// # Safety
    /// As for [`Header::unpark`].
    #[inline(always)]
    pub(super) unsafe fn schedule(&self) {
        // SAFETY: the caller's contract.
        let runnable = unsafe { self.unpark() };
        self.runtime.schedule(runnable);
    }

    /// The home thread of a detached or scoped actor.
    pub(crate) fn home(&self) -> Option<&std::sync::Arc<Home<M>>> {
        self.extra.as_ref()?.home.as_ref()
    }

    /// Gives up the first address reference, for a cell whose owner holds none (a scoped actor).
    pub(crate) fn forget_first_address(&self) {
        self.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
    }

    /// Releases the address reference an [`Envelope::UserWithRef`] carried, before its message is
    /// handled (so that a panicking handler cannot leak it): LIFE is set, so this cannot free the
    /// cell, and whether the actor became unreachable is only decided on an empty mailbox.
    #[inline(always)]
    pub(crate) fn release_carried(&self) {
        self.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
    }

    /// The urgent queue, for actors that take urgent messages.
    #[inline(always)]
    pub(crate) fn urgent(&self) -> Option<&Mailbox<M>> {
        self.extra.as_ref()?.urgent.as_deref()
    }

    /// Whether no address is left (only the actor itself holds the cell).
    pub(crate) fn unreachable(&self) -> bool {
        self.refs.load(Ordering::Acquire) == LIFE
    }

    /// A new cell's header, with one address reference. Inlined into the closure that makes the
    /// cell's parts, so that it is written straight into the block.
    #[inline(always)]
    pub(crate) fn new(runtime: &Handle, extra: Lazy<Extra<M>>) -> Header<M> {
        Header {
            refs: AtomicUsize::new(LIFE + ONE_ADDR),
            id: next_id(),
            runtime: runtime.clone(),
            // SAFETY: linked by `placed` once the header is in its cell, before any use.
            mailbox: unsafe { Mailbox::unlinked() },
            runnable: UnsafeCell::new(MaybeUninit::uninit()),
            extra,
        }
    }

    /// Parks the runnable of a scoped actor's owner and marks the mailbox idle.
    ///
    /// # Safety
    /// The caller is the single consumer, holds `runnable` (of this cell) and found the mailbox
    /// empty; after [`MarkIdle::Idle`] it must not touch the slot until the runnable comes back
    /// through its home.
    pub(crate) unsafe fn park_idle(
        &self,
        runnable: Runnable<Header<M>>,
    ) -> Result<(), Runnable<Header<M>>> {
        // SAFETY: the caller's contract.
        unsafe { self.park(runnable) };
        // SAFETY: single consumer.
        match unsafe { self.mailbox.try_mark_idle() } {
            MarkIdle::Idle => Ok(()),
            // SAFETY: the mark was not set: the slot is still the caller's.
            MarkIdle::Recheck | MarkIdle::Retry => Err(unsafe { self.unpark() }),
        }
    }

    /// The count of a bounded mailbox.
    #[inline(always)]
    pub(crate) fn bound(&self) -> Option<&Bound> {
        self.extra.as_ref()?.bound.as_ref()
    }

    /// Where a forwarding actor's user messages go.
    #[inline(always)]
    pub(crate) fn forward(&self) -> Option<&Forward<M>> {
        self.extra.as_ref()?.forward.as_ref()
    }

    #[inline]
    pub(crate) fn retain(&self) {
        // Relaxed: the caller already holds a reference, which keeps the cell alive.
        self.refs.fetch_add(ONE_ADDR, Ordering::Relaxed);
    }

    /// Gives up one address reference (see the module docs).
    ///
    /// # Safety
    /// The caller owns one reference to the live cell at `this` and does not use it afterwards.
    pub(crate) unsafe fn release(this: NonNull<Header<M>>) {
        // SAFETY: the caller's reference keeps the header alive until it is given up below.
        let header = unsafe { this.as_ref() };
        let mut refs = header.refs.load(Ordering::Acquire);
        loop {
            if refs == LIFE + ONE_ADDR {
                // Perhaps the last address of a live actor: release it under BUSY, so that the actor
                // notices (see the module docs).
                match header.mailbox.begin_release() {
                    ReleaseStart::Acquired { was_idle } => {
                        header.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
                        header.mailbox.end_release(was_idle);
                        if was_idle {
                            // SAFETY: taking over the idle mark gave this thread the slot; LIFE is
                            // set and only the actor's own turn clears it.
                            unsafe { header.schedule() };
                        }
                        return;
                    }
                    ReleaseStart::Busy => {
                        crate::sync::spin();
                        refs = header.refs.load(Ordering::Acquire);
                        continue;
                    }
                    // The actor is stopping: a plain decrement (it waits for no one).
                    ReleaseStart::Closed => {}
                }
            }
            // AcqRel: Release orders our uses of the cell before its freeing; Acquire (for the one
            // that frees) sees every other holder's uses.
            match header.refs.compare_exchange_weak(
                refs,
                refs - ONE_ADDR,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    if refs == ONE_ADDR {
                        // SAFETY: no address and no LIFE remain: the stopped actor parked its
                        // runnable before clearing LIFE, and nobody else can reach the slot.
                        drop(unsafe { header.unpark() });
                    }
                    return;
                }
                Err(actual) => refs = actual,
            }
        }
    }
}

unsafe fn any_push_signal<M: Send + 'static>(ptr: NonNull<u8>, signal: Box<Signal>) -> bool {
    // SAFETY: `AnyAddr` pairs this function with pointers to `Header<M>` and holds a reference.
    let header = unsafe { ptr.cast::<Header<M>>().as_ref() };
    header.push(Envelope::System(signal)).is_ok()
}

unsafe fn any_retain<M: Send + 'static>(ptr: NonNull<u8>) {
    // SAFETY: as above.
    unsafe { ptr.cast::<Header<M>>().as_ref() }.retain();
}

unsafe fn any_release<M: Send + 'static>(ptr: NonNull<u8>) {
    // SAFETY: as above; the caller gives up its reference.
    unsafe { Header::<M>::release(ptr.cast()) }
}

unsafe fn any_id<M: Send + 'static>(ptr: NonNull<u8>) -> ActorId {
    // SAFETY: as above.
    unsafe { ptr.cast::<Header<M>>().as_ref() }.id
}
