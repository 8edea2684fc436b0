//! A process: one allocation holding a task header, a state word and the process's future, run by
//! motet-runtime's workers.
//!
//! # Layout
//!
//! `Cell<F>` is `#[repr(C)]` with a [`Header`] first, so the runtime's [`TaskRef`] and the process's
//! [`Waker`] both point at the header, and code that does not know `F` (the channels, the registry)
//! works on headers. The future lives inline after the header: a process is one allocation, and a
//! receive's wait-queue entry lives inside the future, so parking costs no allocation either.
//!
//! # The state word
//!
//! `state` packs five flags and a reference count:
//!
//! - `RUNNING`: the process is owned by a run: scheduled (in the runtime's queues, or about to be put
//!   there) or being polled. A wake that finds the process neither running nor complete sets
//!   `RUNNING` and owns the right (and the duty) to schedule it; so a run starts owning the process
//!   without a read-modify-write of its own, as an actor's turn starts after the push that found its
//!   mailbox idle.
//! - `NOTIFIED`: a wake-up came while the process was running. The worker sees it when the poll
//!   returns and polls again (or yields the process if its step budget is spent), so no wake-up is
//!   lost and no process is in the scheduler twice. Between the end of that poll (which clears
//!   `RUNNING`) and the run taking the process back, the word holds `NOTIFIED` without `RUNNING`,
//!   which a wake treats as running.
//! - `COMPLETE`: the future finished (or was cancelled) and has been dropped.
//! - `CANCELLED`: [`ProcessSystem::shutdown`](crate::ProcessSystem::shutdown) asked the process to stop:
//!   its next run drops the future instead of polling it.
//! - `PINNED`: the process pinned a channel it parks on through that channel's lock word (see
//!   `channel::fast_park`). Such a park ends the run without touching this word: the process stays
//!   `RUNNING`, owned by the channel until someone takes it out of the word. A wake that finds a
//!   `PINNED` process `RUNNING` (and not yet `NOTIFIED`) therefore also looks for it there.
//! - the count (units of `REF_ONE`): one reference held by the process itself until it completes, plus
//!   one per [`Waker`] clone. The allocation is freed when the count reaches zero.
//!
//! Transitions (every one but a run's start is one atomic read-modify-write):
//!
//! | event | operation | effect |
//! | --- | --- | --- |
//! | wake | compare-and-swap: idle -> `+ RUNNING`, else `+ NOTIFIED` | schedules the process if it was idle |
//! | run starts | a load | sees `CANCELLED` |
//! | poll returned `Pending`, a receive asked to park in its channel's word | the word's compare-and-swap, then a load | parked (still `RUNNING`), or notified: take it back |
//! | poll returned `Pending` otherwise | `fetch_sub(RUNNING)` | idle, or notified: take it back |
//! | taken back after a wake-up | `fetch_add(RUNNING - NOTIFIED)` | poll again, or yield (still `RUNNING`) |
//! | future done | `fetch_add(COMPLETE - RUNNING - REF_ONE)` | complete, drops the process's reference |
//!
//! The run's transitions are additions, not `fetch_xor`/`fetch_and`: the flags they change are
//! known, so an addition does the same, and an addition whose result is used is one `lock xadd` on
//! x86, where a `fetch_xor` or `fetch_and` whose result is used is a compare-and-swap loop.
//!
//! A hop of a message to a process parked through the wait queue costs the process two
//! read-modify-writes of its state word (the sender's wake, the run's end); one parked in its
//! channel's word costs none (the sender's lock of the channel claims it, the park's
//! compare-and-swap ends the run). A process that a wake-up finds
//! already scheduled only gets `NOTIFIED`, and polls once more than it needs to: harmless, since a
//! poll re-checks what it waits for.
//!
//! # Waking without a reference
//!
//! A channel that finds a parked receiver wakes it under the channel's lock, with the raw header
//! pointer its wait-queue entry holds: no reference count is taken. This is sound because the entry
//! lies inside the process's own allocation (checked when it registers, see [`Header::contains`]):
//! the process cannot be freed before its future is dropped, dropping the future unlinks the entry
//! under the same lock, and a sender that wins the idle-to-running transition is the only one that
//! may schedule the process, so it cannot run (let alone finish) before that sender is done with it.
//! Wakers handed to other futures (timers, actor asks) are ordinary counted [`Waker`] clones.

