//! The block of a behaviour: the runtime task it is, and how its parts are laid out in the
//! runtime's cell.
//!
//! A behaviour is a motet-runtime task of kind [`Behaviour`]: the runtime allocates its cell, one
//! block, and frees it when the behaviour's runnable is dropped.
//!
//! ```text
//! | header | park | first slot | gate, state | waker, result | closure | later slots |
//!  runtime's \__ Core ______/                                  private   tail
//!            \__ shared part: Core, Counted or Promised ____/    part
//! ```
//!
//! - The runtime's header (16 bytes on 64-bit targets) holds the kind's vtable (how to run, cancel
//!   and free the behaviour) and the tail's length, the number of requests after the first.
//! - The shared part starts with a [`Core`]: the [`Park`], where the behaviour's runnable waits
//!   while the behaviour waits for its cowns (and, with a promise, once it has run), and the
//!   behaviour's first request, which stands for the behaviour in the protocol. A behaviour over
//!   several cowns has its gate right after it ([`Counted`]); a behaviour with a promise has the
//!   gate (unused if it names one cown), the completion state, the waker cell and the result cell
//!   ([`Promised`]). A detached behaviour over one cown has the core alone.
//! - The private part is the closure, which only the behaviour's turn touches.
//! - The tail holds the requests after the first ([`LaterSlot`]s), none for a behaviour over one
//!   cown.
//!
//! A detached behaviour over one cown whose closure captures nothing is a 40-byte block; with a
//! promise of `()` it is 80. The size is what a chain of pending behaviours costs in memory
//! traffic: a million pending `when`s on one cown are a million blocks, written at spawn and read
//! back when they run.
//!
//! Everything a behaviour's code reaches without knowing its kind (a grant, a hand-over, a chain
//! step) it reaches from the behaviour's first request, at a fixed place: the park just before it,
//! the gate just after it, the cown it names (and so the runtime the behaviour runs on) in it.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;

use motet_runtime::task::{Erased, Running, Task, TaskWithTail, Turn};
use motet_runtime::{Handle, Runnable};

use crate::blocks::Blocks;
use crate::completion::{Completion, WakerCell};
use crate::cown::CownHeader;
use crate::error::WhenError;
use crate::protocol::{Gate, LaterSlot, Slot};
use crate::set::Shape;

/// Where a behaviour's runnable waits: from its spawn until whoever grants its last cown takes it
/// out to schedule it, and, for a behaviour with a promise, from its completion until the last of
/// the behaviour and its promise takes it out to drop it (which frees the block). Empty while the
/// behaviour is scheduled or runs. Never dropped with the block: whoever frees a block takes its
/// runnable out first.
pub(crate) struct Park(UnsafeCell<MaybeUninit<Runnable<Erased>>>);

impl Park {
    fn empty() -> Park {
        Park(UnsafeCell::new(MaybeUninit::uninit()))
    }
}

/// The part of the shared part of every behaviour (at its start): the park and the first request.
#[repr(C)]
pub(crate) struct Core {
    park: Park,
    first: Slot,
}

// SAFETY: the park is written and read by one thread at a time, the one that holds the behaviour's
// runnable or the right to it (see `park`, `unpark`), with the protocol's release and acquire
// between them; the first slot is `Sync`.
unsafe impl Sync for Core {}
// SAFETY: as above; a runnable is `Send`.
unsafe impl Send for Core {}

impl Core {
    /// A core whose first request is `first`, with an empty park.
    pub(crate) fn new(first: Slot) -> Core {
        Core {
            park: Park::empty(),
            first,
        }
    }
}

/// The shared part of a detached behaviour over several cowns: the core and the gate right after
/// the first request.
#[repr(C)]
pub(crate) struct Counted {
    core: Core,
    gate: Gate,
}

