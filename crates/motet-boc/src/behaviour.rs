//! Behaviours: one allocation each, spawned by [`when`], [`when_detached`] and [`Batch`], run as
//! motet-runtime tasks.
//!
//! # The block
//!
//! A behaviour is one allocation from the per-thread cache (see [`crate::blocks`]):
//!
//! ```text
//! | Core: task header, gate, ops, ... | completion, result cell | closure | slots[n] |
//!                                       (with a promise only)
//! ```
//!
//! The [`TaskHeader`] at offset 0 makes the block a runtime task; the [`Gate`] and the slots are
//! the behaviour's part of the dependency graph ([`crate::protocol`]); the [`Completion`] and the
//! result cell ([`Head`]) are the behaviour's side of its [`Promise`], and a detached behaviour
//! has neither (the block's code is generic over the two heads, see `BlockHead`). Nothing else is
//! allocated per behaviour: a fire-and-forget `when` costs one block, and so does a `when` whose
//! promise is kept.
//!
//! # Life of a behaviour
//!
//! 1. *Spawn* (`when`): the block is filled, the slots are sorted by cown id (a duplicated cown is
//!    acquired once; with write access it is rejected), backpressure is applied, and the slots are
//!    enqueued (two-phase over several cowns). The spawner returns the promise at once.
//! 2. *Runnable*: whoever grants the last cown schedules the task on the runtime of the behaviour's
//!    first cown: into the current worker's next-task slot when that is a worker of the runtime, so
//!    a behaviour that makes exactly one successor runnable hands it over to its own worker. A
//!    behaviour spawned by a running behaviour and granted all its cowns at once is kept by the
//!    spawning worker and run right after its spawner (see `hand_over`), before the spawner's own
//!    successor on its first cown if the release made that runnable too (see `after_step`).
//! 3. *Run*: the closure runs once, under `catch_unwind`, with the values of its cowns.
//! 4. *Release*: every slot is released (successors become runnable), then the result is handed to
//!    the promise, and the block is freed by the last of the behaviour and its promise (a
//!    detached behaviour drops its result and frees its block at once).
//!
//! A panicking closure is step 3 returning an error: its cowns are released as usual and the
//! promise gets [`WhenError::Panicked`]. A task shut down by its runtime (scheduled after or during
//! shutdown) skips step 3: the closure is dropped and the promise gets [`WhenError::Cancelled`]
//! (a panic in the closure's `drop` is reported by the panic hook and does not stop the release).

use std::alloc::Layout;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::collections::BTreeMap;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::Mutex;

use motet_runtime::alloc::BlockCache;
use motet_runtime::task::legacy::{self, RunOutcome, TaskHeader, TaskRef, TaskVTable};
use motet_runtime::Handle;

use crate::backpressure::Bound;
use crate::blocks::Blocks;
use crate::completion::Completion;
use crate::cown::CownHeader;
use crate::error::{panic_message, WhenError};
use crate::promise::Promise;
use crate::protocol::{self, Gate, Grant, Queue, Slot};
use crate::scratch::Scratch;
use crate::set::{CownSet, Shape, SlotView, SlotWriter};
use crate::sync::atomic::Ordering;
use motet_runtime::hint::prefetch;

/// The state of a behaviour whose release backpressure defers, kept in its spent gate (see
/// [`Gate::spent`]). A fresh runnable behaviour's spent gate holds 0, or `u32::MAX` alone on one cown; a
/// deferred one holds neither: bit 1 (`DEFERRED`) is always set and bit 31 never, bit 0 is set
/// after the task's first turn at the back of the queue (a check that then finds the bounded cown
/// without progress since the previous one releases), and bits 2 to 30 hold the bounded cown's
/// completion count when last checked, modulo 2^29 (only changes matter). So the gate word alone
/// says whether a turn of the task is the closure's or a deferred release's, and the block needs
/// no field of its own for it (the bounded cown itself waits in [`DEFERRED_ON`]).
#[derive(Clone, Copy)]
struct Deferral(u32);

impl Deferral {
    const TURNED: u32 = 0b01;
    const DEFERRED: u32 = 0b10;
    const COUNT_MASK: u32 = (1 << 29) - 1;

    fn encode(completed: usize, turned: bool) -> Deferral {
        let count = (completed as u32) & Deferral::COUNT_MASK;
        Deferral((count << 2) | Deferral::DEFERRED | if turned { Deferral::TURNED } else { 0 })
    }

    /// Just deferred, with the bounded cown at `completed` completions.
    fn new(completed: usize) -> Deferral {
        Deferral::encode(completed, false)
    }

    /// After a turn, with the bounded cown at `completed` completions.
    fn turned(completed: usize) -> Deferral {
        Deferral::encode(completed, true)
    }

    /// Whether a spent gate word holds a deferral (rather than the 0 or `SINGLE` of a behaviour
    /// whose closure has not run).
    #[inline(always)]
    fn is_deferral(word: u32) -> bool {
        // 0 and u32::MAX are the two words that are not deferrals: one add and one compare.
        word.wrapping_add(1) > 1
    }

    fn has_turned(self) -> bool {
        self.0 & Deferral::TURNED != 0
    }

    /// Whether the count moved since this state was recorded.
    fn progressed(self, completed: usize) -> bool {
        self.0 >> 2 != (completed as u32) & Deferral::COUNT_MASK
    }
}

/// The bounded cowns whose backlog defers the release of a behaviour (each holding one reference),
/// by the address of the behaviour's block: set when the closure returns with a deferral pending,
/// taken by the release. Deferrals are rare (a producer outrunning a bounded cown), so a locked map
/// serves them, and every block is a word smaller than with a field for it (a single-cown
/// detached behaviour fits 48 bytes).
static DEFERRED_ON: Mutex<BTreeMap<usize, SendPtr<CownHeader>>> = Mutex::new(BTreeMap::new());

/// A pointer kept in [`DEFERRED_ON`].
struct SendPtr<T>(NonNull<T>);

// SAFETY: the pointer is a reference to a cown header (`Sync`: its shared state is atomic or
// immutable), handed from the thread that deferred the behaviour to the one that releases it.
unsafe impl<T> Send for SendPtr<T> {}

/// The side table, locked (a panic while it was held left no half-made entry: each use is one
/// map operation).
fn deferred_table() -> std::sync::MutexGuard<'static, BTreeMap<usize, SendPtr<CownHeader>>> {
    DEFERRED_ON.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records that `core`'s release is deferred on `bounded` (holding one reference to it).
#[cold]
fn defer_on(core: NonNull<Core>, bounded: NonNull<CownHeader>) {
    let previous = deferred_table().insert(core.as_ptr().addr(), SendPtr(bounded));
    debug_assert!(previous.is_none(), "a behaviour deferred twice");
}

/// The bounded cown `core`'s release is deferred on (see [`defer_on`]), left in place.
#[cold]
fn deferred_on(core: NonNull<Core>) -> Option<NonNull<CownHeader>> {
    deferred_table().get(&core.as_ptr().addr()).map(|p| p.0)
}

/// Takes the bounded cown `core`'s release was deferred on (with its reference).
#[cold]
fn take_deferred_on(core: NonNull<Core>) -> Option<NonNull<CownHeader>> {
    deferred_table().remove(&core.as_ptr().addr()).map(|p| p.0)
}

/// The type-specific operations of a behaviour, for code that does not know its types.
struct Ops {
    /// Runs the behaviour once it is runnable (see [`step`]).
    step: unsafe fn(NonNull<Core>) -> Step,
    /// Drops the closure unrun and completes with `Cancelled` (or, once the closure ran, just
    /// completes).
    cancel: unsafe fn(NonNull<Core>),
    /// Drops what the block still holds and frees it.
    free: unsafe fn(NonNull<Core>),
    /// Where the slots start, in bytes from the block's start (the same for every block of one
    /// type, whatever the number of slots).
    slots_offset: usize,
}

/// The untyped head of every behaviour block: 24 bytes on 64-bit targets (the slots' offset lives
/// in `Ops`, the 4-byte fields are paired, and a deferred release keeps its state in the spent gate
/// and its bounded cown in a side table, [`DEFERRED_ON`]). A detached behaviour
/// ([`when_detached`]) is this core, its closure and its slots: a single-cown one whose closure
/// captures nothing is a 48-byte block. A behaviour with a promise ([`when`]) adds the promise's
/// side after the core ([`Head`]). The block size is what a chain of pending behaviours costs in
/// memory traffic: a million pending `when`s on one cown are a million blocks, written at spawn and
/// read back when they run.
#[repr(C)]
pub(crate) struct Core {
    /// At offset 0: the block is a runtime task.
    task: TaskHeader,
    /// The behaviour's grant count (the protocol points to it); once spent, the state of a
    /// deferred release ([`Deferral`]).
    gate: Gate,
    /// How many slots follow the block (at `ops.slots_offset`).
    nslots: u32,
    ops: &'static Ops,
}

#[cfg(all(target_pointer_width = "64", not(loom)))]
const _: () = assert!(std::mem::size_of::<Core>() == 16 + std::mem::size_of::<TaskHeader>());

/// The head of a block with a promise: the core, the result hand-over and the result cell.
/// `Head<R>`'s layout does not depend on the closure, so a `Promise<R>` finds both.
#[repr(C)]
pub(crate) struct Head<R> {
    core: Core,
    /// The result hand-over with the promise.
    pub(crate) completion: Completion,
    pub(crate) result: UnsafeCell<Option<Outcome<R>>>,
}

/// What a behaviour leaves for its promise. The error is boxed: errors are rare, and a boxed one
/// keeps the cell at the size of `R` plus a word (16 bytes for `()`, not 24), which is one size
/// class less for the block of a two-cown `when` returning `()`.
pub(crate) type Outcome<R> = Result<R, Box<WhenError>>;

/// What a block holds before its closure: a [`Head`] for a behaviour with a promise, the bare
/// [`Core`] for a detached one. The block's code is generic over it, so a detached behaviour
/// skips the result cell and the hand-over at compile time.
trait BlockHead<R>: Sized {
    /// Whether storing an outcome whose `R` needs no `drop`, completing and clearing run no code
    /// that may unwind (a detached behaviour: no promise, so no waker to wake or drop).
    const UNWIND_FREE: bool;