use std::future::Future;
use std::mem::{size_of, ManuallyDrop};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use motet_runtime::alloc::BlockCache;
use motet_runtime::task::legacy::{RunOutcome, TaskHeader, TaskVTable};

use crate::bank;
use crate::blocks::Blocks;
use crate::channel::fast_park::{self, ParkVTable, NO_REQUEST, REFUSED};
use crate::context;
use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::system::SystemShared;

/// A wake-up not yet consumed by a poll.
pub(crate) const NOTIFIED: usize = 1 << 0;
/// A worker is polling the future.
pub(crate) const RUNNING: usize = 1 << 1;
/// The future is gone.
pub(crate) const COMPLETE: usize = 1 << 2;
/// Shutdown asked the process to stop.
pub(crate) const CANCELLED: usize = 1 << 3;
/// The process pinned a channel it parks on through the channel's lock word (see
/// `channel::fast_park`): a `RUNNING` process may be parked there.
pub(crate) const PINNED: usize = 1 << 4;
/// One reference.
pub(crate) const REF_ONE: usize = 1 << 5;

/// The operations of one kind of process (one future type).
pub(crate) struct ProcVTable {
    /// Frees the allocation (the future has been dropped already).
    free: unsafe fn(NonNull<Header>),
    /// The allocation's size, for [`Header::contains`].
    size: usize,
    /// Runs the process for one scheduling (the loom models drive processes without a runtime).
    #[cfg(loom)]
    pub(crate) run: unsafe fn(NonNull<Header>) -> RunOutcome,
}

/// The part of a process that code not knowing the future's type sees.
#[repr(C)]
pub(crate) struct Header {
    task: TaskHeader,
    vtable: &'static ProcVTable,
    pub(crate) state: AtomicUsize,
    /// The system the process belongs to; released when the allocation is freed (through the
    /// freeing thread's bank, see `bank`).
    system: ManuallyDrop<Arc<SystemShared>>,
    /// The process's shard and entry in its system's registry plus one, 0 until it first parks:
    /// written and read by its runs only (see `registry`).
    pub(crate) registry_slot: std::cell::UnsafeCell<usize>,
    /// The channel the process parks on through its lock word, and that channel's operations:
    /// written by the receive that first asks to park there (see [`Header::request_park`]), kept
    /// by the run that then takes the pin and sets `PINNED` (or cleared, if it takes none), read
    /// by wakers that saw `PINNED`; the pin is given back when the allocation is freed.
    pin: std::cell::UnsafeCell<Option<(*const (), &'static ParkVTable)>>,
    /// The park request the run reads after each poll: [`NO_REQUEST`], [`REFUSED`], or the
    /// address of the entry a receive asked to park in the pinned channel's word. Written and read
    /// by the process's runs (and the polls inside them) only.
    park: std::cell::UnsafeCell<usize>,
}

/// What a wake-up that went through the state word leaves its caller to do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Woken {
    /// The process was idle and is now `RUNNING`: the caller schedules it.
    Schedule,
    /// The process is `RUNNING` and `PINNED`, and this was its first wake-up since: it may be
    /// parked in its pinned channel's word, where the caller looks for it ([`look_up`]).
    LookUp,
    /// Nothing: the process is running and will see the wake-up, or already had one pending.
    Nothing,
}

// SAFETY: the header is shared between the workers that run the process and the threads that wake
// it: `state` is atomic, `registry_slot` is used by the process's runs only (ordered by `state`),
// the rest is immutable while the process lives.
unsafe impl Sync for Header {}
// SAFETY: as above; the future behind the header is `Send` (required by `spawn`).
unsafe impl Send for Header {}

impl Header {
    pub(crate) fn system(&self) -> &SystemShared {
        &self.system
    }

