//! A process: a motet-runtime task whose shared part is a [`Header`] (its state word, its system,
//! its parked runnable) and whose private part is the process's future.
//!
//! # Layout
//!
//! A process is a task of kind [`ProcessTask<F>`] (`F` the future): the runtime makes one cell,
//! in a block of the crate's block cache (`crate::blocks`), holding the runtime's task header,
//! the process's [`Header`] and the future, and frees it when the process's [`Runnable`] is
//! dropped. The process's [`Waker`](std::task::Waker) and the code
//! that does not know `F` (the channels, the registry) work on the header. A receive's wait-queue
//! entry lives inside the future, so parking costs no allocation either.
//!
//! # The state word
//!
//! `state` packs five flags and a reference count into 32 bits (the registry slot shares its
//! word):
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
//!   one per [`Waker`](std::task::Waker) clone. The process's cell is freed when the count reaches
//!   zero (see "The runnable" below).
//!
//! Transitions (every one but a run's start is one atomic read-modify-write):
//!
//! | event | operation | effect |
//! | --- | --- | --- |
//! | wake | compare-and-swap: idle -> `+ RUNNING`, else `+ NOTIFIED` | schedules the process if it was idle |
//! | run starts | a load | sees `CANCELLED` |
//! | poll returned `Pending`, a receive asked to park in its channel's word | a load of the channel's word, a load, then the word's compare-and-swap | notified: not parked; or parked (still `RUNNING`) |
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
//! # The runnable
//!
//! The process's [`Runnable`], the right to schedule it, lies in the runtime's queues while the
//! process is scheduled, and in the header's `runnable` slot otherwise. The slot belongs to whoever
//! owns the process's scheduling:
//!
//! - a run parks the runnable there as it starts, and leaves it there: the operation that
//!   publishes that the process is idle (the decrement that clears `RUNNING`, or the
//!   compare-and-swap that parks it in a channel's word) hands the slot over with it, and a run
//!   whose publication fails, or that a wake-up took back, still has it. A run that yields takes
//!   it out to give it back to the runtime;
//! - the one that wins the idle-to-running transition (a wake, a cancel), or takes a fast-parked
//!   entry out of its channel's word, takes it out and schedules it ([`schedule`]);
//! - a finished process leaves it there as it drops its own reference, and whoever takes the count
//!   to zero takes it out and drops it, which frees the cell (the runtime drops the header, whose
//!   own `Drop` gives back the pinned channel and the system reference, and frees the memory).
//!
//! So scheduling costs no atomic operation beyond the state word's (the runtime's part is a move
//! in and out of the slot), the run never moves the runnable while it polls, and the process never
//! frees its own memory.
//!
//! # Waking without a reference
//!
//! A channel that finds a parked receiver wakes it under the channel's lock, with the raw header
//! pointer its wait-queue entry holds: no reference count is taken. This is sound because the entry
//! lies inside the process's own future (checked when it registers, see [`Header::contains`]): the
//! process cannot be freed before its future is dropped, dropping the future unlinks the entry
//! under the same lock, and a sender that wins the idle-to-running transition is the only one that
//! may schedule the process, so it cannot run (let alone finish) before that sender is done with it.
//! Wakers handed to other futures (timers, actor asks) are ordinary counted wakers.

mod run;
mod waker;

use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;
use std::sync::Arc;

use motet_runtime::Runnable;

use crate::bank;
use crate::channel::fast_park::{ParkVTable, NO_REQUEST};
use crate::sync::atomic::{AtomicU32, Ordering};
use crate::sync::UnsafeCell;
use crate::system::SystemShared;

pub(crate) use run::ProcessTask;
pub(crate) use waker::header_of;

/// A wake-up not yet consumed by a poll.
pub(crate) const NOTIFIED: u32 = 1 << 0;
/// A worker is polling the future.
pub(crate) const RUNNING: u32 = 1 << 1;
/// The future is gone.
pub(crate) const COMPLETE: u32 = 1 << 2;
/// Shutdown asked the process to stop.
pub(crate) const CANCELLED: u32 = 1 << 3;
/// The process pinned a channel it parks on through the channel's lock word (see
/// `channel::fast_park`): a `RUNNING` process may be parked there.
pub(crate) const PINNED: u32 = 1 << 4;
/// One reference.
pub(crate) const REF_ONE: u32 = 1 << 5;
/// The count's bits.
const REFS: u32 = !(REF_ONE - 1);
/// The highest state word a reference may be added to: a count this high (over 2^26 wakers of one
/// process) means leaked wakers, and adding more could carry out of the word. Aborts, as `Arc`
/// does past `isize::MAX`.
const MAX_REFS: u32 = u32::MAX >> 1;