    /// The head of a fresh block.
    fn new(core: Core) -> Self;

    /// Keeps the closure's outcome for the promise, or drops it (detached).
    ///
    /// # Safety
    /// `this` is the head of a live block whose behaviour runs (or is cancelled) on this thread,
    /// before its completion.
    unsafe fn store(this: *mut Self, outcome: Outcome<R>);

    /// After the release: hands the outcome over; returns whether the behaviour must now free the
    /// block.
    ///
    /// # Safety
    /// As for [`BlockHead::store`], once the outcome is stored; the caller does not touch the
    /// block afterwards unless this returned true.
    unsafe fn complete(this: *const Self) -> bool;

    /// Drops what the head still owns, before its block is freed.
    ///
    /// # Safety
    /// The caller is the last user of the block.
    unsafe fn clear(this: *mut Self);
}

impl<R> BlockHead<R> for Head<R> {
    const UNWIND_FREE: bool = false;

    #[inline(always)]
    fn new(core: Core) -> Self {
        Head {
            core,
            completion: Completion::new(),
            result: UnsafeCell::new(None),
        }
    }

    #[inline(always)]
    unsafe fn store(this: *mut Self, outcome: Outcome<R>) {
        // SAFETY: the caller's contract: only the running behaviour writes the result before
        // completion.
        unsafe { *(*this).result.get() = Some(outcome) };
    }

    #[inline(always)]
    unsafe fn complete(this: *const Self) -> bool {
        // SAFETY: the caller's contract.
        unsafe { (*this).completion.complete() }
    }

    #[inline(always)]
    unsafe fn clear(this: *mut Self) {
        // SAFETY: the caller's contract: nobody else can reach the block.
        unsafe {
            (*this).completion.clear();
            ptr::drop_in_place((*this).result.get());
        }
    }
}

/// A detached behaviour has no promise: its outcome is dropped (a panic has been reported by the
/// panic hook), and the behaviour frees its block as soon as it is done.
impl<R> BlockHead<R> for Core {
    const UNWIND_FREE: bool = true;

    #[inline(always)]
    fn new(core: Core) -> Self {
        core
    }

    #[inline(always)]
    unsafe fn store(_: *mut Self, outcome: Outcome<R>) {
        drop(outcome);
    }

    #[inline(always)]
    unsafe fn complete(_: *const Self) -> bool {
        true
    }

    #[inline(always)]
    unsafe fn clear(_: *mut Self) {}
}

/// A whole block, less its slots, which follow it: a head (`Head<R>` or `Core`) and the closure.
#[repr(C)]
struct Block<H, F> {
    head: H,
    closure: UnsafeCell<ManuallyDrop<F>>,
}

thread_local! {
    /// The behaviour whose closure runs on this thread, if any, and the bounded cown its release
    /// is deferred on if backpressure defers it (see [`throttle`]).
    static CURRENT: Cell<Running> = const { Cell::new(Running::NONE) };
    /// Set while this thread cancels behaviours at shutdown; nested cancellations queue here
    /// instead of recursing through the runtime's `schedule`.
    static CANCELLING: Cell<bool> = const { Cell::new(false) };
    static TO_CANCEL: RefCell<Vec<NonNull<Core>>> = const { RefCell::new(Vec::new()) };
    /// A behaviour spawned by the closure running on this thread and granted all its cowns at
    /// spawn, kept for this thread to run next (see [`hand_over`]).
    static HANDOFF: Cell<Option<Kept>> = const { Cell::new(None) };
    /// A successor made runnable and set aside for a spawned behaviour to run first (see
    /// [`after_step`]): this thread runs it once that behaviour's chain is done.
    static LATER: Cell<Option<NonNull<Core>>> = const { Cell::new(None) };
}

/// A behaviour kept by [`hand_over`]. Whether it names several cowns is read from its block's
/// `nslots` (a line the spawn has just written), only where a kept behaviour meets a successor
/// (see [`spawned_or_successor`]). (Kept as a tag bit of the address instead, every hand-over
/// cleared the bit, and the compiler did it in three instructions where the choice was inlined:
/// measured with callgrind, two more per hop on Savina's pingpong.)
#[derive(Clone, Copy)]
struct Kept(NonNull<Core>);

impl Kept {
    #[inline(always)]
    fn new(core: NonNull<Core>, many: bool) -> Kept {
        let kept = Kept(core);
        debug_assert_eq!(kept.many(), many);
        kept
    }

    /// The kept behaviour.
    #[inline(always)]
    fn core(self) -> NonNull<Core> {
        self.0
    }

    /// Whether the kept behaviour names several cowns (distinct ones: a behaviour kept by
    /// [`hand_over`] names one cown, or several distinct ones granted at spawn).
    #[inline(always)]
    fn many(self) -> bool {
        // SAFETY: a kept behaviour is runnable and not run yet: its block is alive.
        unsafe { self.0.as_ref() }.nslots > 1
    }
}

/// What [`CURRENT`] holds.
#[derive(Clone, Copy)]
struct Running {
    core: Option<NonNull<Core>>,
    /// The bounded cown whose backlog defers `core`'s release, holding one reference.
    deferred_on: Option<NonNull<CownHeader>>,
}

impl Running {
    const NONE: Running = Running {
        core: None,
        deferred_on: None,
    };
}

impl Core {
    /// The slots, in the order the cowns were named.
    #[inline]
    fn slots(&self) -> &[Slot] {
        debug_assert!(self.nslots >= 1, "a behaviour names at least one cown");
        // SAFETY: `nslots` initialised slots follow the block at `ops.slots_offset`, alive as long
        // as the block.
        unsafe {
            std::slice::from_raw_parts(
                (self as *const Core)
                    .byte_add(self.ops.slots_offset)
                    .cast::<Slot>(),
                self.nslots as usize,
            )
        }
    }

    /// The slot of the cown named first (every behaviour names at least one).
    #[inline]
    fn first_slot(&self) -> &Slot {
        // SAFETY: at least one initialised slot follows the block at `ops.slots_offset`, alive as
        // long as the block.
        unsafe {
            &*(self as *const Core)
                .byte_add(self.ops.slots_offset)
                .cast::<Slot>()
        }
    }

    /// The runtime of the behaviour's first cown, where it runs.
    ///
    /// Valid while a slot is enqueued and not released (the queue then holds the cown).
    #[inline]
    fn runtime(&self) -> &Handle {
        // SAFETY: the first slot's cown is alive while the behaviour waits or runs.
        unsafe { &CownHeader::from_queue(self.first_slot().queue()).runtime }
    }

    /// Whether the behaviour's closure ran and its release is deferred.
    #[inline(always)]
    fn is_deferred(&self) -> bool {
        // Relaxed: as in `set_deferral`.
        Deferral::is_deferral(self.gate.spent().load(Ordering::Relaxed))
    }

    /// The state of the deferred release.
    fn deferral(&self) -> Deferral {
        Deferral(self.gate.spent().load(Ordering::Relaxed))
    }

    fn set_deferral(&self, deferral: Deferral) {
        // Relaxed: only the thread running the behaviour's task touches its spent gate, and the
        // runtime orders a task's turns.
        self.gate.spent().store(deferral.0, Ordering::Relaxed);
    }

    #[inline]
    fn from_gate(gate: NonNull<Gate>) -> NonNull<Core> {
        // SAFETY: every gate handed to the protocol by this module is the `gate` field of a Core.
        unsafe {
            NonNull::new_unchecked(
                gate.as_ptr()
                    .byte_sub(std::mem::offset_of!(Core, gate))
                    .cast::<Core>(),
            )
        }
    }
}

/// Schedules the behaviour behind `gate`, which has just become runnable.
#[inline]
pub(crate) fn schedule_gate(gate: NonNull<Gate>) {
    schedule(Core::from_gate(gate));
}

#[inline]
fn schedule(core: NonNull<Core>) {
    // SAFETY: a runnable behaviour is alive until its task runs or is shut down.
    let runtime = unsafe { core.as_ref() }.runtime();
    schedule_on(runtime, core);
}

/// Schedules the runnable behaviour `core` on `runtime` (its first cown's).
#[inline]
fn schedule_on(runtime: &Handle, core: NonNull<Core>) {
    // SAFETY: the header is at offset 0 of a block that stays alive until the runtime calls `run`
    // or `shutdown` (the behaviour frees itself only from there), and the protocol makes a
    // behaviour runnable exactly once.
    unsafe { legacy::schedule(runtime, TaskRef::from_raw(core.cast())) };
}

/// Makes runnable a behaviour granted all its cowns at spawn (`header` is its first cown's).
///
/// Spawned by a behaviour's closure running on a worker (not on a deterministic runtime), it is
/// kept for this thread, which runs it as soon as the spawning behaviour is done (see [`run`]), as
/// Verona's worker keeps the first behaviour a behaviour makes runnable: no schedule into the
/// runtime and no turn of the worker loop, which measured with callgrind is about a sixth of a hop
/// of a ping-pong between two cowns. One behaviour is kept at a time; others, and behaviours
/// spawned elsewhere, go to the runtime. A kept behaviour cannot be stolen while the spawning
/// closure still runs, so a closure that blocks its thread first gives it to the runtime (see
/// [`flush_handoff`], which [`Promise::wait`] calls).
///
/// `MANY` says that the behaviour names several cowns: only such a kept behaviour may run before
/// its spawner's own successor (see [`after_step`]). It is read back from the kept block's slot
/// count (see [`Kept`]): recording the spawner's first cown instead, and comparing it with the
/// successor's, cost a chain of dependent loads per philosopher's meal (about 8% of the samples
/// of Savina's philosopher, `perf record`, in the comparison alone).
#[inline]
fn hand_over<const MANY: bool>(header: &CownHeader, core: NonNull<Core>) {
    if !header.deterministic
        && CURRENT.with(Cell::get).core.is_some()
        && HANDOFF.with(Cell::get).is_none()
    {
        HANDOFF.with(|h| h.set(Some(Kept::new(core, MANY))));
        return;
    }
    schedule_on(&header.runtime, core);
}