/// What a behaviour leaves for its promise. The error is boxed: errors are rare, and a boxed one
/// keeps the cell at the size of `R` plus a word (16 bytes for `()`, not 24).
pub(crate) type Outcome<R> = Result<R, Box<WhenError>>;

/// The shared part of a behaviour with a promise: the core, the gate (read only if the behaviour
/// counts its grants), the completion's state word packed beside it, the waker cell and the
/// result. Its layout does not depend on the closure or on the number of cowns, so a
/// [`Promise<R>`](crate::Promise) reaches all of it.
#[repr(C)]
pub(crate) struct Promised<R> {
    core: Core,
    gate: Gate,
    pub(crate) completion: Completion,
    pub(crate) waker: WakerCell,
    pub(crate) result: UnsafeCell<Option<Outcome<R>>>,
}

// SAFETY: the result is written by the behaviour before its completion and read by the promise
// after it (the completion's protocol orders them), and the waker cell is handed over by that
// protocol too; the rest is the core's and atomics.
unsafe impl<R: Send> Sync for Promised<R> {}
// SAFETY: as above.
unsafe impl<R: Send> Send for Promised<R> {}

/// A shared part: [`Core`], [`Counted`] or [`Promised`], each `#[repr(C)]` with its core first
/// (so at offset 0) and, for the last two, the gate right after the first request.
pub(crate) trait BlockShared: Send + Sync + 'static {}

impl BlockShared for Core {}
impl BlockShared for Counted {}
impl<R: Send + 'static> BlockShared for Promised<R> {}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(Counted, core) == 0 && offset_of!(Promised<()>, core) == 0);
    assert!(offset_of!(Counted, gate) == offset_of!(Core, first) + size_of::<Slot>());
    assert!(offset_of!(Promised<()>, gate) == offset_of!(Core, first) + size_of::<Slot>());
    // The completion's state word fills the rest of the gate's word.
    assert!(offset_of!(Promised<()>, completion) == offset_of!(Promised<()>, gate) + 4);
};

#[cfg(all(target_pointer_width = "64", not(loom)))]
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<Core>() == 24);
    assert!(size_of::<Counted>() == 32);
    assert!(size_of::<Promised<()>>() == 64);
};

/// The first request of the block whose shared part is `shared`, through a pointer to the whole
/// shared part (which reaches the park before it and the gate after it).
#[inline(always)]
pub(crate) fn first_of<S: BlockShared>(shared: &S) -> NonNull<Slot> {
    // SAFETY: every shared part has its core at offset 0 (`BlockShared`), whose first request is
    // at a fixed offset; the pointer keeps the whole shared part's provenance.
    unsafe {
        NonNull::from(shared)
            .cast::<Core>()
            .byte_add(std::mem::offset_of!(Core, first))
            .cast::<Slot>()
    }
}

/// The size of the runtime's header of a cell on 64-bit targets, assumed only by prefetch hints.
pub(crate) const HEADER: usize = 16;

/// Where the block of the behaviour whose first request is assumed to be at `first` starts, for a
/// prefetch hint only: an address computed without reading anything, never dereferenced.
#[inline(always)]
pub(crate) fn block_start(first: NonNull<Slot>) -> *const u8 {
    first
        .as_ptr()
        .cast::<u8>()
        .cast_const()
        .wrapping_sub(HEADER + std::mem::offset_of!(Core, first))
}

/// The core of the behaviour whose first request is `first`.
///
/// # Safety
/// `first` is the first request of a live behaviour, reached through a pointer to its whole shared
/// part (as [`first_of`] makes them).
#[inline(always)]
unsafe fn core_of(first: NonNull<Slot>) -> NonNull<Core> {
    // SAFETY: the caller's contract.
    unsafe {
        first
            .byte_sub(std::mem::offset_of!(Core, first))
            .cast::<Core>()
    }
}