    /// Whether `addr` lies inside this process's allocation (inside its future). An entry there is
    /// dropped before the allocation can be freed, which is what lets it hold a plain pointer.
    #[inline]
    pub(crate) fn contains(&self, addr: usize) -> bool {
        let start = self as *const Header as usize;
        addr >= start && addr < start + self.vtable.size
    }

    /// A receive's request to park `entry` in the lock word of `chan` (whose operations are
    /// `vtable`) once the poll has returned: true if the run will try, false if the receive must
    /// use the wait queue (another receive asked in this poll, the run refuses fast parks, or the
    /// process pinned another channel). A process that pinned no channel yet pins this one, for
    /// the run to count.
    ///
    /// # Safety
    /// Called from a poll of the process by its run (which alone reads and writes the request
    /// and the pin); `entry` lies in the process's allocation and `chan` is alive.
    #[inline]
    pub(crate) unsafe fn request_park(
        &self,
        entry: *const (),
        chan: *const (),
        vtable: &'static ParkVTable,
    ) -> bool {
        // SAFETY: the caller's contract: this run alone touches the request and the pin.
        let (park, pin) = unsafe { (&mut *self.park.get(), &mut *self.pin.get()) };
        if *park != NO_REQUEST {
            return false;
        }
        match pin {
            Some((pinned, _)) if *pinned != chan => return false,
            Some(_) => {}
            None => *pin = Some((chan, vtable)),
        }
        *park = entry as usize;
        true
    }

    /// Withdraws the park request for `entry` (its receive is dropped in the poll that made it),
    /// and the pin that request wrote if the run has not counted it yet.
    ///
    /// # Safety
    /// As for `request_park`.
    pub(crate) unsafe fn withdraw_park(&self, entry: *const ()) {
        // SAFETY: the caller's contract.
        let park = unsafe { &mut *self.park.get() };
        if *park == entry as usize {
            *park = NO_REQUEST;
            // Relaxed: `PINNED` is set by this process's runs only.
            if self.state.load(Ordering::Relaxed) & PINNED == 0 {
                // SAFETY: as above; no waker reads the pin before `PINNED`.
                unsafe { *self.pin.get() = None };
            }
        }
    }

    /// Records a wake-up; true if the caller now owns the duty to schedule the process (it was
    /// neither running nor complete, and is now `RUNNING`: owned by the run the caller schedules).
    #[inline]
    pub(crate) fn notify(&self) -> Woken {
        self.wake_with(0)
    }

    /// Asks the process to stop; `Schedule` if the caller must schedule it (so that its run
    /// cancels it).
    pub(crate) fn cancel(&self) -> Woken {
        self.wake_with(CANCELLED)
    }

    /// Takes a reference (the caller holds one, or otherwise knows the process alive).
    #[inline]
    pub(crate) fn retain(&self) {
        // Relaxed: as in `waker_clone`.
        self.state.fetch_add(REF_ONE, Ordering::Relaxed);
    }