/// What a step leaves for this thread to run next, of `next` (the successor its release kept),
/// the behaviour its closure spawned and [`hand_over`] kept, and the successor set aside in
/// [`LATER`]:
///
/// - one of the first two alone runs next; with neither, the one set aside does (if any);
/// - with both, the successor runs next and the spawned behaviour goes to the runtime, unless the
///   spawned behaviour names several cowns, the successor was made runnable by the release of the
///   cown the step's behaviour named first (`from_first`), as a behaviour's continuation spawned
///   on its own cown is, and nothing is set aside yet: then the spawned behaviour runs next and
///   the successor is set aside until that behaviour and the chain it starts are done.
///
/// A philosopher's turn spawns its meal over both forks, granted at once when they are free, and
/// its own next turn: the meal runs right after the turn, then the next turn, and neither goes
/// through the runtime's queue. Run the other way round (the successor first), the turns ran a
/// whole chain ahead of the meals and piled them up, each pending meal a block written at spawn
/// and read back much later: Savina's philosopher peaked at 25.6 MiB, against 11.5 so.
#[inline(always)]
fn after_step(next: Option<NonNull<Core>>, from_first: bool) -> Option<NonNull<Core>> {
    match HANDOFF.with(Cell::take) {
        None if next.is_some() => next,
        None => LATER.with(Cell::take),
        Some(kept) => match next {
            None => Some(kept.core()),
            Some(next) => spawned_or_successor(kept, next, from_first),
        },
    }
}

/// [`after_step`] with both a kept spawn and a successor: which runs next (the other waits in
/// [`LATER`] or goes to the runtime). The spawn run first (a philosopher's meal after its turn) is
/// decided inline, without a call: measured with callgrind, about 5 instructions less per meal on
/// Savina's philosopher than with the whole choice out of line.
#[inline(always)]
fn spawned_or_successor(
    kept: Kept,
    next: NonNull<Core>,
    from_first: bool,
) -> Option<NonNull<Core>> {
    if kept.many() && from_first && LATER.with(|l| l.get().is_none()) {
        LATER.with(|l| l.set(Some(next)));
        Some(kept.core())
    } else {
        successor_first(kept, next)
    }
}

/// The successor runs next and the kept spawn goes to the runtime. Out of line: a chain's steps
/// mostly have one or the other.
#[inline(never)]
fn successor_first(kept: Kept, next: NonNull<Core>) -> Option<NonNull<Core>> {
    schedule(kept.core());
    Some(next)
}

/// Gives the behaviour kept by [`hand_over`] on this thread, if any, to its runtime: called before
/// the running closure blocks its thread (its own spawn may be what it waits for).
pub(crate) fn flush_handoff() {
    if let Some(kept) = HANDOFF.with(Cell::take) {
        schedule(kept.core());
    }
    flush_later();
}

/// Gives the successor waiting in [`LATER`], if any, to its runtime.
#[inline(never)]
fn flush_later() {
    if let Some(core) = LATER.with(Cell::take) {
        schedule(core);
    }
}

/// The layout of a block with head `H`, closure `F` and `n` slots, and the slots' offset.
fn block_layout<H, F>(n: usize) -> (Layout, usize) {
    let (layout, offset) = Layout::new::<Block<H, F>>()
        .extend(Layout::array::<Slot>(n).expect("too many cowns in one `when`"))
        .expect("behaviour too large");
    debug_assert_eq!(offset, slots_offset::<H, F>());
    (layout.pad_to_align(), offset)
}

/// The layout [`block_layout`] gave a block of `n` slots when it was allocated, without its
/// overflow checks (for freeing: the hot path of every behaviour).
#[inline]
fn allocated_layout<H, F>(n: usize) -> Layout {
    let align = std::mem::align_of::<Block<H, F>>().max(std::mem::align_of::<Slot>());
    let size = (slots_offset::<H, F>() + n * std::mem::size_of::<Slot>()).next_multiple_of(align);
    debug_assert_eq!(size, block_layout::<H, F>(n).0.size());
    // SAFETY: `block_layout` built a layout of this size and alignment, without overflow, when the
    // block was allocated.
    unsafe { Layout::from_size_align_unchecked(size, align) }
}

/// The slots' offset in a block with closure `F` and head `H`: the block rounded up to a slot's
/// alignment (what `Layout::extend` computes, as a constant).
const fn slots_offset<H, F>() -> usize {
    std::mem::size_of::<Block<H, F>>().next_multiple_of(std::mem::align_of::<Slot>())
}

struct Kind<Sh, F, R, H>(std::marker::PhantomData<(Sh, F, R, H)>);

impl<Sh, F, R, H> Kind<Sh, F, R, H>
where
    Sh: Shape,
    F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    const VTABLE: &'static TaskVTable = &TaskVTable {
        run: run::<Sh, F, R, H>,
        shutdown,
    };
    const OPS: &'static Ops = &Ops {
        step: step::<Sh, F, R, H>,
        cancel: cancel::<H, F, R>,
        free: free::<H, F, R>,
        slots_offset: slots_offset::<H, F>(),
    };
    /// The operations of a block of this type whose closure ran and whose release backpressure
    /// defers: its step is the deferred release's turn. A deferred behaviour's `ops` points here
    /// (see [`step`]), so the step of every other one needs no check for a deferral, and a chain
    /// never runs a deferred release inline as a step of its own type (it is a different `ops`).
    const DEFERRED_OPS: &'static Ops = &Ops {
        step: step_deferred::<H, F, R>,
        cancel: cancel::<H, F, R>,
        free: free::<H, F, R>,
        slots_offset: slots_offset::<H, F>(),
    };
}

/// A behaviour built but not enqueued.
pub(crate) struct Built {
    core: NonNull<Core>,
    /// The distinct cowns, sorted by id (one request per cown).
    requests: Scratch<NonNull<Slot>>,
}

/// Allocates and fills the block of a behaviour over `n` cowns (written by `cowns`) running `f`.
/// Returns the block and its slots.
#[inline]
fn allocate_block<S, F, R, H>(
    cowns: &S,
    f: F,
    n: usize,
    alone: bool,
) -> (NonNull<Core>, NonNull<Slot>)
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    let (layout, slots_offset) = block_layout::<H, F>(n);
    let block = Blocks::allocate(layout).cast::<Block<H, F>>();
    // SAFETY: `block` is a fresh allocation for `Block<H, F>` followed by `n` slots.
    let slots =
        unsafe { NonNull::new_unchecked(block.as_ptr().byte_add(slots_offset).cast::<Slot>()) };
    // SAFETY: as above; the fields are written before anything reads them.
    unsafe {
        block.as_ptr().write(Block {
            head: H::new(Core {
                task: TaskHeader::new(Kind::<S::Shape, F, R, H>::VTABLE),
                gate: Gate::new(n, alone),
                nslots: u32::try_from(n).expect("too many cowns in one `when`"),
                ops: Kind::<S::Shape, F, R, H>::OPS,
            }),
            closure: UnsafeCell::new(ManuallyDrop::new(f)),
        });
    }
    let core = block.cast::<Core>();
    // SAFETY: the slot area is ours, uninitialised; the gate is in the block (a raw pointer: the
    // gate may be rewritten once the distinct cowns are known).
    let (slot_area, gate) = unsafe {
        (
            std::slice::from_raw_parts_mut(slots.as_ptr().cast::<MaybeUninit<Slot>>(), n),
            NonNull::new_unchecked(ptr::addr_of_mut!((*core.as_ptr()).gate)),
        )
    };
    let mut writer = SlotWriter::new(slot_area, gate);
    cowns.write(&mut writer);
    assert_eq!(
        writer.written(),
        n,
        "a cown set wrote the wrong number of slots"
    );
    (core, slots)
}

/// Builds a behaviour over several cowns (or one, for a batch): the block, its slots, duplicates
/// resolved.
fn build<S, F, R, H>(cowns: &S, f: F, alone: bool) -> Result<Built, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    let n = cowns.count();
    if n == 0 {
        return Err(WhenError::NoCowns);
    }
    let (core, slots) = allocate_block::<S, F, R, H>(cowns, f, n, alone);
    // SAFETY: a fresh block of this type with `n` initialised, private slots.
    unsafe { distinct_requests::<H, F, R>(core, slots, n, alone) }
}

/// Sorts the requests of a freshly built behaviour and resolves duplicates (see
/// [`sort_requests`]); a rejected behaviour's closure is dropped and its block freed.
///
/// # Safety
/// `core` is a fresh block of head `H` and closure `F`, never shared, whose `n` slots at `slots`
/// are initialised, on cowns the caller holds handles to.
unsafe fn distinct_requests<H: BlockHead<R>, F, R>(
    core: NonNull<Core>,
    slots: NonNull<Slot>,
    n: usize,
    alone: bool,
) -> Result<Built, WhenError> {
    // SAFETY: the caller's contract.
    let requests = match unsafe { sort_requests(slots, n) } {
        Ok(requests) => requests,
        Err(e) => {
            // SAFETY: the block was never shared: drop the closure and free it.
            unsafe {
                let block = core.cast::<Block<H, F>>();
                ManuallyDrop::drop(&mut *(*block.as_ptr()).closure.get());
                free::<H, F, R>(core);
            }
            return Err(e);
        }
    };
    if requests.as_slice().len() != n {
        // SAFETY: still private; written through its raw pointer, as the slots point to it.
        unsafe {
            ptr::addr_of_mut!((*core.as_ptr()).gate)
                .write(Gate::new(requests.as_slice().len(), alone))
        };
    }
    Ok(Built { core, requests })
}