/// The shared part of the behaviour with a promise whose first request is `first`.
///
/// # Safety
/// As for [`core_of`], of a behaviour whose shared part is a `Promised<R>`.
#[inline(always)]
pub(crate) unsafe fn promised_of<R>(first: NonNull<Slot>) -> NonNull<Promised<R>> {
    // SAFETY: the caller's contract; the core is at offset 0 of `Promised<R>`.
    unsafe { core_of(first) }.cast()
}

/// Parks the behaviour's runnable in its block.
///
/// # Safety
/// `first` is reached as for [`core_of`]; the park is empty and the caller holds the runnable, and
/// nobody reads the park before the caller publishes the park with a release operation of the
/// protocol (its enqueue, or the completion).
#[inline(always)]
pub(crate) unsafe fn park(first: NonNull<Slot>, runnable: Runnable<Erased>) {
    // SAFETY: the caller's contract: the park is empty and only this thread touches it (a plain
    // write, no drop).
    unsafe { (*core_of(first).as_ref().park.0.get()).write(runnable) };
}

/// Takes the behaviour's runnable out of its block, leaving the park empty.
///
/// # Safety
/// `first` is reached as for [`core_of`]; the caller owns the park, which holds the runnable: it
/// made the behaviour runnable (its last grant, or its spawn with every cown granted), or it is the
/// last of a completed behaviour and its promise. Whoever parked it published the park with a
/// release operation that the caller acquired.
#[inline(always)]
pub(crate) unsafe fn unpark(first: NonNull<Slot>) -> Runnable<Erased> {
    // SAFETY: the caller's contract.
    unsafe { (*core_of(first).as_ref().park.0.get()).assume_init_read() }
}

/// The cown named first by the behaviour whose first request is `first`: where it runs.
///
/// # Safety
/// `first` is live and not released (its cown is then alive).
#[inline(always)]
pub(crate) unsafe fn first_cown<'a>(first: NonNull<Slot>) -> &'a CownHeader {
    // SAFETY: the caller's contract.
    unsafe { CownHeader::from_queue(first.as_ref().queue()) }
}

/// The runtime the behaviour whose first request is `first` runs on.
///
/// # Safety
/// As for [`first_cown`].
#[inline(always)]
pub(crate) unsafe fn runtime_of<'a>(first: NonNull<Slot>) -> &'a Handle {
    // SAFETY: the caller's contract.
    &unsafe { first_cown(first) }.runtime
}

/// How a behaviour waits for its cowns: alone over one ([`One`]), or counting its grants
/// ([`Many`]: several cowns, or a member of a batch).
pub(crate) trait Gating: 'static {
    /// Whether the behaviour's only request is tagged single (no gate).
    const SINGLE: bool;
    /// The shared part of a detached behaviour.
    type Detached: BlockShared;
    /// The shared part of a detached behaviour from its core and the number of its cowns.
    fn detached(core: Core, cowns: usize) -> Self::Detached;
}

/// A behaviour spawned alone over one cown: no gate, no later slots.
pub(crate) enum One {}
/// A behaviour that counts its grants.
pub(crate) enum Many {}

impl Gating for One {
    const SINGLE: bool = true;
    type Detached = Core;
    #[inline(always)]
    fn detached(core: Core, _: usize) -> Core {
        core
    }
}

impl Gating for Many {
    const SINGLE: bool = false;
    type Detached = Counted;
    #[inline(always)]
    fn detached(core: Core, cowns: usize) -> Counted {
        Counted {
            core,
            gate: Gate::new(cowns),
        }
    }
}