    /// A wake-up that also sets `extra`: an idle process becomes `RUNNING` (the caller schedules
    /// it, and returns true), a running one `NOTIFIED` (as does one whose run is just taking
    /// itself back after a wake-up, `NOTIFIED` without `RUNNING`). A complete one only gets the
    /// flags.
    #[inline]
    fn wake_with(&self, extra: usize) -> Woken {
        let mut cur = self.state.load(Ordering::Relaxed);
        loop {
            let idle = cur & (NOTIFIED | RUNNING | COMPLETE) == 0;
            let new = cur | extra | if idle { RUNNING } else { NOTIFIED };
            // AcqRel: Release publishes what the waker did before waking to the run that sees the
            // wake-up (a poll's end acquires; a scheduled run is ordered after the scheduling);
            // Acquire orders our later use of the process after it (and makes the pin that came
            // with `PINNED` visible).
            match self
                .state
                .compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) if idle => return Woken::Schedule,
                Ok(_) if cur & (RUNNING | NOTIFIED | PINNED) == RUNNING | PINNED => {
                    return Woken::LookUp
                }
                Ok(_) => return Woken::Nothing,
                Err(actual) => cur = actual,
            }
        }
    }

    /// Takes back a process whose poll ended with a wake-up pending (`NOTIFIED` set, `RUNNING`
    /// just cleared by the run): consumes the wake-up and marks it running again. Returns the
    /// previous state.
    #[inline]
    fn reclaim(&self) -> usize {
        // NOTIFIED is set and RUNNING clear, so adding RUNNING - NOTIFIED clears one and sets the
        // other. Acquire: sees what the wakers published before their wake-up.
        self.state.fetch_add(RUNNING - NOTIFIED, Ordering::Acquire)
    }

    /// Gives up one reference; frees the allocation if it was the last one and the process is
    /// complete.
    ///
    /// # Safety
    /// The caller owns a reference to the live process at `this` and does not use it afterwards.
    pub(crate) unsafe fn release(this: NonNull<Header>) {
        // SAFETY: the caller's reference keeps the header alive until the decrement.
        let header = unsafe { this.as_ref() };
        // AcqRel: Release orders our uses before the freeing; Acquire (for the last one) sees every
        // other holder's uses.
        let prev = header.state.fetch_sub(REF_ONE, Ordering::AcqRel);
        if prev & !(REF_ONE - 1) == REF_ONE {
            debug_assert!(prev & COMPLETE != 0, "the process's own reference is gone");
            // SAFETY: no reference is left: nobody else can reach the allocation.
            unsafe { (header.vtable.free)(this) };
        }
    }
}

/// Runs a scheduled process once (the loom models' stand-in for a worker).
///
/// # Safety
/// `header` was scheduled (taken from the model's ready queue) and is run by one thread at a time.
#[cfg(loom)]
pub(crate) unsafe fn run_scheduled(header: NonNull<Header>) -> RunOutcome {
    // SAFETY: the caller's contract.
    unsafe { (header.as_ref().vtable.run)(header) }
}

/// Schedules a process whose idle-to-running transition the caller won.
///
/// # Safety
/// The caller won that transition (`notify` or `cancel` returned true) and has not scheduled it yet.
#[inline]
pub(crate) unsafe fn schedule(header: NonNull<Header>) {
    // SAFETY: a process whose run is owed is alive: only that run can complete it, and that run
    // needs this scheduling.
    let system = unsafe { header.as_ref() }.system();
    // SAFETY: as above; the header is the first field of the allocation (`#[repr(C)]`).
    unsafe { system.schedule(header) };
}

/// Looks for a process that a wake-up found `RUNNING` and `PINNED` ([`Woken::LookUp`]) parked in
/// its pinned channel's word, and schedules it if it takes it out from there.
///
/// # Safety
/// The process is alive for the whole call (the caller holds a reference, or the registry's lock),
/// and the caller's wake-up saw `PINNED` (so the pin is written and visible).
pub(crate) unsafe fn look_up(header: NonNull<Header>) {
    // SAFETY: the pin was written before `PINNED` was set and never changes after.
    let Some((chan, vtable)) = (unsafe { *header.as_ref().pin.get() }) else {
        return;
    };
    // SAFETY: a pinned channel stays allocated until the process is freed; the process is alive.
    if unsafe { (vtable.claim)(chan, header) } {
        // SAFETY: taking the entry out of the word gave us the process's scheduling.
        unsafe { schedule(header) };
    }
}

/// How a run's fast park (see `channel::fast_park`) ended.
enum FastPark {
    /// Parked in the channel's word: the run is over.
    Parked,
    /// Not parked, nothing pending: poll again (the channel changed, or the run refuses fast
    /// parks from now on).
    Repoll,
    /// Not parked, a wake-up (or a cancellation) is pending: end the poll the usual way.
    Woken,
}

