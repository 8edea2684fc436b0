//! Grants: how a behaviour counts the cowns it still waits for ([`Gate`]), and [`resolve`], which
//! makes it runnable once it has them all.

use std::ptr::NonNull;

use crate::sync::atomic::{fence, AtomicU32, Ordering};

/// The gate value of a lone behaviour over one cown: no count, its one grant schedules it.
const SINGLE: u32 = u32::MAX;

/// What a behaviour waits for before it can run: the grants still missing (`distinct cowns + 1` at
/// the start, the 1 held by the spawner until its enqueue is complete), or [`SINGLE`] for a lone
/// behaviour over one cown, whose single grant schedules it without counting.
pub(crate) struct Gate {
    pending: AtomicU32,
}

impl Gate {
    /// A gate for a behaviour over `cowns` distinct cowns, spawned alone (`single` when exactly one
    /// cown) or in a batch.
    pub(crate) fn new(cowns: usize, alone: bool) -> Gate {
        let pending = if alone && cowns == 1 {
            SINGLE
        } else {
            u32::try_from(cowns + 1)
                .ok()
                .filter(|&n| n != SINGLE)
                .expect("too many cowns in one behaviour")
        };
        Gate {
            pending: AtomicU32::new(pending),
        }
    }

    /// The gate's word, for its behaviour's own use once the behaviour is runnable: the gate is
    /// then spent (no grant is left to count) and the protocol never reads it again.
    pub(crate) fn spent(&self) -> &AtomicU32 {
        &self.pending
    }

    /// Spends a counting gate without counting: for a behaviour granted every cown during its own
    /// enqueue, which its spawner makes runnable at once (no other thread holds a grant to count).
    /// A spent gate holds 0 (or [`SINGLE`]), which its behaviour tells apart from the states it
    /// later keeps there (see [`Gate::spent`]).
    #[inline]
    pub(crate) fn spend(&self) {
        // Relaxed: nobody else reads the gate of a behaviour that waits for no grant; the
        // scheduling that follows publishes the store to the thread that runs it.
        self.pending.store(0, Ordering::Relaxed);
    }

    /// Whether this gate skips counting.
    #[inline(always)]
    pub(crate) fn is_single(&self) -> bool {
        // Relaxed: a single gate never changes, and a counting one never holds `SINGLE`.
        self.pending.load(Ordering::Relaxed) == SINGLE
    }
}

/// Makes `gate`'s behaviour `n` grants closer to running; calls `runnable` if that was the last.
///
/// # Safety
/// `gate` is live and still waits for at least `n` grants.
// Always inlined: every grant of every behaviour goes through it (in a release, the compiler left
// it a call, which callgrind measured at about 5 instructions more per behaviour on a chain of
// single-cown `when`s).
#[inline(always)]
pub(crate) unsafe fn resolve(
    gate: NonNull<Gate>,
    n: u32,
    runnable: &mut impl FnMut(NonNull<Gate>),
) {
    // SAFETY: the caller's contract; the gate cannot be freed before its last grant.
    let g = unsafe { gate.as_ref() };
    // The single-cown case first, by itself (a message's path: loading the count once for both
    // checks let the compiler test the count first, 4 to 6 instructions more per message on
    // Savina's count, measured with callgrind).
    if g.is_single() {
        runnable(gate);
        return;
    }
    // SAFETY: the caller's contract; not a single gate.
    unsafe { resolve_counting(gate, n, runnable) }
}

/// [`resolve`] for a gate its caller knows to count (a behaviour over several cowns, or one of a
/// batch): the spawner's hold of a multi-cown spawn, which skips the check for a single gate.
///
/// # Safety
/// As for [`resolve`], and the gate is not single.
#[inline(always)]
pub(crate) unsafe fn resolve_counting(
    gate: NonNull<Gate>,
    n: u32,
    runnable: &mut impl FnMut(NonNull<Gate>),
) {
    // SAFETY: the caller's contract; the gate cannot be freed before its last grant.
    let g = unsafe { gate.as_ref() };
    debug_assert!(!g.is_single(), "a single gate does not count");
    // Acquire: if these are the last grants (below), the other grants' release decrements happen
    // before the behaviour runs.
    let pending = g.pending.load(Ordering::Acquire);
    if pending == n {
        // These are the last grants: every other one is counted already, so nobody else writes
        // the gate any more and no atomic read-modify-write is needed (the second grant of a
        // two-cown behaviour, Savina's banking transfers: one locked instruction less each). The
        // load above read the last decrement, so it synchronises with every earlier one (they
        // form one release sequence). Spent, as `Gate::spend` leaves it (its behaviour keeps
        // other states there later); relaxed, published by the scheduling that follows.
        g.pending.store(0, Ordering::Relaxed);
        runnable(gate);
        return;
    }
    // Release: publishes this thread's protocol writes to whoever takes the count to zero; that
    // thread's acquire fence pairs with every earlier decrement (they form one release sequence).
    if g.pending.fetch_sub(n, Ordering::Release) == n {
        fence(Ordering::Acquire);
        runnable(gate);
    }
}