/// Sorts a behaviour's requests by cown id and resolves duplicates: a cown named twice is acquired
/// once if every naming is read-only, and rejected otherwise. Returns the distinct requests.
///
/// # Safety
/// `slots` points to `n` initialised, private slots on cowns the caller holds handles to.
unsafe fn sort_requests(
    slots: NonNull<Slot>,
    n: usize,
) -> Result<Scratch<NonNull<Slot>>, WhenError> {
    // SAFETY: `i < n`, within the caller's slots.
    let slot = |i: usize| unsafe { NonNull::new_unchecked(slots.as_ptr().add(i)) };
    if n == 1 {
        return Ok(Scratch::from_one(slot(0)));
    }
    // SAFETY: the caller holds handles to the cowns.
    let id = |i: usize| unsafe { CownHeader::from_queue(slot(i).as_ref().queue()) }.id;
    if n == 2 {
        // Two distinct cowns (the common multi-cown `when`): one comparison, no sort buffer. The
        // same cown twice takes the general path below.
        let (a, b) = (id(0), id(1));
        if a != b {
            let (first, second) = if a < b { (0, 1) } else { (1, 0) };
            let mut requests = Scratch::with_capacity(2);
            requests.push(slot(first));
            requests.push(slot(second));
            return Ok(requests);
        }
    }
    let mut order: Scratch<(u64, usize)> = Scratch::from_exact((0..n).map(|i| (id(i), i)));
    order.as_mut_slice().sort_unstable();
    let mut requests = Scratch::with_capacity(n);
    let mut last: Option<(u64, usize)> = None;
    for &(cown, i) in order.as_slice() {
        match last {
            Some((prev, first)) if prev == cown => {
                // SAFETY: private slots.
                let both_read =
                    unsafe { slot(first).as_ref().is_read() && slot(i).as_ref().is_read() };
                if !both_read {
                    return Err(WhenError::DuplicateCown);
                }
                // SAFETY: a private slot, written through its raw pointer.
                unsafe { (*slot(i).as_ptr()).set_dup() };
            }
            _ => {
                requests.push(slot(i));
                last = Some((cown, i));
            }
        }
    }
    Ok(requests)
}

/// Applies backpressure for a request on a bounded cown about to be enqueued (see
/// [`crate::backpressure`]), and counts it.
#[cold]
fn throttle(header: &CownHeader, bound: &Bound) {
    if bound.is_full() {
        let running = CURRENT.with(Cell::get);
        match running.core {
            Some(current) => {
                // SAFETY: the behaviour running on this thread is alive.
                let current = unsafe { current.as_ref() };
                let holds = current
                    .slots()
                    .iter()
                    .any(|s| s.queue() == NonNull::from(&header.queue));
                if !holds && running.deferred_on.is_none() {
                    header.queue.retain();
                    CURRENT.with(|cur| {
                        cur.set(Running {
                            deferred_on: Some(NonNull::from(header)),
                            ..running
                        })
                    });
                }
            }
            None if header.runtime.on_worker() => {}
            None => bound.wait_below(&header.runtime),
        }
    }
    bound.on_enqueue();
}

/// Applies backpressure to, and counts, the requests of a behaviour on bounded cowns.
#[inline]
fn throttle_all(requests: &[NonNull<Slot>]) {
    for &slot in requests {
        // SAFETY: the spawner holds references to the cowns it names.
        let header = unsafe { CownHeader::from_queue(slot.as_ref().queue()) };
        if let Some(bound) = header.bound.as_deref() {
            throttle(header, bound);
        }
    }
}

/// A clone of the runtime's handle for a promise, if the runtime is deterministic (a promise
/// waiting there drives the runtime; on a thread pool it needs nothing).
#[inline]
fn deterministic_runtime(header: &CownHeader) -> Option<Handle> {
    if header.deterministic {
        Some(header.runtime.clone())
    } else {
        None
    }
}

/// A behaviour enqueued by a spawn: its block, and the cown whose runtime a promise of it drives
/// on a deterministic runtime (alive while the spawner holds its cowns).
struct Spawned {
    core: NonNull<Core>,
    first: NonNull<CownHeader>,
}

impl Spawned {
    /// The promise of a behaviour spawned with a [`Head<R>`].
    ///
    /// # Safety
    /// The block has a `Head<R>` whose completion's HANDLE bit is set, and the spawner still holds
    /// a handle to the cown `first`.
    #[inline]
    unsafe fn promise<R>(self) -> Promise<R> {
        // SAFETY: the caller's contract.
        let deterministic = deterministic_runtime(unsafe { self.first.as_ref() });
        // SAFETY: as above; the promise owns the HANDLE bit.
        unsafe { Promise::pending(self.core, deterministic) }
    }
}

/// Spawns a behaviour over one cown: the hot path, without sorting or scratch space.
#[inline]
fn spawn_one<S, F, R, H>(cowns: &S, f: F) -> Spawned
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    let (core, slot) = allocate_block::<S, F, R, H>(cowns, f, 1, true);
    // SAFETY: the spawner holds a handle to the cown.
    let header = unsafe { CownHeader::from_queue(slot.as_ref().queue()) };
    if let Some(bound) = header.bound.as_deref() {
        throttle(header, bound);
    }
    // SAFETY: a fresh behaviour (gate `single`) over a cown the spawner holds a handle to, a
    // write request if its shape says so.
    let granted = unsafe {
        if <S::Shape as Shape>::WRITERS == 1 {
            protocol::enqueue_single_writer(slot)
        } else {
            protocol::enqueue_single(slot)
        }
    };
    if granted {
        hand_over::<false>(header, core);
    }
    Spawned {
        core,
        first: NonNull::from(header),
    }
}

/// Enqueues a behaviour over several cowns spawned alone, and makes it runnable if it got all its
/// cowns.
fn spawn_many(built: Built) -> Spawned {
    let Built { core, requests } = built;
    let requests = requests.as_slice();
    throttle_all(requests);
    // SAFETY: the spawner holds handles to the cowns.
    let first = NonNull::from(unsafe { CownHeader::from_queue(requests[0].as_ref().queue()) });
    if let [slot] = requests {
        // A dynamic set naming one cown several times, read-only: one distinct request.
        // SAFETY: a fresh behaviour (gate `single`) over a cown the spawner holds a handle to.
        if unsafe { protocol::enqueue_single(*slot) } {
            schedule(core);
        }
    } else {
        // SAFETY: the caller's contract, passed on (a dynamic set may name a cown read-only).
        unsafe { enqueue_requests(core, requests, false) };
    }
    Spawned { core, first }
}

/// Spawns a behaviour over two cowns, the common multi-cown `when`: two distinct cowns are ordered
/// with one comparison, on the stack, without the sort and scratch buffers of the general path
/// (which a cown named twice still takes).
#[inline]
fn spawn_two<S, F, R, H>(cowns: &S, f: F) -> Result<Spawned, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    let (core, slots) = allocate_block::<S, F, R, H>(cowns, f, 2, true);
    // SAFETY: the block has two initialised slots.
    let (a, b) = (slots, unsafe { slots.add(1) });
    // SAFETY: the spawner holds handles to the cowns.
    let header = |s: NonNull<Slot>| unsafe { CownHeader::from_queue(s.as_ref().queue()) };
    let (first, second) = (header(a), header(b));
    let requests = match first.id.cmp(&second.id) {
        std::cmp::Ordering::Less => [a, b],
        std::cmp::Ordering::Greater => [b, a],
        std::cmp::Ordering::Equal => {
            // SAFETY: a fresh block of this type with two initialised, private slots.
            let built = unsafe { distinct_requests::<H, F, R>(core, slots, 2, true) }?;
            return Ok(spawn_many(built));
        }
    };
    throttle_all(&requests);
    // SAFETY: two fresh, distinct slots sorted by cown id, the gate counting them and the
    // spawner's hold, on cowns the spawner holds handles to; write requests if the shape says so.
    unsafe { enqueue_requests(core, &requests, <S::Shape as Shape>::WRITERS == 2) };
    Ok(Spawned {
        core,
        first: NonNull::from(first),
    })
}

/// Spawns a behaviour of head `H` spawned alone (see [`when`]).
#[inline]
fn spawn<S, F, R, H>(cowns: &S, f: F) -> Result<Spawned, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    match cowns.count() {
        1 => Ok(spawn_one::<S, F, R, H>(cowns, f)),
        2 => spawn_two::<S, F, R, H>(cowns, f),
        _ => build::<S, F, R, H>(cowns, f, true).map(spawn_many),
    }
}

/// Enqueues the requests of a behaviour spawned alone over several cowns, and makes it runnable
/// if it got all of them.
///
/// # Safety
/// `requests` are the fresh slots of `core`, at least two, sorted by cown id and distinct; the gate
/// counts them and the spawner's hold; the spawner holds handles to the cowns; every request is
/// a write request if `writers`.
#[inline(always)]
unsafe fn enqueue_requests(core: NonNull<Core>, requests: &[NonNull<Slot>], writers: bool) {
    let granted = if requests.len() <= protocol::MAX_DISTINCT {
        // SAFETY: the caller's contract.
        unsafe { protocol::enqueue_distinct(requests, writers) }
    } else {
        let mut grants = Scratch::filled(Grant::No, requests.len());
        // SAFETY: the caller's contract: distinct requests are a batch of chains of one.
        unsafe { protocol::enqueue_batch(requests, grants.as_mut_slice()) };
        grants
            .as_slice()
            .iter()
            .filter(|g| **g != Grant::No)
            .count() as u32
    };
    // SAFETY: the block is alive: the behaviour cannot run before the spawner's hold is given.
    let gate = unsafe { NonNull::from(&(*core.as_ptr()).gate) };
    if granted as usize == requests.len() {
        // Every cown was granted to this spawner, so no other thread holds a grant to count
        // down (a grant not made during the enqueue is made by a predecessor's release, the
        // grant cascade or the last reader, and there is none left): the behaviour is
        // runnable, without the atomic decrement.
        // SAFETY: as above.
        unsafe { gate.as_ref() }.spend();
        // SAFETY: the spawner holds handles to the cowns; the first slot of the block is the
        // first cown named, whose runtime the behaviour runs on.
        hand_over::<true>(
            unsafe { CownHeader::from_queue(core.as_ref().first_slot().queue()) },
            core,
        );
    } else {
        // SAFETY: the gate, a counting one (several cowns), waits for its grants plus the
        // spawner's hold.
        unsafe { protocol::resolve_counting(gate, granted + 1, &mut |g| schedule_gate(g)) };
    }
}