/// Parks the process in the lock word of its pinned channel, as its poll asked, if that channel is
/// still idle and empty.
///
/// # Safety
/// The process is running on this thread and its poll just returned `Pending`, leaving the
/// request for `entry` (so the pin is written).
#[inline]
unsafe fn fast_park(header: &Header, entry: *const ()) -> FastPark {
    // SAFETY: the receive that asked wrote the pin (the caller's contract), and only runs write it.
    let Some((chan, vtable)) = (unsafe { *header.pin.get() }) else {
        unreachable!("a receive asks to park only in the channel it pins")
    };
    let abandon = || {
        // SAFETY: the entry is alive (the poll left it) and parked nowhere.
        unsafe { (vtable.abandon)(entry) }
    };
    // Acquire: a pending wake-up's writes.
    let state = header.state.load(Ordering::Acquire);
    if state & (NOTIFIED | CANCELLED | PINNED) != PINNED {
        // SAFETY: the caller's contract.
        match unsafe { first_park(header, state, chan, vtable) } {
            Ok(()) => {}
            Err(outcome) => {
                abandon();
                return outcome;
            }
        }
    }
    // SAFETY: the receive's handle keeps the channel alive (so does the pin).
    let word = unsafe { fast_park::word(chan, vtable) };
    if !fast_park::park(word, entry) {
        abandon();
        return FastPark::Repoll;
    }
    // Parked. A wake-up that went through the state word before the park's compare-and-swap is
    // visible now (see `channel::fast_park`): take the entry back and see to it.
    let state = header.state.load(Ordering::Acquire);
    if state & (NOTIFIED | CANCELLED) == 0 {
        return FastPark::Parked;
    }
    if fast_park::unpark(word, entry) {
        abandon();
        return FastPark::Woken;
    }
    // Someone locked the channel and took the entry out of the word. One that completed it (a
    // send, a close) schedules the process; any other lock left it in the receivers' queue,
    // where the process looks for it, to take itself back.
    // SAFETY: the process pinned the channel; it is alive (this run).
    if unsafe { (vtable.claim)(chan, NonNull::from(header)) } {
        FastPark::Woken
    } else {
        FastPark::Parked
    }
}

/// The part of [`fast_park`] before the word's compare-and-swap that a process pinned in an
/// earlier run skips: a wake-up already pending, or the first park, which takes the pin the
/// receive wrote (or clears it, if the channel counts no more pins) and sets `PINNED`. `Ok` if the
/// park may go on; otherwise what the run does instead (the entry is to be abandoned).
///
/// # Safety
/// As for `fast_park`, with `state` loaded from the process's state word and `(chan, vtable)` its
/// pin.
#[cold]
#[inline(never)]
unsafe fn first_park(
    header: &Header,
    state: usize,
    chan: *const (),
    vtable: &'static ParkVTable,
) -> Result<(), FastPark> {
    let pinned = state & PINNED != 0;
    if state & (NOTIFIED | CANCELLED) != 0 {
        if !pinned {
            // The pin was the receive's: not counted, so not kept.
            // SAFETY: written by this process's runs only; no waker reads it before `PINNED`.
            unsafe { *header.pin.get() = None };
        }
        return Err(FastPark::Woken);
    }
    debug_assert!(!pinned);
    // SAFETY: the receive's handle keeps the channel alive.
    if !unsafe { (vtable.pin)(chan) } {
        // SAFETY: as above; the run refuses fast parks from now on.
        unsafe {
            *header.pin.get() = None;
            *header.park.get() = REFUSED;
        }
        return Err(FastPark::Repoll);
    }
    // Release: the pin, for the wakers that see `PINNED`; Acquire: a wake-up that came before.
    let prev = header.state.fetch_or(PINNED, Ordering::AcqRel);
    if prev & (NOTIFIED | CANCELLED) != 0 {
        return Err(FastPark::Woken);
    }
    Ok(())
}

/// The wakers of processes: the data pointer is the process's header.
pub(crate) static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(waker_clone, waker_wake, waker_wake_by_ref, waker_drop);

unsafe fn waker_clone(data: *const ()) -> RawWaker {
    // SAFETY: a process waker's data is a live header (the waker holds or borrows a reference).
    let header = unsafe { &*data.cast::<Header>() };
    // Relaxed: the caller's reference keeps the process alive; the new one is published with the
    // waker itself.
    header.state.fetch_add(REF_ONE, Ordering::Relaxed);
    RawWaker::new(data, &WAKER_VTABLE)
}