/// What a behaviour does with its result: drop it ([`Detached`], spawned by
/// [`when_detached`](crate::when_detached)) or hand it to a promise ([`WithPromise`]).
pub(crate) trait Head<R>: 'static {
    /// Whether storing an outcome whose `R` needs no `drop` and completing run no code that may
    /// unwind (a detached behaviour: no promise, so no waker to wake or drop).
    const UNWIND_FREE: bool;
    /// The shared part of a behaviour of this head.
    type Shared<G: Gating>: BlockShared;
    /// The shared part from its core and the number of the behaviour's cowns.
    fn shared<G: Gating>(core: Core, cowns: usize) -> Self::Shared<G>;
    /// Keeps the closure's outcome for the promise, or drops it.
    fn store<G: Gating>(shared: &Self::Shared<G>, outcome: Outcome<R>);
    /// After the releases: hands the outcome over and ends the task, or leaves its end to the
    /// promise (see [`crate::completion`]).
    fn complete<K: Kind<Shared = Self::Shared<G>>, G: Gating>(task: Running<K>);
}

/// A behaviour without a promise: its outcome is dropped (a panic has been reported by the panic
/// hook), and it ends its task as soon as it is done.
pub(crate) enum Detached {}
/// A behaviour with a promise.
pub(crate) enum WithPromise {}

impl<R: Send + 'static> Head<R> for Detached {
    const UNWIND_FREE: bool = true;
    type Shared<G: Gating> = G::Detached;

    #[inline(always)]
    fn shared<G: Gating>(core: Core, cowns: usize) -> G::Detached {
        G::detached(core, cowns)
    }

    #[inline(always)]
    fn store<G: Gating>(_: &G::Detached, outcome: Outcome<R>) {
        drop(outcome);
    }

    #[inline(always)]
    fn complete<K: Kind<Shared = G::Detached>, G: Gating>(task: Running<K>) {
        K::end(task);
    }
}

impl<R: Send + 'static> Head<R> for WithPromise {
    const UNWIND_FREE: bool = false;
    type Shared<G: Gating> = Promised<R>;

    #[inline(always)]
    fn shared<G: Gating>(core: Core, cowns: usize) -> Promised<R> {
        Promised {
            core,
            gate: Gate::new(cowns),
            completion: Completion::new(),
            waker: WakerCell::new(),
            result: UnsafeCell::new(None),
        }
    }

    #[inline(always)]
    fn store<G: Gating>(shared: &Promised<R>, outcome: Outcome<R>) {
        // SAFETY: only the running (or cancelled) behaviour writes the result, before its
        // completion; the promise reads it only after.
        unsafe { *shared.result.get() = Some(outcome) };
    }

    #[inline(always)]
    fn complete<K: Kind<Shared = Promised<R>>, G: Gating>(task: Running<K>) {
        let completion = NonNull::from(&task.completion);
        // SAFETY: the runnable keeps the block alive.
        if unsafe { completion.as_ref() }.promise_gone() {
            K::end(task);
            return;
        }
        let first = first_of::<Promised<R>>(&task);
        let waker = NonNull::from(&task.waker);
        // SAFETY: the behaviour holds its runnable and its park is empty; `complete` publishes the
        // park to the promise.
        unsafe { park(first, task.into_runnable().erase()) };
        // SAFETY: the parked runnable keeps the block alive until the last side takes it out, and
        // that is this side only if `complete` says so.
        if unsafe { completion.as_ref().complete(waker.as_ref()) } {
            // SAFETY: the promise is gone and was the last to touch the block but us: the park is
            // ours again.
            drop(unsafe { unpark(first) });
        }
    }
}

/// The task kind of a behaviour whose cowns have shape `Sh`, whose closure `F` returns `R`, with
/// head `H` and gating `G`.
pub(crate) struct Behaviour<Sh, F, R, H, G>(PhantomData<KindOf<Sh, F, R, H, G>>);

/// What a [`Behaviour`] kind is made of: a type that is `Send`, `Sync` and `'static` whatever its
/// parameters are (the kind is a marker, never a value).
type KindOf<Sh, F, R, H, G> = fn() -> (Sh, F, R, H, G);