/// Spawns a behaviour that runs `f` with the cowns of `cowns` once it has acquired all of them, and
/// returns a promise of its result.
///
/// `cowns` is one of the forms listed in [`crate::set`]: a cown (`&c`), a read-only cown
/// (`c.read()`), a deferred value, a tuple of those (up to 12), or a dynamic set (`&[Cown<T>]`,
/// `&Vec<Cown<T>>`, or [`read_all`](crate::read_all)). The closure gets `&mut T` for each cown
/// named with write access and `&T` for each read-only one, in the order they were named.
///
/// The guarantees are those of the BoC paper (section 3): the behaviour acquires all its cowns at
/// once, runs with exclusive access to them (shared with other readers, for read-only ones) until
/// its closure returns, and runs after every behaviour spawned before it that names one of its
/// cowns (happens-before). Behaviours never deadlock, whatever cowns they name.
///
/// `when` may be called from anywhere: the main thread, a behaviour, an actor, an async task. The
/// behaviour runs on the runtime of the first cown named.
///
/// # Naming a cown twice
///
/// A cown named more than once in one `when` is acquired once. If every naming is read-only
/// (`(c.read(), c.read())`), the closure gets `&T` at each position. If any naming has write
/// access, two `&mut T` (or `&mut T` and `&T`) to one value would alias, so the `when` is rejected:
/// nothing is spawned, the closure is dropped, and the promise holds [`WhenError::DuplicateCown`].
/// A dynamic set that names no cown is rejected with [`WhenError::NoCowns`].
///
/// # The promise
///
/// The result stays in the behaviour's own allocation: a [`Promise`] allocates nothing. Dropping it
/// (fire and forget) is one atomic operation on that allocation, and the result is then dropped
/// when the behaviour completes. Keep it to `.await` the result or [`wait`](Promise::wait) for it.
///
/// ```
/// use motet_boc::{when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let (src, dst) = (Cown::new(rt.handle(), 100), Cown::new(rt.handle(), 0));
/// when((&src, &dst), |(src, dst)| {
///     *src -= 40;
///     *dst += 40;
/// });
/// let total = when((src.read(), dst.read()), |(s, d)| s + d).wait().unwrap();
/// assert_eq!(total, 100);
/// ```
pub fn when<S, F, R>(cowns: S, f: F) -> Promise<R>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    match spawn::<S, F, R, Head<R>>(&cowns, f) {
        // SAFETY: spawned with a `Head<R>`, whose completion starts with HANDLE set; `cowns` holds
        // the handles.
        Ok(spawned) => unsafe { spawned.promise() },
        Err(e) => Promise::failed(e),
    }
}

/// Spawns a behaviour as [`when`] does, without a promise: for fire-and-forget behaviours, as an
/// actor's `tell` is to an `ask`.
///
/// The behaviour has every guarantee of one spawned by [`when`] (atomic acquisition, exclusive
/// access, spawn order, no deadlock); only its result is dropped when it completes. A panic in
/// its closure is reported by the panic hook as usual, releases its cowns, and is otherwise
/// dropped, as with a `when` whose promise was dropped.
///
/// What it saves over `when(..)` with its promise dropped at once: the promise's part of the
/// behaviour's block (the result cell and the hand-over state, 40 bytes and more), the atomic
/// operation that drops the promise, and the result and hand-over on completion. A single-cown
/// behaviour whose closure captures nothing is a 48-byte block (88 with a promise); a million of them
/// pending on one cown (Savina's Counting) are that many fewer bytes written and read back.
///
/// A `when_detached` rejected at spawn (a cown named twice with write access, an empty dynamic
/// set) returns the error at once, and nothing is spawned.
///
/// ```
/// use motet_boc::{when, when_detached, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let counter = Cown::new(rt.handle(), 0u64);
/// for _ in 0..100 {
///     when_detached(&counter, |n| *n += 1).expect("one cown");
/// }
/// // Spawned after the increments and naming the counter, so it runs after them all.
/// assert_eq!(when(&counter, |n| *n).wait().unwrap(), 100);
/// ```
pub fn when_detached<S, F, R>(cowns: S, f: F) -> Result<(), WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    spawn::<S, F, R, Core>(&cowns, f).map(|_| ())
}

/// Several `when`s scheduled as one atomic step: nothing spawned elsewhere comes between them on
/// any cown they share, as Verona's `when(..) << f1 + when(..) << f2`.
///
/// Behaviours are added with [`Batch::when`], which returns their promises at once, and are
/// enqueued together by [`Batch::spawn`] (or when the batch is dropped). Among themselves they keep
/// the order they were added in.
///
/// ```
/// use motet_boc::{when, Batch, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let log = Cown::new(rt.handle(), Vec::new());
/// let mut batch = Batch::new();
/// batch.when(&log, |l| l.push("first"));
/// batch.when(&log, |l| l.push("second"));
/// batch.spawn();
/// let entries = when(&log, |l| l.clone()).wait().unwrap();
/// assert_eq!(entries, ["first", "second"]);
/// ```
#[derive(Default)]
pub struct Batch {
    members: Vec<Built>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Adds a behaviour (see [`when`]); it is enqueued with the rest of the batch. Do not wait for
    /// the returned promise before the batch is spawned.
    pub fn when<S, F, R>(&mut self, cowns: S, f: F) -> Promise<R>
    where
        S: CownSet,
        F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
        R: Send + 'static,
    {
        match build::<S, F, R, Head<R>>(&cowns, f, false) {
            Ok(built) => {
                // Keep the cowns alive until the batch is enqueued.
                for &slot in built.requests.as_slice() {
                    // SAFETY: the caller holds a handle to each cown.
                    unsafe { slot.as_ref().queue().as_ref() }.retain();
                }
                // SAFETY: as above.
                let first = unsafe {
                    CownHeader::from_queue(built.requests.as_slice()[0].as_ref().queue())
                };
                let deterministic = deterministic_runtime(first);
                let core = built.core;
                self.members.push(built);
                // SAFETY: as in `spawn_one`.
                unsafe { Promise::pending(core, deterministic) }
            }
            Err(e) => Promise::failed(e),
        }
    }

    /// How many behaviours the batch holds.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the batch holds no behaviour.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Enqueues every behaviour of the batch at once.
    pub fn spawn(mut self) {
        self.spawn_members();
    }

    fn spawn_members(&mut self) {
        let members = std::mem::take(&mut self.members);
        if members.is_empty() {
            return;
        }
        let mut requests: Vec<(u64, usize, NonNull<Slot>)> = Vec::new();
        for (owner, m) in members.iter().enumerate() {
            throttle_all(m.requests.as_slice());
            for &slot in m.requests.as_slice() {
                // SAFETY: the batch holds a reference to each cown.
                let id = unsafe { CownHeader::from_queue(slot.as_ref().queue()) }.id;
                requests.push((id, owner, slot));
            }
        }
        requests.sort_unstable_by_key(|&(id, owner, _)| (id, owner));
        let slots: Vec<NonNull<Slot>> = requests.iter().map(|r| r.2).collect();
        let mut grants = vec![Grant::No; slots.len()];
        // SAFETY: fresh slots sorted by (cown, behaviour), distinct per behaviour, gates not single
        // and counting the spawner's hold; the batch holds references to the cowns.
        unsafe { protocol::enqueue_batch(&slots, &mut grants) };
        let mut counts = vec![1u32; members.len()];
        for (r, g) in requests.iter().zip(&grants) {
            if *g != Grant::No {
                counts[r.1] += 1;
            }
        }
        let queues: Vec<NonNull<Queue>> = requests
            .iter()
            // SAFETY: as above; read before the behaviours can run and release.
            .map(|r| unsafe { r.2.as_ref() }.queue())
            .collect();
        for (m, n) in members.iter().zip(counts) {
            // SAFETY: the gate waits for its grants plus the spawner's hold.
            unsafe {
                protocol::resolve(NonNull::from(&(*m.core.as_ptr()).gate), n, &mut |g| {
                    schedule_gate(g)
                })
            };
        }
        for queue in queues {
            // SAFETY: the reference taken in `Batch::when`.
            unsafe { Queue::release_ref(queue) };
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.spawn_members();
    }
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("len", &self.members.len())
            .finish()
    }
}

/// How many behaviours a worker runs in a row inside one task turn, each made runnable by the
/// previous one (see [`run`]): as many as an actor handles messages in one turn by default
/// (motet-actor's `DEFAULT_BATCH`). Measured with callgrind, 16 instead cost about 5 instructions
/// more per behaviour on a chain of single-cown `when`s (the worker loop's turns between chains).
const INLINE_CHAIN: u32 = 128;

impl Step {
    /// The outcome of a finished behaviour, of what [`finish`] returned.
    #[inline(always)]
    fn done(next: Option<NonNull<Core>>, from_first: bool) -> Step {
        match next {
            Some(next) if !from_first => Step::DoneLater(next),
            next => Step::Done(next),
        }
    }
}

/// What running a behaviour left to do.
enum Step {
    /// Done; the one successor its release made runnable and kept for this thread, if any, made
    /// runnable by the release of the cown the behaviour named first if there is one.
    Done(Option<NonNull<Core>>),
    /// Done; the one successor kept, made runnable by the release of a cown named later (a
    /// variant of its own rather than a flag, so that a step's outcome stays two registers and a
    /// single-cown behaviour's step never produces it: measured with callgrind, a flag in `Done`
    /// cost 10 instructions per message on Savina's count).
    DoneLater(NonNull<Core>),
    /// The release is deferred by backpressure: the task must yield and come back.
    Deferred,
}