unsafe fn waker_wake(data: *const ()) {
    // SAFETY: the waker owns a reference, given up after waking.
    unsafe {
        waker_wake_by_ref(data);
        waker_drop(data);
    }
}

unsafe fn waker_wake_by_ref(data: *const ()) {
    // SAFETY: as in `waker_clone`.
    let header = unsafe { &*data.cast::<Header>() };
    match header.notify() {
        // SAFETY: ours to schedule.
        Woken::Schedule => unsafe { schedule(NonNull::from(header)) },
        // SAFETY: the waker's reference keeps the process alive; the wake-up saw `PINNED`.
        Woken::LookUp => unsafe { look_up(NonNull::from(header)) },
        Woken::Nothing => {}
    }
}

unsafe fn waker_drop(data: *const ()) {
    // SAFETY: an owned waker holds one reference, given up here.
    unsafe { Header::release(NonNull::new_unchecked(data as *mut Header)) };
}

/// The waker a run polls with: borrows the process's own reference (never dropped).
fn borrowed_waker(header: NonNull<Header>) -> ManuallyDrop<Waker> {
    // SAFETY: the vtable's contract holds for a live header; the waker is never dropped, so it does
    // not give up a reference it does not own, and `clone` makes owned ones.
    ManuallyDrop::new(unsafe {
        Waker::from_raw(RawWaker::new(header.as_ptr() as *const (), &WAKER_VTABLE))
    })
}

/// If `waker` belongs to a process, that process's header.
#[inline]
pub(crate) fn header_of(waker: &Waker) -> Option<NonNull<Header>> {
    if std::ptr::eq(waker.vtable(), &WAKER_VTABLE) {
        NonNull::new(waker.data() as *mut Header)
    } else {
        None
    }
}

/// How a run ended the process.
enum End {
    Finished,
    Cancelled,
    Panicked(Box<dyn std::any::Any + Send>),
}

/// A process allocation.
#[repr(C)]
pub(crate) struct Cell<F> {
    header: Header,
    future: std::cell::UnsafeCell<ManuallyDrop<F>>,
}

