//! Grants: how a behaviour counts the cowns it still waits for ([`Gate`]), and [`grant`], which
//! makes it one grant closer to running and calls the caller's `runnable` with its first request
//! once it has them all.

use std::ptr::NonNull;

use super::slot::Slot;
use crate::sync::atomic::{AtomicU32, Ordering};

/// What a counting behaviour waits for before it can run: the grants still missing (`distinct
/// cowns + 1` at the start, the 1 held by the spawner until its enqueue is complete). It sits right
/// after the behaviour's first request ([`Gate::of`]). A behaviour spawned alone over one cown has
/// none: its only request is tagged single, and its one grant makes it runnable.
#[repr(transparent)]
pub(crate) struct Gate {
    pending: AtomicU32,
}

impl Gate {
    /// A gate for a behaviour over `cowns` distinct cowns: their grants and the spawner's hold.
    pub(crate) fn new(cowns: usize) -> Gate {
        Gate {
            pending: AtomicU32::new(Gate::count(cowns)),
        }
    }

    fn count(cowns: usize) -> u32 {
        u32::try_from(cowns + 1).expect("too many cowns in one behaviour")
    }

    /// Counts `cowns` distinct cowns instead (a behaviour that named some twice). Only before the
    /// behaviour is enqueued.
    pub(crate) fn recount(&self, cowns: usize) {
        // Relaxed: the gate is not shared yet; the enqueue that shares it publishes this.
        self.pending.store(Gate::count(cowns), Ordering::Relaxed);
    }

    /// The gate of the counting behaviour whose first request is `first`: the 32 bits right after
    /// it.
    ///
    /// # Safety
    /// `first` is the first request of a behaviour that is not single, laid out with its gate right
    /// after it, and reached through a pointer to both.
    #[inline(always)]
    pub(crate) unsafe fn of<'a>(first: NonNull<Slot>) -> &'a Gate {
        // SAFETY: the caller's contract.
        unsafe { first.add(1).cast::<Gate>().as_ref() }
    }
}

/// Makes the behaviour of `slot` (a request it has just been granted) one grant closer to running;
/// calls `runnable` with its first request if that was the last.
///
/// # Safety
/// `slot` is a live request still waiting for its grant, reached as [`Slot::first_of`] requires.
// Always inlined: every grant of every behaviour goes through it (in a release, the compiler left
// it a call, measured dearer per behaviour on a chain of single-cown `when`s;
// see docs/measurements/2026-11-29-hot-path-choices.md).
#[inline(always)]
pub(crate) unsafe fn grant(slot: NonNull<Slot>, runnable: &mut impl FnMut(NonNull<Slot>)) {
    // SAFETY: the caller's contract: the behaviour cannot run, so cannot be freed, before this.
    let s = unsafe { slot.as_ref() };
    // The single-cown case first, by itself (a message's path), read from the request's own tags:
    // no other line of the behaviour is touched.
    if s.is_single() {
        runnable(slot);
        return;
    }
    // SAFETY: the caller's contract; a counting behaviour's first request has its gate after it.
    unsafe { resolve_counting(Slot::first_of(slot), 1, runnable) }
}

/// Makes the counting behaviour whose first request is `first` `n` grants closer to running
/// (the spawner's hold and the grants of its enqueue, or one grant of a release); calls
/// `runnable` with `first` if these were the last.
///
/// # Safety
/// `first` is the first request of a live counting behaviour (reached as [`Gate::of`] requires)
/// that still waits for at least `n` grants.
#[inline(always)]
pub(crate) unsafe fn resolve_counting(
    first: NonNull<Slot>,
    n: u32,
    runnable: &mut impl FnMut(NonNull<Slot>),
) {
    // SAFETY: the caller's contract; the gate cannot be freed before its last grant.
    let gate = unsafe { Gate::of(first) };
    // Acquire: if these are the last grants (below), the other grants' release decrements happen
    // before the behaviour runs.
    let pending = gate.pending.load(Ordering::Acquire);
    debug_assert!(pending >= n, "more grants than the behaviour waits for");
    if pending == n {
        // These are the last grants: every other one is counted already, so nobody else writes
        // the gate any more and no atomic read-modify-write is needed (the second grant of a
        // two-cown behaviour, Savina's banking transfers: one locked instruction less each). The
        // load above read the last decrement, so it synchronises with every earlier one (they
        // form one release sequence). The gate is left as it is: nothing reads it again.
        runnable(first);
        return;
    }
    // Release: publishes this thread's protocol writes to whoever takes the count to zero.
    // Acquire: the decrement that takes it to zero reads the end of the release sequence of every
    // earlier one, so the behaviour it makes runnable sees their writes (the cowns' previous
    // holders' writes among them). An acquire on the read-modify-write rather than a separate
    // acquire fence: the same instruction on x86, and an edge ThreadSanitizer sees (it does not
    // model fences, and reported the behaviour's first access to a cown as a race).
    if gate.pending.fetch_sub(n, Ordering::AcqRel) == n {
        runnable(first);
    }
}