/// The task's `run`: runs the behaviour, then the chain of successors it makes runnable one at a
/// time, up to [`INLINE_CHAIN`] behaviours.
///
/// A behaviour whose release makes exactly one successor runnable (a chain of behaviours on one
/// cown, a ping-pong between two) hands it to its own worker. Going through the runtime, that is
/// a schedule into the worker's next-task slot and a turn of the worker loop; running it here
/// directly saves both, as Verona's worker runs its `next_work` and an actor runs a batch of
/// messages per turn. The chain is bounded so that a worker still serves its queues and the
/// runtime's fairness rules; on a deterministic runtime there is no chaining, so that the seeded
/// scheduler chooses every step.
unsafe fn run<Sh, F, R, H>(task: NonNull<TaskHeader>) -> RunOutcome
where
    Sh: Shape,
    F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    // What `CURRENT` holds between tasks: `NONE` on a worker, and the waiting behaviour when a
    // closure that waits for a promise runs tasks on its thread (a deterministic runtime). A
    // step may leave its own behaviour there (see `step`), so it is put back once the chain is
    // over; where it is not `NONE`, also if a step unwinds (the guard, out of line).
    let previous = CURRENT.with(Cell::get);
    if previous.core.is_some() {
        // SAFETY: the caller's contract, passed on.
        return unsafe { run_nested::<Sh, F, R, H>(task, previous) };
    }
    // SAFETY: the caller's contract, passed on.
    let outcome = unsafe { run_chain::<Sh, F, R, H>(task) };
    CURRENT.with(|cur| cur.set(Running::NONE));
    outcome
}

/// [`run`] inside a running behaviour's closure: puts back what [`CURRENT`] held once the turn is
/// over, or when a step unwinds (a panic in a result's `drop` or in a waker).
///
/// # Safety
/// As for [`run`].
#[inline(never)]
unsafe fn run_nested<Sh, F, R, H>(task: NonNull<TaskHeader>, previous: Running) -> RunOutcome
where
    Sh: Shape,
    F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    let _restore = RestoreCurrent(previous);
    // SAFETY: the caller's contract, passed on.
    unsafe { run_chain::<Sh, F, R, H>(task) }
}

/// Puts back what [`CURRENT`] held when a nested task's turn began (or when
/// [`outside_behaviours`] began).
struct RestoreCurrent(Running);

/// Runs `f`, user code reached from a release or a cancellation (a freed cown's `drop`, a
/// cancelled closure's `drop`), with no behaviour named in [`CURRENT`], and puts back what it held.
///
/// A step whose closure cannot be followed by an unwind leaves its behaviour in `CURRENT` through
/// its release (see `step`), and the release may free the behaviour's block before it frees a
/// cown. A `when` from such user code must not take that behaviour for its spawner (hand-over,
/// backpressure read its slots): it is spawned as from a thread that runs no behaviour. Cold:
/// only values whose `drop` runs code, and shut-down runtimes, come here.
#[inline(never)]
pub(crate) fn outside_behaviours<T>(f: impl FnOnce() -> T) -> T {
    let _restore = RestoreCurrent(CURRENT.with(|cur| cur.replace(Running::NONE)));
    f()
}

impl Drop for RestoreCurrent {
    fn drop(&mut self) {
        CURRENT.with(|cur| cur.set(self.0));
    }
}

/// The chain of [`run`], which leaves `CURRENT` to it.
///
/// # Safety
/// As for the task's `run`: `task` is a runnable behaviour of this type, run by this thread only.
#[inline(always)]
unsafe fn run_chain<Sh, F, R, H>(task: NonNull<TaskHeader>) -> RunOutcome
where
    Sh: Shape,
    F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    let mut core = task.cast::<Core>();
    let mut budget = INLINE_CHAIN;
    // The last cown found to belong to a thread-pool runtime this thread is a worker of: a chain
    // of behaviours on one cown (a mailbox drained) checks it once. (Remembering two, for a chain
    // alternating between two cowns as a turn and the meal it spawned do, saved 8 instructions
    // per meal on Savina's philosopher but cost 7 per behaviour on Counting, measured with
    // callgrind: the loop's code came out worse.)
    let mut checked: *const CownHeader = ptr::null();
    // That cown's runtime, once a check has found it: a step on another cown of the same runtime
    // (a meal after its philosopher's turn, a Teller's reply after a transfer) compares one
    // address instead of asking the runtime again. (Comparing runtimes alone, without `checked`,
    // loads the cown's handle at every step of a chain on one cown: logmap and pingpong came out
    // 8 to 15% slower on one worker, interleaved runs.) A bitwise copy of the cown's handle, never
    // dropped and only compared by address (`same_runtime`): this thread stays that runtime's
    // worker until this task's turn is over, so the runtime stays alive and its address cannot be
    // reused meanwhile.
    let mut home: Option<ManuallyDrop<Handle>> = None;
    let mut first_turn = true;
    loop {
        // SAFETY: the runtime runs a scheduled behaviour once per scheduling, on one thread; a
        // successor is runnable and not scheduled anywhere: this thread runs it now.
        let outcome = unsafe {
            if ptr::eq(core.as_ref().ops, Kind::<Sh, F, R, H>::OPS) {
                // This task's own type (the task itself, or a chain of one kind of behaviour, a
                // mailbox drained): the step is inlined here. Measured with callgrind, about 30
                // instructions less per behaviour than the call through `ops` on a chain of
                // single-cown `when`s.
                step::<Sh, F, R, H>(core)
            } else {
                (core.as_ref().ops.step)(core)
            }
        };
        let next = match outcome {
            Step::Done(next) => after_step(next, true),
            Step::DoneLater(next) => after_step(Some(next), false),
            Step::Deferred if first_turn => {
                flush_handoff();
                return RunOutcome::Yield;
            }
            Step::Deferred => {
                // Its task must come back for the deferred release: give it to the runtime.
                schedule(core);
                after_step(None, false)
            }
        };
        first_turn = false;
        let Some(next) = next else {
            return RunOutcome::Idle;
        };
        // SAFETY: a runnable behaviour, alive until it runs.
        let c = unsafe { next.as_ref() };
        // SAFETY: its first cown is alive while it waits or runs.
        let first = unsafe { CownHeader::from_queue(c.first_slot().queue()) };
        if budget == 0 {
            schedule_on(&first.runtime, next);
            flush_later();
            return RunOutcome::Idle;
        }
        if !ptr::eq(first, checked) {
            let known = home
                .as_ref()
                .is_some_and(|home| home.same_runtime(&first.runtime));
            if !known {
                if first.deterministic || !first.runtime.on_worker() {
                    schedule_on(&first.runtime, next);
                    flush_later();
                    return RunOutcome::Idle;
                }
                // SAFETY: a bitwise copy of a live handle, never dropped and only compared by
                // address (see `home`).
                home = Some(ManuallyDrop::new(unsafe { ptr::read(&first.runtime) }));
            }
            checked = first;
        }
        budget -= 1;
        core = next;
    }
}

/// Runs a runnable behaviour: its closure, then its release (or defers the release, under
/// backpressure), or only the release if the closure already ran.
///
/// # Safety
/// `core` is a runnable behaviour of this type, run by this thread only.
#[inline(always)]
unsafe fn step<Sh, F, R, H>(core: NonNull<Core>) -> Step
where
    Sh: Shape,
    F: for<'a> FnOnce(Sh::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: BlockHead<R>,
{
    // SAFETY: the caller's contract.
    let c = unsafe { core.as_ref() };
    let block = core.cast::<Block<H, F>>();
    // A behaviour whose release was deferred has its `ops` changed, so it never comes here again
    // (see `Kind::DEFERRED_OPS`): measured with callgrind, checking its gate here cost 4
    // instructions per behaviour.
    debug_assert!(
        !c.is_deferred(),
        "a deferred release runs through its own ops"
    );
    // SAFETY: the caller's contract.
    unsafe { prefetch_successors::<H, F>(core) };
    // SAFETY: the closure is taken once, by the one run of the behaviour.
    let f = unsafe { ManuallyDrop::take(&mut *(*block.as_ptr()).closure.get()) };
    // `CURRENT` names this behaviour while its closure runs. After the closure, a step that
    // nothing can unwind from (a detached behaviour whose result needs no `drop`: the common
    // fire-and-forget `when`; the release and the scheduling do not unwind, see `shutdown`)
    // leaves it so, and `run` puts back what it held before once the chain is over: one
    // thread-local read and a copy kept across the closure less per step (measured with
    // callgrind, 7 instructions per meal on Savina's philosopher). Any other step stores `NONE`
    // there before what may unwind (a result's `drop`, a promise's waker), which is what
    // `CURRENT` holds between tasks on a worker (a nested run puts back its own, see `run`).
    CURRENT.with(|cur| {
        cur.set(Running {
            core: Some(core),
            deferred_on: None,
        })
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: every slot is granted and the behaviour runs: the views are exclusive (shared
        // with readers only, for read slots) until the closure returns.
        f(unsafe { Sh::view(SlotView::new(c.slots()), 0) })
    }));
    let running = if H::UNWIND_FREE && !std::mem::needs_drop::<R>() {
        CURRENT.with(Cell::get)
    } else {
        CURRENT.with(|cur| cur.replace(Running::NONE))
    };
    let result = outcome.map_err(|payload| Box::new(WhenError::Panicked(panic_message(&*payload))));
    // SAFETY: the behaviour runs on this thread, before its completion.
    unsafe { H::store(ptr::addr_of_mut!((*block.as_ptr()).head), result) };
    if let Some(bounded) = running.deferred_on {
        // SAFETY: we hold a reference to the bounded cown.
        let bound = unsafe { bounded.as_ref() }.bound.as_deref();
        c.set_deferral(Deferral::new(bound.map_or(0, |b| b.completed())));
        defer_on(core, bounded);
        // SAFETY: only the thread running the behaviour's task touches its `ops` after the
        // spawn, and the runtime orders the task's turns (as for `set_deferral`).
        unsafe { ptr::addr_of_mut!((*core.as_ptr()).ops).write(Kind::<Sh, F, R, H>::DEFERRED_OPS) };
        return Step::Deferred;
    }
    // SAFETY: the closure ran; nothing touches the block on this path afterwards.
    let (next, from_first) = unsafe { finish::<H, F, R>(core, Sh::WRITERS) };
    Step::done(next, from_first)
}