/// The part of a process that code not knowing the future's type sees: the task's shared part.
pub(crate) struct Header {
    /// Five flags and the reference count (see "The state word" in the module docs); 32 bits, so
    /// that the registry slot fits beside it in one word and the header, after the runtime's
    /// task header, fills one cache line.
    pub(crate) state: AtomicU32,
    /// The process's shard and entry in its system's registry plus one, 0 until it first parks:
    /// written and read by its runs only (see `registry`).
    pub(crate) registry_slot: std::cell::UnsafeCell<u32>,
    /// The system the process belongs to; released when the process's cell is freed (through the
    /// freeing thread's bank, see `bank`).
    system: ManuallyDrop<Arc<SystemShared>>,
    /// The channel the process parks on through its lock word, and that channel's operations:
    /// written by the receive that first asks to park there (see [`Header::request_park`]), kept
    /// by the run that then takes the pin and sets `PINNED` (or cleared, if it takes none), read
    /// by wakers that saw `PINNED`; the pin is given back when the header is dropped.
    pin: std::cell::UnsafeCell<Option<(*const (), &'static ParkVTable)>>,
    /// The park request the run reads after each poll: [`NO_REQUEST`],
    /// [`REFUSED`](crate::channel::fast_park::REFUSED), or the address of the entry a receive
    /// asked to park in the pinned channel's word. Written and read by the process's runs (and
    /// the polls inside them), but for one case: while the process is parked in that word, it
    /// holds the empty word the park replaced, which the lock that takes the entry out reads
    /// ([`Header::replaced_word`]) before it schedules the process, whose next run resets it.
    park: std::cell::UnsafeCell<usize>,
    /// The process's runnable while no run holds it (see "The runnable" in the module docs);
    /// empty (uninitialised) while a run holds it. Never dropped with the header: whoever frees
    /// the process takes it out first.
    runnable: UnsafeCell<MaybeUninit<Runnable<Header>>>,
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
// it: `state` is atomic; `registry_slot`, `park` and `pin` (before `PINNED`) are used by the
// process's runs only, which `state` orders (and `park`, while the process is parked in a
// channel's word, by the lock that takes it out, which the word orders); `pin` (after
// `PINNED`) does not change once others can read it; the runnable slot is used by
// whoever owns the process's scheduling, one thread at a time (see the module docs); the system
// is immutable while the process lives.
unsafe impl Sync for Header {}
// SAFETY: as above; the future behind the header is `Send` (required by `spawn`).
unsafe impl Send for Header {}

impl Header {
    /// The header of a new process of `system`: `RUNNING` (owned by the run its spawner
    /// schedules) and holding its own reference.
    pub(crate) fn new(system: &Arc<SystemShared>) -> Header {
        Header {
            state: AtomicU32::new(RUNNING | REF_ONE),
            registry_slot: std::cell::UnsafeCell::new(0),
            system: ManuallyDrop::new(bank::withdraw(system)),
            pin: std::cell::UnsafeCell::new(None),
            park: std::cell::UnsafeCell::new(NO_REQUEST),
            runnable: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    pub(crate) fn system(&self) -> &SystemShared {
        &self.system
    }

    /// Whether `addr` lies inside this process's cell, between the header and the future's end.
    /// An entry there lies in the future (the header holds none), which is dropped before the
    /// cell can be freed: that is what lets it hold a plain pointer.
    #[inline]
    pub(crate) fn contains(&self, addr: usize) -> bool {
        // SAFETY: a process header is only ever the shared part of its process's task cell
        // (`ProcessTask::spawn` makes it there, and nothing moves it out), which the caller's
        // reference shows alive.
        unsafe { motet_runtime::task::cell_contains(self, addr) }
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

    /// The empty lock word that this process's park in its pinned channel's word replaced (see
    /// `channel::fast_park`), for the lock that takes the entry out, to carry the generation on.
    ///
    /// # Safety
    /// The caller's lock has just taken this process's entry out of the word (the park's release
    /// compare-and-swap published the value, and the process cannot run before the caller, who
    /// now owns its scheduling, schedules it).
    #[inline]
    pub(crate) unsafe fn replaced_word(&self) -> usize {
        // SAFETY: the caller's contract.
        unsafe { *self.park.get() }
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

    /// Records a wake-up; `Schedule` if the caller now owns the duty to schedule the process (it
    /// was neither running nor complete, and is now `RUNNING`: owned by the run the caller
    /// schedules).
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
        // Relaxed: the caller's reference keeps the process alive; the new one is published with
        // whatever holds it.
        if self.state.fetch_add(REF_ONE, Ordering::Relaxed) > MAX_REFS {
            too_many_refs();
        }
    }

    /// A wake-up that also sets `extra`: an idle process becomes `RUNNING` (the caller schedules
    /// it), a running one `NOTIFIED` (as does one whose run is just taking itself back after a
    /// wake-up, `NOTIFIED` without `RUNNING`). A complete one only gets the flags.
    #[inline]
    fn wake_with(&self, extra: u32) -> Woken {
        let mut cur = self.state.load(Ordering::Relaxed);
        loop {
            let idle = cur & (NOTIFIED | RUNNING | COMPLETE) == 0;
            let new = cur | extra | if idle { RUNNING } else { NOTIFIED };
            // AcqRel: Release publishes what the waker did before waking to the run that sees the
            // wake-up (a poll's end acquires; a scheduled run is ordered after the scheduling);
            // Acquire orders our later use of the process after it: the runnable its run parked
            // before the release that made it idle, and the pin that came with `PINNED`.
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
    fn reclaim(&self) -> u32 {
        // NOTIFIED is set and RUNNING clear, so adding RUNNING - NOTIFIED clears one and sets the
        // other. Acquire: sees what the wakers published before their wake-up.
        self.state.fetch_add(RUNNING - NOTIFIED, Ordering::Acquire)
    }

    /// Puts the process's runnable in its slot: a run, as it starts (see the module docs).
    ///
    /// # Safety
    /// The caller holds the runnable (so the slot is empty) and owns the slot until it publishes
    /// the park.
    #[inline(always)]
    unsafe fn park_runnable(&self, runnable: Runnable<Header>) {
        // SAFETY: the caller's contract: the slot is empty and ours (a plain write, no drop).
        self.runnable
            .with_mut(|slot| unsafe { (*slot).write(runnable) });
    }

    /// Takes the process's runnable out of its slot, leaving it empty.
    ///
    /// # Safety
    /// The caller owns the process's scheduling, or took its count to zero, so it owns the slot,
    /// which holds the runnable: the run that parked it published the park with a release that
    /// the caller's own operation acquired (or the caller is that run, and published no park).
    #[inline(always)]
    unsafe fn unpark(&self) -> Runnable<Header> {
        // SAFETY: the caller's contract.
        self.runnable
            .with_mut(|slot| unsafe { (*slot).assume_init_read() })
    }

    /// Gives up one reference; frees the process if it was the last one (it is complete then).
    ///
    /// # Safety
    /// The caller owns a reference to the live process at `this` and does not use it afterwards.
    pub(crate) unsafe fn release(this: NonNull<Header>) {
        // SAFETY: the caller's reference keeps the header alive until the decrement.
        let header = unsafe { this.as_ref() };
        // AcqRel: Release orders our uses before the freeing; Acquire (for the last one) sees every
        // other holder's uses, and the runnable the finished run parked.
        let prev = header.state.fetch_sub(REF_ONE, Ordering::AcqRel);
        if prev & REFS == REF_ONE {
            debug_assert!(prev & COMPLETE != 0, "the process's own reference is gone");
            // SAFETY: the count reached zero here: the finished run parked the runnable before it
            // gave up its own reference, and nobody else can reach the slot.
            let runnable = unsafe { header.unpark() };
            drop(runnable);
        }
    }
}

impl Drop for Header {
    /// Run by the runtime as it frees the cell, once the process's runnable is dropped.
    fn drop(&mut self) {
        // A pin the runs did not count (never `PINNED`) is not given back. Relaxed: the thread
        // that freed the cell acquired the final state with the last reference.
        let pinned = self.state.load(Ordering::Relaxed) & PINNED != 0;
        if let (true, Some((chan, vtable))) = (pinned, *self.pin.get_mut()) {
            // SAFETY: the process took this pin once and gives it back once, here.
            unsafe { (vtable.unpin)(chan) };
        }
        // SAFETY: the system reference is taken once, here, and the field never used again.
        let system = unsafe { ManuallyDrop::take(&mut self.system) };
        bank::deposit(system);
    }
}

/// Ends the program: a process's reference count is about to overflow its field (see `MAX_REFS`).
/// Aborting, since unwinding would leave the count wrong.
#[cold]
#[inline(never)]
fn too_many_refs() -> ! {
    eprintln!("motet-process: too many wakers of one process");
    std::process::abort()
}

/// Schedules a process whose scheduling the caller owns.
///
/// # Safety
/// The caller won the process's idle-to-running transition (`notify` or `cancel` returned
/// `Schedule`), or took its fast-parked entry out of its channel's word, and has not scheduled it
/// yet.
#[inline]
pub(crate) unsafe fn schedule(header: NonNull<Header>) {
    // SAFETY: a process whose run is owed is alive (only that run can complete it, and that run
    // needs this scheduling), and the caller's contract gives it the slot.
    let (header, runnable) = unsafe { (header.as_ref(), header.as_ref().unpark()) };
    header.system().schedule(runnable);
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

#[cfg(all(test, not(loom), target_pointer_width = "64"))]
mod tests {
    use super::Header;

    /// The header is six words, so that with the runtime's two-word task header it fills one
    /// 64-byte line: a process cell is that line plus its future, and every word more moves
    /// small processes into the block cache's next size class (a fork-join workload of a
    /// million short processes pays for it in cache misses).
    #[test]
    fn a_process_header_is_six_words() {
        assert_eq!(std::mem::size_of::<Header>(), 48);
    }
}
