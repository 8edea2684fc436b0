//! The runners: the tasks that run reactions for both parallel schedulers, one per worker.
//!
//! A runner is a task of motet-runtime's ([`RunnerTask`]), made once per run for each worker. Its
//! cell, which the runtime allocates and frees, holds:
//! - its *seat* (the shared part, [`Seat`]): the scheduler it runs for and its index among the
//!   run's runners;
//! - its *scratch* (the private part, [`Scheduler::Scratch`]): buffers that its turns reuse.
//!
//! A runner is *active* while its runnable is with the runtime (queued, or running a turn) and
//! *idle* while the scheduler keeps it: the level scheduler in a slot per runner with an `active`
//! flag ([`IdleSlot`]), the readiness scheduler in a list under its lock. The scheduler activates
//! an idle runner when it has work for it by taking the runnable out and handing it to
//! [`Handle::schedule_shared`](motet_runtime::Handle::schedule_shared) ([`activate`]), where
//! another worker takes it; a turn that finds no more work gives the runnable back to the
//! scheduler and ends ([`idle`]). The scheduler's own protocol (the flag, the lock) decides who
//! takes an idle runner, so a runner is never queued twice and a wake-up is never lost.
//!
//! # Lifetime
//!
//! A seat points at the scheduler's state, which lives on the stack of the thread that called
//! [`Runner::run`](crate::Runner::run) (the driver: it borrows the program and the trace
//! recorder). The driver's `outstanding` counts every activation from the moment it is made until
//! its last turn ends idle (a turn that yields stays counted) or the runtime shuts the runner
//! down, after its last access to the state; the driver returns (or unwinds), and the state is
//! dropped, only when the count is zero. The cells are freed by the runtime when their runnables
//! are dropped: an idle runner's with the scheduler's state, at the end of the run; one the
//! runtime shut down, by the shutdown.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::SeqCst;

#[cfg(loom)]
use loom::{cell::UnsafeCell, sync::atomic::AtomicBool};
#[cfg(not(loom))]
use std::{cell::UnsafeCell, sync::atomic::AtomicBool};

use motet_reactor_core::{Program, RunError};
use motet_runtime::task::{Running, Task, Turn};
use motet_runtime::Runnable;

use super::chain::NONE;
use super::Driver;
use crate::runner::execute_guarded;
use crate::trace::Recorder;

/// A parallel scheduler's state, as its runners see it.
///
/// Implemented for the `'static` form of each scheduler's state type; the runners' seats point at
/// the driver's instance, which lives as long as the run (see the module docs).
pub(crate) trait Scheduler: Sync + Sized + 'static {
    /// What a runner's turns reuse from turn to turn (the runner's private part).
    type Scratch: Default + Send + 'static;

    /// The driver of the run.
    fn driver(&self) -> &Driver;

    /// One turn of an active runner: returns [`Turn::Yield`] to stay active behind other work,
    /// or the result of [`idle`] once the runner's runnable is back with the scheduler.
    fn turn(&self, runner: Running<RunnerTask<Self>>) -> Turn<Seat<Self>>;
}

/// A runner's shared part: which scheduler it runs for, and which of its runners it is.
pub(crate) struct Seat<S> {
    scheduler: NonNull<S>,
    /// The runner's index among the run's runners, `0..workers`.
    pub(crate) index: usize,
}

// SAFETY: a seat is a pointer to the scheduler's state, which its runners use from the workers
// that run them: `S: Sync`. The pointer is dereferenced only while the run lasts (module docs).
unsafe impl<S: Sync> Send for Seat<S> {}
// SAFETY: as above.
unsafe impl<S: Sync> Sync for Seat<S> {}

/// The kind of task a runner of scheduler `S` is.
pub(crate) struct RunnerTask<S>(PhantomData<S>);

impl<S: Scheduler> Task for RunnerTask<S> {
    type Shared = Seat<S>;
    type Private = S::Scratch;