/// Asks the processor to fetch the behaviours that will run after `c` on its first cown, if they
/// are already queued there, while `c`'s closure runs: the next one and the one after it.
///
/// The next one is the behaviour this worker most likely runs next (it is handed over to the same
/// worker, see [`run`]), and its block was written when it was spawned, often long ago and far
/// away: when the pending chains of several cowns interleave (one `when` per receiver,
/// round-robin, as fjthrput does), each block in a chain is a cache miss on its slot (read by the
/// release) and on its head (read to schedule and run it). Fetching two ahead gives the lines the
/// time of two behaviours to arrive; the second one's address is read from the first one's slot,
/// fetched by the previous behaviour.
///
/// Only a slot's address is known; the head is assumed to be where it is in a block of `c`'s type,
/// the common case of a chain of one kind of behaviour. If a successor is of another type, the
/// hint fetches a line it will not use, and nothing else happens: a prefetch reads nothing and
/// cannot fault.
///
/// # Safety
/// `core` runs, and is a block of head `H` and closure `F`.
#[inline(always)]
unsafe fn prefetch_successors<H, F>(core: NonNull<Core>) {
    // SAFETY: the caller's contract: the first slot is at the type's offset.
    let Some(next) = unsafe { first_slot::<H, F>(core).as_ref() }.successor() else {
        return;
    };
    prefetch_block(next, slots_offset::<H, F>());
    // SAFETY: `core` runs, so its first slot is granted and not released: its writer successor
    // `next` waits for that release and stays allocated (see `Slot::successor`).
    if let Some(after) = unsafe { next.as_ref() }.successor() {
        prefetch_block(after, slots_offset::<H, F>());
    }
}

/// Prefetches the block whose slot is at `slot`, its head assumed `slots_offset` bytes before: the
/// head's line, the line after it if the slot lies beyond, and the slot's last line (a block of 64
/// bytes or less, whatever its place in the lines, is two prefetches).
#[inline(always)]
fn prefetch_block(slot: NonNull<Slot>, slots_offset: usize) {
    let slot = slot.as_ptr().cast::<u8>().cast_const();
    let head = slot.wrapping_sub(slots_offset);
    prefetch(head);
    if slots_offset >= 64 {
        prefetch(head.wrapping_add(64));
    }
    prefetch(slot.wrapping_add(std::mem::size_of::<Slot>() - 1));
}

/// The first slot of a block of head `H` and closure `F`, at the type's constant offset.
///
/// # Safety
/// `core` is a live block of head `H` and closure `F`.
#[inline(always)]
unsafe fn first_slot<H, F>(core: NonNull<Core>) -> NonNull<Slot> {
    // SAFETY: the caller's contract: every block has at least one slot, at this offset.
    unsafe { core.byte_add(slots_offset::<H, F>()).cast::<Slot>() }
}

/// `ops.step` of a behaviour whose release is deferred ([`Kind::DEFERRED_OPS`]).
///
/// # Safety
/// `core` is a runnable behaviour of head `H` and closure `F` whose closure ran and whose
/// release is deferred, run by this thread only.
unsafe fn step_deferred<H: BlockHead<R>, F, R>(core: NonNull<Core>) -> Step {
    // SAFETY: the caller's contract.
    debug_assert!(unsafe { core.as_ref() }.is_deferred());
    poll_deferred::<H, F, R>(core)
}

/// A turn of a behaviour whose release is deferred: release once the bounded cown is below its
/// bound or made no progress since the last turn (see [`crate::backpressure`]). The first turn
/// after the deferral only yields: the task may have come straight back through the worker's
/// next-task slot, before anything else could run.
fn poll_deferred<H: BlockHead<R>, F, R>(core: NonNull<Core>) -> Step {
    // An earlier step of the chain may have left its behaviour in `CURRENT` (see `step`), and the
    // release below may wake a promise's waker, which may unwind.
    CURRENT.with(|cur| cur.set(Running::NONE));
    // SAFETY: the task runs on one thread.
    let c = unsafe { core.as_ref() };
    if let Some(bounded) = deferred_on(core) {
        // SAFETY: we hold a reference to the bounded cown.
        if let Some(bound) = unsafe { bounded.as_ref() }.bound.as_deref() {
            let completed = bound.completed();
            let last = c.deferral();
            c.set_deferral(Deferral::turned(completed));
            if bound.is_full() && (!last.has_turned() || last.progressed(completed)) {
                return Step::Deferred;
            }
        }
    }
    let bounded = take_deferred_on(core);
    // SAFETY: the closure ran.
    let (next, from_first) = unsafe { finish::<H, F, R>(core, 0) };
    release_bounded(bounded);
    Step::done(next, from_first)
}

/// Gives up the reference to the bounded cown a deferred release held, once the release is done.
#[cold]
fn release_bounded(bounded: Option<NonNull<CownHeader>>) {
    if let Some(bounded) = bounded {
        // SAFETY: the reference taken when the release was deferred.
        unsafe { Queue::release_ref(NonNull::from(&bounded.as_ref().queue)) };
    }
}

/// Releases every cown, hands the result over and frees the block if the promise is gone. Returns
/// the first behaviour the releases made runnable, for the caller to run or schedule (the others
/// are scheduled), and whether the release of the first slot (the cown named first) made it so.
///
/// Generic over the block's types so that, on the hot path (inlined into [`step`]), the block is
/// freed by a direct call rather than through `ops.free`, and a single-cown behaviour releases its
/// one slot without the loop and its duplicate check (one slot is never a duplicate): measured
/// with callgrind, about 25 instructions less per behaviour on a chain of single-cown `when`s.
///
/// `writers`, if not 0, says that the behaviour is known, from its type, to name that many cowns,
/// all with write access (a constant where `finish` is inlined): its release then skips the
/// checks for a reader and for a duplicate, and the loop over the slots unrolls (measured with
/// callgrind on Savina's banking, with the same checks skipped in the enqueue: about 30
/// instructions less per two-cown behaviour).
///
/// # Safety
/// The behaviour ran (or was cancelled) and its result is written; `core` is a block of closure
/// `F` and result `R`; the block is not used after; `writers` is 0 or the behaviour's number of
/// slots, all write requests.
#[must_use]
#[inline(always)]
unsafe fn finish<H: BlockHead<R>, F, R>(
    core: NonNull<Core>,
    writers: usize,
) -> (Option<NonNull<Core>>, bool) {
    // SAFETY: the behaviour holds its cowns until the releases below.
    let c = unsafe { core.as_ref() };
    // A cell, so that `from_first` can read it between the releases.
    let kept: Cell<Option<NonNull<Gate>>> = Cell::new(None);
    let mut runnable = |g: NonNull<Gate>| match kept.get() {
        None => kept.set(Some(g)),
        Some(_) => schedule_gate(g),
    };
    // Whether the first slot's release made `kept` runnable (it is released first, and is never a
    // duplicate: a duplicate is the later naming of a cown).
    let from_first;
    if writers != 0 {
        debug_assert_eq!(writers, c.nslots as usize);
        // SAFETY: the block has `writers` initialised slots from the type's offset, all write
        // requests, none a duplicate.
        let first = unsafe { first_slot::<H, F>(core) };
        // SAFETY: as above; granted, finished with, and not used again.
        unsafe { release_slot(first, true, &mut runnable) };
        from_first = kept.get().is_some();
        for i in 1..writers {
            // SAFETY: as above.
            unsafe { release_slot(first.add(i), true, &mut runnable) };
        }
        // SAFETY: as below, with `writers` slots: the block's layout is a constant.
        unsafe { complete_and_free::<H, F, R>(core, writers) };
    } else if c.nslots == 1 {
        // SAFETY: the block has one initialised slot, at the type's offset.
        unsafe { release_slot(first_slot::<H, F>(core), false, &mut runnable) };
        from_first = kept.get().is_some();
        // SAFETY: as below, with one slot: the block's layout is a constant.
        unsafe { complete_and_free::<H, F, R>(core, 1) };
    } else {
        let n = c.nslots as usize;
        let slots = c.slots();
        // SAFETY: granted, finished with, and not used again; the first is never a duplicate.
        unsafe { release_slot(NonNull::from(&slots[0]), false, &mut runnable) };
        from_first = kept.get().is_some();
        for slot in &slots[1..] {
            if slot.is_dup() {
                continue;
            }
            // SAFETY: as above.
            unsafe { release_slot(NonNull::from(slot), false, &mut runnable) };
        }
        // SAFETY: the block has `n` slots.
        unsafe { complete_and_free::<H, F, R>(core, n) };
    }
    (kept.get().map(Core::from_gate), from_first)
}

/// After the releases: hands the outcome over, and frees the block (of `n` slots) if the promise
/// is gone or there is none.
///
/// # Safety
/// The outcome is stored, every slot is released, `n` is the block's `nslots`, and the block is
/// not touched afterwards.
#[inline(always)]
unsafe fn complete_and_free<H: BlockHead<R>, F, R>(core: NonNull<Core>, n: usize) {
    // SAFETY: the outcome is stored; the block is not touched afterwards unless it is ours.
    if unsafe { H::complete(core.cast::<H>().as_ptr()) } {
        // SAFETY: the promise is gone (or there is none) and the behaviour is done: the block,
        // of these types, is ours.
        unsafe { free_sized::<H, F, R>(core, n) };
    }
}

/// Releases one granted slot (not a duplicate): counts the release on a bounded cown, then hands
/// the cown on.
///
/// # Safety
/// `slot` is granted, finished with, not a duplicate, and not used again; a write request if
/// `writer`.
#[inline(always)]
unsafe fn release_slot(
    slot: NonNull<Slot>,
    writer: bool,
    runnable: &mut impl FnMut(NonNull<Gate>),
) {
    // SAFETY: the slot is still granted, so its cown is alive.
    let header = unsafe { CownHeader::from_queue(slot.as_ref().queue()) };
    if let Some(bound) = header.bound.as_deref() {
        bound.on_release();
    }
    // SAFETY: the caller's contract.
    unsafe {
        if writer {
            protocol::release_writer(slot, runnable)
        } else {
            protocol::release_distinct(slot, runnable)
        }
    };
}