/// The behaviours' task kinds, with what their code needs to know of them.
pub(crate) trait Kind: Task<Private = ManuallyDrop<Self::F>, Shared: BlockShared> {
    /// The shape of the cowns.
    type Sh: Shape;
    /// The closure.
    type F: for<'a> FnOnce(<Self::Sh as Shape>::View<'a>) -> Self::R + Send + 'static;
    /// The closure's result.
    type R: Send + 'static;
    /// What happens to the result.
    type H: Head<Self::R>;
    /// How the behaviour waits for its cowns.
    type G: Gating;
    /// The requests after the first.
    fn later(task: &Running<Self>) -> &[LaterSlot];
    /// The outcome of the closure, stored.
    fn store(task: &Running<Self>, outcome: Outcome<Self::R>);
    /// The end of the behaviour once its cowns are released (see [`Head::complete`]).
    fn complete(task: Running<Self>);
    /// Ends the task, as dropping it does. A behaviour over several cowns has its block (from
    /// [`Blocks`], with a tail) freed by code inlined here, where the drop calls the kind's free,
    /// which computes the block's size class from the tail's length; that is a constant where the
    /// shape says how many cowns the behaviour names. A single-cown behaviour's task is
    /// dropped: its free is a short call, and inlined with the check that the block is from
    /// [`Blocks`] it was no cheaper.
    fn end(task: Running<Self>);
}

/// The task and the kind of both gatings, which differ in their later requests (`$later`, of
/// the running task `$task`) and in the end of their task (`$end`, of the task `$ended`; see
/// [`Kind::end`]): each turn runs the behaviour and the chain it starts
/// ([`super::run`]); a shut-down runtime cancels it ([`super::cancel`]).
macro_rules! behaviour_task {
    ($gating:ident, |$task:ident| $later:expr, |$ended:ident| $end:expr) => {
        impl<Sh, F, R, H> Task for Behaviour<Sh, F, R, H, $gating>
        where
            Sh: Shape,
            F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
            R: Send + 'static,
            H: Head<R>,
        {
            type Shared = H::Shared<$gating>;
            type Private = ManuallyDrop<F>;

            #[inline]
            fn run(task: Running<Self>) -> Turn<Self::Shared> {
                #[cfg(feature = "tracing")]
                let _span = tracing::trace_span!(target: "motet::boc", "behaviour").entered();
                super::run::run(task);
                Turn::Idle
            }

            fn shutdown(task: Running<Self>) {
                super::cancel::shutdown(task);
            }

            /// One step, for a chain that reached this behaviour from another kind's turn (see
            /// `run::run_chain`): the word is the [`Step`](super::step::Step) it left.
            #[inline]
            fn call(task: Running<Self>, _: usize) -> usize {
                super::step::step(task).into_word()
            }
        }

        impl<Sh, F, R, H> Kind for Behaviour<Sh, F, R, H, $gating>
        where
            Sh: Shape,
            F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
            R: Send + 'static,
            H: Head<R>,
        {
            type Sh = Sh;
            type F = F;
            type R = R;
            type H = H;
            type G = $gating;

            #[inline(always)]
            fn later($task: &Running<Self>) -> &[LaterSlot] {
                $later
            }

            #[inline(always)]
            fn store(task: &Running<Self>, outcome: Outcome<R>) {
                H::store::<$gating>(task, outcome);
            }

            #[inline(always)]
            fn complete(task: Running<Self>) {
                H::complete::<Self, $gating>(task);
            }

            #[inline(always)]
            fn end($ended: Running<Self>) {
                $end
            }
        }
    };
}

behaviour_task!(One, |_task| &[], |task| drop(task));
behaviour_task!(Many, |task| task.tail(), |task| {
    // A set of `WRITERS` cowns known from its type makes `WRITERS - 1` later requests.
    let later = <Sh as Shape>::WRITERS.checked_sub(1);
    task.end_with_tail_in::<Blocks>(later)
});

impl<Sh, F, R, H> TaskWithTail for Behaviour<Sh, F, R, H, Many>
where
    Sh: Shape,
    F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    type Tail = LaterSlot;
}