    #[inline]
    fn run(runner: Running<Self>) -> Turn<Seat<S>> {
        // SAFETY: the runner is active, so counted in `outstanding`, and the scheduler's state
        // outlives every counted activation (see the module docs).
        let sh = unsafe { runner.scheduler.as_ref() };
        sh.turn(runner)
    }

    fn shutdown(runner: Running<Self>) {
        // SAFETY: as in `run`: a runner the runtime shuts down was queued, so counted.
        let sh = unsafe { runner.scheduler.as_ref() };
        // The runtime shut down under the run: it cannot go on. Dropping the runnable frees the
        // cell (nothing else refers to it); the count goes last, as the turn's does.
        drop(runner);
        sh.driver().abort();
        sh.driver().outstanding.fetch_sub(1, SeqCst);
    }
}

/// Makes runner `index` of the scheduler at `scheduler`, idle: the caller keeps the runnable with
/// the scheduler, as the end of a turn would.
///
/// # Safety
/// `scheduler` points at the scheduler's state, which stays where it is, alive, for as long as
/// any activation of the runner is counted in its driver's `outstanding` (see the module docs):
/// [`RunnerTask::run`] and [`RunnerTask::shutdown`] rely on it.
pub(crate) unsafe fn make<S: Scheduler>(scheduler: NonNull<S>, index: usize) -> Runnable<Seat<S>> {
    Runnable::new::<RunnerTask<S>>(Seat { scheduler, index }, S::Scratch::default())
}

/// Activates an idle runner that the caller took from the scheduler: counts the activation in
/// `outstanding` (before the runner can run and end it), then hands the runnable to the runtime
/// where another worker can take it.
#[inline]
pub(crate) fn activate<S: Scheduler>(driver: &Driver, runner: Runnable<Seat<S>>) {
    driver.outstanding.fetch_add(1, SeqCst);
    driver.handle.schedule_shared(runner);
}

/// Ends a turn whose runnable the scheduler has taken back: the end of its activation.
///
/// # Safety
/// The calling turn ends an activation (the one [`activate`] counted): it gave its runnable back
/// to the scheduler and touches neither the scheduler's state nor its runner after this (the
/// driver may return, and drop both, as soon as the count reaches zero).
#[inline]
pub(crate) unsafe fn idle<S: Scheduler>(driver: &Driver) -> Turn<Seat<S>> {
    driver.outstanding.fetch_sub(1, SeqCst);
    Turn::Idle
}

/// Runs reaction `r`, which the calling runner claimed, then the chain that follows it: while the
/// reaction that just ran succeeded and set a port that triggers the one that follows it in
/// `links` (see [`chain_links`](super::chain::chain_links)), that one, on the spot. Calls
/// `followed(s)` for each reaction `s` run after `r`; returns the panic that ended the chain, if
/// any.
///
/// # Safety
/// `r` may run now (as for [`execute_guarded`]), and until the caller has the chain's completions
/// taken in, `r`'s is not and nothing that waits for `r` runs. A reaction that follows another in
/// a chain may then run once that one has: it is its only predecessor, its other ancestors are
/// that one's, and every other reaction that waits for them descends from it (see
/// [`chain_links`](super::chain::chain_links)).
#[inline]
pub(crate) unsafe fn run_chain(
    prog: &Program,
    recorder: Option<&Recorder>,
    links: &[u32],
    r: u32,
    mut followed: impl FnMut(u32),
) -> Option<RunError> {
    // SAFETY: the caller's contract.
    let mut failed = unsafe { execute_guarded(prog, r as usize, recorder) };
    let mut last = r;
    while failed.is_none() {
        let s = links[last as usize];
        // SAFETY: `last` ran on this thread, and its completion is not taken in yet.
        if s == NONE || !unsafe { prog.sets_trigger_of(last as usize, s) } {
            break;
        }
        // SAFETY: `s` follows `last`, which has run and triggered it (see the contract).
        failed = unsafe { execute_guarded(prog, s as usize, recorder) };
        followed(s);
        last = s;
    }
    failed
}