/// The task's `shutdown`: the runtime will not run it.
unsafe fn shutdown(task: NonNull<TaskHeader>) {
    let core = task.cast::<Core>();
    if CANCELLING.with(Cell::get) {
        // Cancelling releases cowns, whose successors the runtime shuts down at once: queue them
        // here rather than recurse once per behaviour of a long chain.
        TO_CANCEL.with(|q| q.borrow_mut().push(core));
        return;
    }
    CANCELLING.with(|c| c.set(true));
    // A cancelled closure's `drop` is user code: it runs as outside any behaviour (see
    // `outside_behaviours`), whichever step's release scheduled the behaviour.
    let _outside = RestoreCurrent(CURRENT.with(|cur| cur.replace(Running::NONE)));
    let mut next = Some(core);
    while let Some(core) = next {
        // Never unwinds into the caller: a runtime that is shut down cancels a behaviour inside
        // `schedule`, which a releasing behaviour calls, and a step relies on its release not
        // unwinding (see `step`). A panic in a cancelled closure's `drop` or in a promise's waker
        // is reported by the panic hook; the cancellations go on.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: a scheduled behaviour that will not run; its ops match its type.
            unsafe { (core.as_ref().ops.cancel)(core) }
        }));
        next = TO_CANCEL.with(|q| q.borrow_mut().pop());
    }
    CANCELLING.with(|c| c.set(false));
}

unsafe fn cancel<H: BlockHead<R>, F, R>(core: NonNull<Core>) {
    let block = core.cast::<Block<H, F>>();
    // SAFETY: the caller's contract (a behaviour that will not run, touched by this thread only).
    let deferred = unsafe { core.as_ref() }.is_deferred();
    if !deferred {
        // A panic in the closure's `drop` (reported by the panic hook) still lets the cowns go.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the closure was never taken (a behaviour whose closure ran and that is
            // still scheduled is one whose release was deferred).
            unsafe { ManuallyDrop::drop(&mut *(*block.as_ptr()).closure.get()) }
        }));
        // SAFETY: the behaviour will not run, and only this thread touches its block.
        unsafe {
            H::store(
                ptr::addr_of_mut!((*block.as_ptr()).head),
                Err(Box::new(WhenError::Cancelled)),
            );
        }
    }
    let bounded = if deferred {
        take_deferred_on(core)
    } else {
        None
    };
    // SAFETY: the outcome is stored.
    if let (Some(next), _) = unsafe { finish::<H, F, R>(core, 0) } {
        schedule(next);
    }
    release_bounded(bounded);
}

/// Drops what the block of a finished behaviour still owns and frees it (`ops.free`).
///
/// # Safety
/// The caller is the last user of the block, of head `H` and closure `F`; the closure was taken or
/// dropped.
unsafe fn free<H: BlockHead<R>, F, R>(core: NonNull<Core>) {
    // SAFETY: the caller's contract; the block has `nslots` slots.
    unsafe { free_sized::<H, F, R>(core, (*core.as_ptr()).nslots as usize) }
}

/// [`free`], for a block of `n` slots.
///
/// # Safety
/// As for [`free`]; `n` is the block's `nslots`.
// Always inlined into `finish` (the hot path, where a single-cown block's `n` is a constant):
// measured with callgrind, 14 instructions less per behaviour than the call.
#[inline(always)]
unsafe fn free_sized<H: BlockHead<R>, F, R>(core: NonNull<Core>, n: usize) {
    let block = core.cast::<Block<H, F>>();
    // SAFETY: the last user of the block frees it: drop what it still owns (the closure was taken
    // or dropped before).
    unsafe {
        H::clear(ptr::addr_of_mut!((*block.as_ptr()).head));
        Blocks::release(block.cast(), allocated_layout::<H, F>(n));
    }
}

/// Frees a behaviour block through its ops (for the promise side).
///
/// # Safety
/// The caller is the last user of the block.
pub(crate) unsafe fn free_core(core: NonNull<Core>) {
    // SAFETY: the caller's contract.
    unsafe { (core.as_ref().ops.free)(core) }
}

#[cfg(all(test, not(loom), target_pointer_width = "64"))]
mod tests {
    use super::*;

    /// A single-cown block whose closure captures nothing: 48 bytes detached (the core and one
    /// slot, three size classes of the allocators in use below a cache line), 88 with a promise
    /// of `()`. The sizes are what a queue of a million pending behaviours costs in memory.
    #[test]
    fn a_single_cown_unit_behaviour_is_a_small_block() {
        fn sizes<F>(_: &F) -> (usize, usize)
        where
            F: FnOnce(&mut u64) + Send + 'static,
        {
            (
                block_layout::<Core, F>(1).0.size(),
                block_layout::<Head<()>, F>(1).0.size(),
            )
        }
        let increment = |n: &mut u64| *n += 1;
        assert_eq!(sizes(&increment), (48, 88));
        let captured = 7u64;
        let add = move |n: &mut u64| *n += captured;
        assert_eq!(sizes(&add), (56, 96));
    }

    /// A behaviour cancelled by a runtime that is shut down, whose closure's `drop` panics: the
    /// panic does not unwind into the spawner (the cancellation runs inside `schedule`, which a
    /// releasing behaviour calls too), the promise reports the cancellation, and the cown is
    /// released for the `when`s after it.
    #[test]
    fn a_cancelled_closure_whose_drop_panics_still_releases_its_cowns() {
        struct PanicsOnDrop;
        impl Drop for PanicsOnDrop {
            fn drop(&mut self) {
                panic!("a closure's capture panics in drop (expected by this test)");
            }
        }
        let rt = motet_runtime::Runtime::builder()
            .workers(1)
            .build()
            .unwrap();
        let cown = crate::Cown::new(rt.handle(), 0u64);
        drop(rt);
        let capture = PanicsOnDrop;
        let cancelled = when(&cown, move |n| {
            let _keep = &capture;
            *n += 1;
        });
        assert_eq!(cancelled.wait(), Err(WhenError::Cancelled));
        assert_eq!(when(&cown, |n| *n).wait(), Err(WhenError::Cancelled));
        assert!(when_detached(&cown, |n| *n += 1).is_ok());
    }

    /// A cown whose value panics in `drop`, freed by the release of its last behaviour (its last
    /// handle dropped while the behaviour waited): the panic goes no further than the freeing
    /// (see `free_cown`), the behaviour's other cown is still released, and the worker runs what
    /// follows.
    #[test]
    fn a_cown_freed_by_a_release_whose_value_panics_in_drop() {
        struct PanicsOnDrop;
        impl Drop for PanicsOnDrop {
            fn drop(&mut self) {
                panic!("a cown's value panics in drop (expected by this test)");
            }
        }
        let rt = motet_runtime::Runtime::builder()
            .workers(1)
            .build()
            .unwrap();
        let doomed = crate::Cown::new(rt.handle(), PanicsOnDrop);
        let other = crate::Cown::new(rt.handle(), 0u64);
        let gate = crate::Cown::new(rt.handle(), ());
        // Held back until the handle is gone, so that the release of the behaviour frees the cown.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        when_detached(&gate, move |_| {
            let _ = rx.recv();
        })
        .unwrap();
        when_detached((&gate, &doomed, &other), |(_, _, n)| *n += 1).unwrap();
        drop(doomed);
        tx.send(()).unwrap();
        assert_eq!(when(&other, |n| *n).wait(), Ok(1));
        assert_eq!(when(&other, |n| *n + 1).wait(), Ok(2));
    }

    /// A cown whose value spawns a `when` from its `drop`, freed by the release of a detached
    /// behaviour (which leaves itself named as running through its release): the spawn is made as
    /// from outside any behaviour, so a full bounded cown neither defers the finished behaviour
    /// nor keeps a reference to itself, and every cown is freed in the end.
    #[test]
    fn a_when_from_a_freed_cowns_drop_is_spawned_as_from_outside() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        struct Tracked(Arc<AtomicUsize>);
        impl Drop for Tracked {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        struct SpawnsOnDrop {
            bounded: crate::Cown<Tracked>,
            ran: Arc<AtomicUsize>,
        }
        impl Drop for SpawnsOnDrop {
            fn drop(&mut self) {
                let ran = self.ran.clone();
                when_detached(&self.bounded, move |_| {
                    ran.fetch_add(1, Ordering::SeqCst);
                })
                .unwrap();
            }
        }
        let rt = motet_runtime::Runtime::builder()
            .workers(1)
            .build()
            .unwrap();
        let (freed, ran) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let bounded = crate::Cown::bounded(
            rt.handle(),
            Tracked(freed.clone()),
            std::num::NonZeroUsize::new(1).unwrap(),
        );
        let doomed = crate::Cown::new(
            rt.handle(),
            SpawnsOnDrop {
                bounded: bounded.clone(),
                ran: ran.clone(),
            },
        );
        let gate = crate::Cown::new(rt.handle(), ());
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        when_detached(&gate, move |_| {
            let _ = rx.recv();
        })
        .unwrap();
        // Frees `doomed` in its release, once the handle below is gone.
        when_detached((&gate, &doomed), |_| {}).unwrap();
        // Fills the bounded cown (bound 1) until the gate is released.
        when_detached((&gate, &bounded), |_| {}).unwrap();
        drop(doomed);
        tx.send(()).unwrap();
        when(&gate, |_| ()).wait().unwrap();
        while ran.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        assert_eq!(when(&bounded, |_| ()).wait(), Ok(()));
        drop(bounded);
        drop(rt);
        assert_eq!(freed.load(Ordering::SeqCst), 1, "the bounded cown is freed");
    }

    /// A deferral is never mistaken for the gate of a behaviour whose closure has not run (0, or
    /// `u32::MAX` for a lone single-cown behaviour), whatever the bounded cown's count, and keeps
    /// the count modulo 2^29 and the turn.
    #[test]
    fn deferrals_are_told_apart_from_fresh_gates() {
        assert!(!Deferral::is_deferral(0));
        assert!(!Deferral::is_deferral(u32::MAX));
        for completed in [0usize, 1, 2, (1 << 29) - 1, 1 << 29, usize::MAX, 12345] {
            for d in [Deferral::new(completed), Deferral::turned(completed)] {
                assert!(Deferral::is_deferral(d.0), "{completed}: {:#x}", d.0);
                assert!(!d.progressed(completed));
                assert!(d.progressed(completed.wrapping_add(1)));
            }
            assert!(!Deferral::new(completed).has_turned());
            assert!(Deferral::turned(completed).has_turned());
        }
    }
}