impl<F: Future<Output = ()> + Send + 'static> Cell<F> {
    const TASK_VTABLE: &'static TaskVTable = &TaskVTable {
        run: Self::run_task,
        shutdown: Self::shutdown_task,
    };

    const VTABLE: &'static ProcVTable = &ProcVTable {
        free: Self::free,
        size: size_of::<Self>(),
        #[cfg(loom)]
        run: Self::run,
    };

    /// Allocates a process, `RUNNING` (owned by the run the caller schedules) and holding its own
    /// reference.
    ///
    /// The block comes from this thread's block cache (see `blocks`): on two workers, the
    /// blocks the other worker freed come back to the spawning one whole bins at a time, instead
    /// of one by one through the allocator's cross-thread free. A cell a few bytes short of whole
    /// cache lines is padded to them and line-aligned (`BlockCache::layout_for`).
    pub(crate) fn allocate(system: &Arc<SystemShared>, future: F) -> NonNull<Header> {
        let cell = Blocks::allocate_for::<Cell<F>>();
        // SAFETY: a fresh block with the layout of `Cell<F>`, ours alone.
        unsafe {
            cell.as_ptr().write(Cell {
                header: Header {
                    task: TaskHeader::new(Self::TASK_VTABLE),
                    vtable: Self::VTABLE,
                    state: AtomicUsize::new(RUNNING | REF_ONE),
                    system: ManuallyDrop::new(bank::withdraw(system)),
                    registry_slot: std::cell::UnsafeCell::new(0),
                    pin: std::cell::UnsafeCell::new(None),
                    park: std::cell::UnsafeCell::new(NO_REQUEST),
                },
                future: std::cell::UnsafeCell::new(ManuallyDrop::new(future)),
            })
        };
        cell.cast()
    }

    /// Drops the future of a process that was never scheduled and frees it (a spawn refused by a
    /// system that has shut down).
    ///
    /// # Safety
    /// `header` came from `allocate` with this `F` and was never scheduled nor registered.
    pub(crate) unsafe fn discard(header: NonNull<Header>) {
        // SAFETY: the caller's contract: we own the only reference and the future is alive.
        unsafe {
            let cell = header.cast::<Cell<F>>();
            let future = &mut *cell.as_ref().future.get();
            let _ = catch_unwind(AssertUnwindSafe(|| ManuallyDrop::drop(future)));
            Self::free(header);
        }
    }

    unsafe fn run_task(task: NonNull<TaskHeader>) -> RunOutcome {
        // SAFETY: the runtime runs the task it was given by `schedule`: our header, at offset 0.
        unsafe { Self::run(task.cast()) }
    }

    unsafe fn shutdown_task(task: NonNull<TaskHeader>) {
        let header = task.cast::<Header>();
        // SAFETY: scheduled, hence `RUNNING` (owned by this run) and alive; the runtime will not
        // run it again.
        unsafe { Self::finish(header, End::Cancelled) }
    }

    /// One scheduling of the process: polls it until it parks, finishes, or spends its step budget.
    ///
    /// # Safety
    /// `this` is a scheduled process of this type (`RUNNING`, owned by this run), run by one
    /// thread.
    pub(crate) unsafe fn run(this: NonNull<Header>) -> RunOutcome {
        // SAFETY: scheduled processes are alive (see `schedule`).
        let header = unsafe { this.as_ref() };
        // The scheduling made the process ours (see the module docs): a load, to see a
        // cancellation. Acquire: a cancel's flag came with a release.
        let prev = header.state.load(Ordering::Acquire);
        debug_assert!(prev & RUNNING != 0 && prev & COMPLETE == 0);
        let system = header.system();
        // A process that never parked is not registered, so shutdown could not flag it: it looks
        // at the system's flag instead (and one that misses it is refused by the registry when it
        // parks).
        // SAFETY: the slot is read by the process's runs only.
        let registered = unsafe { *header.registry_slot.get() } != 0;
        if prev & CANCELLED != 0 || (!registered && system.is_shut_down()) {
            // SAFETY: running: ours to finish.
            unsafe { Self::finish(this, End::Cancelled) };
            return RunOutcome::Idle;
        }
        let _enter = context::enter(system, system.steps);
        // No request, fast parks allowed.
        // SAFETY: the request is the runs' own.
        unsafe { *header.park.get() = NO_REQUEST };
        let waker = borrowed_waker(this);
        let mut cx = Context::from_waker(&waker);
        loop {
            // SAFETY: the future is pinned inside the allocation (never moved) and only the running
            // worker touches it.
            let future =
                unsafe { Pin::new_unchecked(&mut **this.cast::<Cell<F>>().as_ref().future.get()) };
            match catch_unwind(AssertUnwindSafe(|| future.poll(&mut cx))) {
                Ok(Poll::Pending) => {
                    // A process that parks for the first time registers (so that shutdown can
                    // reach it) before anyone may wake and run it.
                    // SAFETY: running: the slot is ours.
                    let unregistered = unsafe { *header.registry_slot.get() } == 0;
                    // SAFETY: alive, unregistered and run by this thread.
                    if unregistered && !unsafe { system.registry.insert(this) } {
                        // The system shut down meanwhile.
                        // SAFETY: running: ours to finish.
                        unsafe { Self::finish(this, End::Cancelled) };
                        return RunOutcome::Idle;
                    }
                    // SAFETY: the request is the runs' own.
                    let request = unsafe { &mut *header.park.get() };
                    if *request > REFUSED {
                        let entry = *request as *const ();
                        *request = NO_REQUEST;
                        // SAFETY: running on this thread, and the poll just left the request.
                        match unsafe { fast_park(header, entry) } {
                            FastPark::Parked => return RunOutcome::Idle,
                            FastPark::Repoll => {
                                if !context::take_step() {
                                    // Still `RUNNING`, owned by its next run.
                                    return RunOutcome::Yield;
                                }
                                continue;
                            }
                            FastPark::Woken => {}
                        }
                    }
                }
                Ok(Poll::Ready(())) => {
                    // SAFETY: running: ours to finish.
                    unsafe { Self::finish(this, End::Finished) };
                    return RunOutcome::Idle;
                }
                Err(payload) => {
                    // SAFETY: as above.
                    unsafe { Self::finish(this, End::Panicked(payload)) };
                    return RunOutcome::Idle;
                }
            }
            // AcqRel: Release publishes the poll's effects to the next run; Acquire sees what a
            // waker published if it notified us meanwhile.
            // `fetch_sub`, as `fetch_and(!RUNNING)`: RUNNING is set (see the module docs).
            let prev = header.state.fetch_sub(RUNNING, Ordering::AcqRel);
            if prev & NOTIFIED == 0 {
                // Parked: from here on a waker may schedule (and another worker run) the process.
                return RunOutcome::Idle;
            }
            // Woken during the poll: `NOTIFIED` without `RUNNING`, which no waker schedules, so
            // the process is still ours: take it back, consuming the wake-up.
            let prev = header.reclaim();
            if prev & CANCELLED != 0 {
                // SAFETY: running: ours to finish.
                unsafe { Self::finish(this, End::Cancelled) };
                return RunOutcome::Idle;
            }
            if !context::take_step() {
                // Step budget spent: back of the queue, still `RUNNING` (owned by its next run).
                return RunOutcome::Yield;
            }
        }
    }

    /// Drops the future, leaves the registry and completes the process.
    ///
    /// # Safety
    /// The process is running on this thread (`RUNNING` set by this thread) and its future is alive.
    unsafe fn finish(this: NonNull<Header>, end: End) {
        // SAFETY: the caller runs the process, which is alive.
        let header = unsafe { this.as_ref() };
        // SAFETY: the caller runs the process: the future is ours to drop, once.
        let future = unsafe { &mut *this.cast::<Cell<F>>().as_ref().future.get() };
        let dropped = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: dropped once, here; never used again.
            unsafe { ManuallyDrop::drop(future) }
        }));
        let system = header.system();
        match end {
            End::Finished | End::Cancelled => {}
            End::Panicked(payload) => system.record_panic(&*payload),
        }
        if let Err(payload) = dropped {
            system.record_panic(&*payload);
        }
        // SAFETY: the process is alive and run by this thread.
        unsafe { system.registry.remove(this) };
        system.process_finished();
        // RUNNING is set and COMPLETE is not, so this adds COMPLETE, clears RUNNING and removes the
        // process's own reference in one step. AcqRel as in `release`.
        let delta = COMPLETE.wrapping_sub(RUNNING).wrapping_sub(REF_ONE);
        let prev = header.state.fetch_add(delta, Ordering::AcqRel);
        if prev & !(REF_ONE - 1) == REF_ONE {
            // SAFETY: that was the last reference.
            unsafe { Self::free(this) };
        }
    }

    unsafe fn free(this: NonNull<Header>) {
        let cell = this.cast::<Cell<F>>();
        // SAFETY: allocated by `allocate` from the block cache; the future has been dropped (it is
        // `ManuallyDrop`), the caller owns the last reference, so nothing else uses the cell.
        let header = unsafe { &mut (*cell.as_ptr()).header };
        // A pin the runs did not count (never `PINNED`) is not given back.
        // Relaxed: this thread gave up the last reference, whose decrement read the final state.
        let pinned = header.state.load(Ordering::Relaxed) & PINNED != 0;
        if let (true, Some((chan, vtable))) = (pinned, *header.pin.get_mut()) {
            // SAFETY: the process took this pin once and gives it back once, here.
            unsafe { (vtable.unpin)(chan) };
        }
        // SAFETY: the system reference is taken once, here.
        let system = unsafe { ManuallyDrop::take(&mut header.system) };
        // SAFETY: allocated by `allocate` from the block cache with this layout; nothing uses it
        // any more, and `Cell<F>`'s drop would do nothing (every field that owns is `ManuallyDrop`,
        // the rest are plain words and cells of them).
        unsafe { Blocks::drop_and_release(cell) };
        bank::deposit(system);
    }
}
