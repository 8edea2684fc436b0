//! The parallel schedulers: the reactions of a tag run as tasks on motet-runtime's workers.
//!
//! Two schedulers decide when a triggered reaction may run:
//! - [`readiness`]: as soon as no reaction that could precede it (an ancestor in the reaction graph)
//!   is still pending at this tag; by default it runs on the level protocol with *chains*
//!   ([`chain`]: a reaction that only one reaction triggers runs right after it, on the same
//!   worker);
//! - [`level`]: LF's level-synchronous scheduler (paper section 4.3), with its fixed-size lock-free
//!   ready queue ([`ready_queue`]).
//!
//! Both share the outer protocol of this module. Whoever finishes the last reaction of a tag *becomes
//! the scheduler*: it finishes the tag and, if the next tag is due (always in fast mode), enters it and
//! releases its first reactions itself, so a run never bounces between threads from tag to tag. Only
//! when the program must wait (for physical time to reach the next tag, or for a physical action) or
//! is done does it hand over to the *driver*: the thread that called [`Runner::run`](crate::Runner::run),
//! which sleeps on the program's inbox and then plays the scheduler for the next tag.
//!
//! # Lifetime of the run's shared state
//!
//! The runners ([`runner`]: the tasks that run reactions, one per worker) point at state on the
//! driver's stack. Every activation of a runner counts in `outstanding` and the count drops only
//! at the very end of the runner's last turn, after its last access; the driver returns only when
//! the run is done and the count is zero, and a panic of the scheduler's own code on the driver
//! unwinds past the state only then too.

pub(crate) mod chain;
pub(crate) mod closure;
pub(crate) mod level;
pub(crate) mod level_cost;
pub(crate) mod readiness;
pub(crate) mod ready_queue;
pub(crate) mod runner;
pub(crate) mod sequential_tags;
#[cfg(test)]
pub(crate) mod test_programs;
pub(crate) mod triggered;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex};

use motet_reactor_core::{Next, Platform, Program, RunError};
use motet_runtime::Handle;

use crate::clock::StdPlatform;

/// What the driver is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Reactions are running; the workers go on by themselves.
    Running,
    /// The workers need the driver: wait, or stop.
    Need(Next),
}

/// The driver's side of the protocol.
pub(crate) struct Driver {
    /// The runtime whose workers run the reactions.
    pub(crate) handle: Handle,
    phase: Mutex<Phase>,
    cv: Condvar,
    /// Activations of runners not yet ended (see [`runner`]).
    pub(crate) outstanding: AtomicUsize,
    /// Set when the runtime shut a runner down: the run cannot go on.
    aborted: AtomicBool,
}

impl Driver {
    pub(crate) fn new(handle: &Handle) -> Driver {
        Driver {
            handle: handle.clone(),
            phase: Mutex::new(Phase::Running),
            cv: Condvar::new(),
            outstanding: AtomicUsize::new(0),
            aborted: AtomicBool::new(false),
        }
    }

    /// Called by the worker that played the scheduler and found that the driver must act.
    pub(crate) fn hand_over(&self, next: Next) {
        let mut p = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        *p = Phase::Need(next);
        self.cv.notify_all();
    }

    /// Called by a runner the runtime shut down.
    pub(crate) fn abort(&self) {
        self.aborted.store(true, SeqCst);
        self.hand_over(Next::Done);
    }

    /// Runs the driver loop. `advance` plays the scheduler: it returns `None` once reactions are
    /// released (the workers carry on), or what the driver must do.
    ///
    /// # Errors
    /// [`RunError::RuntimeShutDown`] if the runtime shut a runner down: the run stopped.
    pub(crate) fn drive(
        &self,
        prog: &Program,
        mut advance: impl FnMut() -> Option<Next>,
    ) -> Result<(), RunError> {
        // Returning, or unwinding from a panic of the scheduler's own code, waits for the last
        // runners to end their turns (a few instructions, or a runner that finds nothing to
        // claim): the caller drops the state they point at next.
        let _runners_done = WaitForRunners(&self.outstanding);
        let mut platform = StdPlatform::new(prog.inbox());
        loop {
            *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = Phase::Running;
            let next = match advance() {
                Some(n) => n,
                None => {
                    let mut p = self.phase.lock().unwrap_or_else(|e| e.into_inner());
                    while *p == Phase::Running {
                        p = self.cv.wait(p).unwrap_or_else(|e| e.into_inner());
                    }
                    match *p {
                        Phase::Need(n) => n,
                        Phase::Running => unreachable!("loop exits on Need"),
                    }
                }
            };
            if self.aborted.load(SeqCst) {
                break;
            }
            match next {
                Next::Done => break,
                Next::WaitUntil(t) => platform.wait(prog.inbox(), Some(t)),
                Next::WaitForInput => platform.wait(prog.inbox(), None),
                Next::Tag(_) => {} // not returned by `advance`
            }
        }
        match self.aborted.load(SeqCst) {
            true => Err(RunError::RuntimeShutDown),
            false => Ok(()),
        }
    }
}

/// Waits, when dropped, until no activation of a runner is left (see [`Driver::drive`]).
struct WaitForRunners<'a>(&'a AtomicUsize);

impl Drop for WaitForRunners<'_> {
    fn drop(&mut self) {
        while self.0.load(SeqCst) != 0 {
            std::thread::yield_now();
        }
    }
}