/// Where the level scheduler keeps an idle runner's runnable (`T`), with the runner's `active`
/// flag.
///
/// # Protocol
///
/// The flag says who holds the slot. Whoever sets it (`false` → `true`, [`IdleSlot::activate`])
/// takes the item out and hands it on (to the runtime); from then on the item's holder (the
/// runner's turn) holds the slot too, and [`IdleSlot::park`] puts the item back *before* it
/// clears the flag. So the item is in the slot exactly when the flag is clear, and the slot is
/// touched by one thread at a time: the one whose swap set the flag, or the holder of the item it
/// took out. The flag's operations are `SeqCst`: a runner that clears it and then looks for work
/// once more, and a scheduler that publishes work and then tries to set it, order those four
/// operations one way or the other, so either the runner sees the work or the scheduler finds it
/// idle and activates it (the two then race for the flag, and one wins).
///
/// A slot starts held ([`IdleSlot::held`]), by the thread that makes it, which parks the item
/// before anyone else sees the slot, as a turn's end would.
pub(crate) struct IdleSlot<T> {
    active: AtomicBool,
    parked: UnsafeCell<Option<T>>,
}

// SAFETY: `parked` is touched only by the slot's holder, one thread at a time, and the handover
// between holders goes through `active` (see the protocol); the item moves between threads.
unsafe impl<T: Send> Sync for IdleSlot<T> {}

impl<T> IdleSlot<T> {
    /// An empty slot, held by the caller: the caller parks its item next.
    pub(crate) fn held() -> IdleSlot<T> {
        IdleSlot {
            active: AtomicBool::new(true),
            parked: UnsafeCell::new(None),
        }
    }

    /// Takes the parked item, if the slot is idle: the caller holds the slot (and the item) until
    /// it parks the item again. `None` if the slot is held.
    #[inline]
    pub(crate) fn activate(&self) -> Option<T> {
        // SeqCst: see the protocol. Acquire in it: the holder's park before it cleared the flag.
        if self.active.swap(true, SeqCst) {
            return None;
        }
        // SAFETY: setting the flag made this thread the slot's holder; the last holder parked
        // the item before clearing the flag, which the swap read.
        let item = unsafe { self.with_parked(Option::take) };
        debug_assert!(item.is_some(), "an idle slot holds its item");
        item
    }

    /// Parks `item` and clears the flag: the slot is idle, its item there for whoever activates
    /// it next.
    ///
    /// # Safety
    /// The caller holds the slot: it made it ([`IdleSlot::held`]) or activated it, or holds the
    /// item that whoever activated it took out; and it has not parked since.
    #[inline]
    pub(crate) unsafe fn park(&self, item: T) {
        // SAFETY: the caller holds the slot, and the slot is empty while held.
        let old = unsafe { self.with_parked(|parked| parked.replace(item)) };
        debug_assert!(old.is_none(), "a held slot is empty");
        // SeqCst: see the protocol. Release in it: the item to the next holder. A swap rather
        // than a store (on x86 both are one `xchg`): it checks that the slot was held, and loom
        // orders a swap against a concurrent store wrongly (tokio-rs/loom#254), not two swaps.
        let was_held = self.active.swap(false, SeqCst);
        debug_assert!(was_held, "an idle slot parked again");
    }

    /// Runs `f` on the parked item.
    ///
    /// # Safety
    /// The caller holds the slot.
    #[cfg(not(loom))]
    #[inline(always)]
    unsafe fn with_parked<R>(&self, f: impl FnOnce(&mut Option<T>) -> R) -> R {
        // SAFETY: the caller holds the slot: nobody else touches it meanwhile.
        f(unsafe { &mut *self.parked.get() })
    }

    /// Runs `f` on the parked item (loom checks that no two threads do so at once).
    ///
    /// # Safety
    /// The caller holds the slot.
    #[cfg(loom)]
    unsafe fn with_parked<R>(&self, f: impl FnOnce(&mut Option<T>) -> R) -> R {
        // SAFETY: the caller holds the slot: nobody else touches it meanwhile.
        self.parked.with_mut(|parked| f(unsafe { &mut *parked }))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use motet_reactor_core::{ProgramBuilder, RunError};
    use motet_runtime::Runtime;

    use crate::parallel::test_programs::source;
    use crate::{Runner, SchedulerKind};

    /// On a runtime that has shut down, the runners that either scheduler activates are shut
    /// down instead of run: the run ends with [`RunError::RuntimeShutDown`] once every one of
    /// them was.
    #[test]
    fn a_run_on_a_shut_down_runtime_ends_with_its_error() {
        for readiness in [false, true] {
            let rt = Runtime::builder().workers(2).build().unwrap();
            let handle = rt.handle().clone();
            rt.shutdown();
            // Two startup reactions: a level of two, released together.
            let mut b = ProgramBuilder::new();
            source(&mut b, "a");
            source(&mut b, "b");
            let mut program = b.build().unwrap();
            let runner = match readiness {
                true => Runner::on(&handle).readiness_protocol(true),
                false => Runner::on(&handle).scheduler(SchedulerKind::Level),
            };
            let outcome = runner.fast(true).run(&mut program);
            assert!(
                matches!(outcome, Err(RunError::RuntimeShutDown)),
                "readiness protocol {readiness}: {outcome:?}"
            );
        }
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::IdleSlot;
    use loom::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering::SeqCst};
    use loom::sync::Arc;

    /// A runner that goes idle (parks, clears the flag, then looks for work once more) against a
    /// scheduler that publishes work and then activates it: the runner is taken exactly once, by
    /// one of them (no wake-up lost, never queued twice), and the item is never touched by both.
    ///
    /// The protocol rests on `SeqCst` ordering a store before a load of another location, which
    /// loom models only for fences (it treats `SeqCst` loads and stores as acquire and release):
    /// the `SeqCst` fences here stand for that ordering of the real operations.
    #[test]
    fn loom_idle_slot_no_lost_wakeup() {
        loom::model(|| {
            let slot = Arc::new(IdleSlot::<Box<u32>>::held());
            let work = Arc::new(AtomicBool::new(false));
            let taken = Arc::new(AtomicUsize::new(0));
            let runner = {
                let (slot, work, taken) = (slot.clone(), work.clone(), taken.clone());
                loom::thread::spawn(move || {
                    // SAFETY: the slot was made held and its item is this thread's.
                    unsafe { slot.park(Box::new(7)) };
                    fence(SeqCst);
                    if work.load(SeqCst) {
                        if let Some(item) = slot.activate() {
                            assert_eq!(*item, 7);
                            taken.fetch_add(1, SeqCst);
                        }
                    }
                })
            };
            work.store(true, SeqCst);
            fence(SeqCst);
            if let Some(item) = slot.activate() {
                assert_eq!(*item, 7);
                taken.fetch_add(1, SeqCst);
            }
            runner.join().unwrap();
            assert_eq!(taken.load(SeqCst), 1);
        });
    }

    /// Two schedulers activate an idle runner while a third thread, the runner's turn that one
    /// of them will start, parks it again each time it gets it: the item is taken and parked by
    /// one thread at a time (loom checks the slot's accesses) and never lost.
    #[test]
    fn loom_idle_slot_one_holder_at_a_time() {
        loom::model(|| {
            let slot = Arc::new(IdleSlot::<Box<u32>>::held());
            // SAFETY: the slot was made held, by this thread.
            unsafe { slot.park(Box::new(7)) };
            let takers: Vec<_> = (0..2)
                .map(|_| {
                    let slot = slot.clone();
                    loom::thread::spawn(move || {
                        if let Some(item) = slot.activate() {
                            assert_eq!(*item, 7);
                            // SAFETY: activating the slot made this thread its holder.
                            unsafe { slot.park(item) };
                        }
                    })
                })
                .collect();
            for t in takers {
                t.join().unwrap();
            }
            assert_eq!(slot.activate().as_deref(), Some(&7));
        });
    }
}
