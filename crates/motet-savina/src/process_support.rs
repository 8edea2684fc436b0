//! What the `process` variants share: a motet runtime and a [`ProcessSystem`] on it, built once in
//! [`prepare`] (untimed, as the actor variants build their runtime), and the end of every timed
//! iteration, [`finish`], which waits for the program's processes and checks that none was left
//! behind.
//!
//! A process program starts its processes from the harness thread (or from a driver process it
//! spawns, where the actor version's driver is an actor), and its iteration ends when the runtime
//! is quiescent, as an actor program's does. A process still alive then is parked on a channel
//! nothing will send to: a bug in the program, reported as a failed check (and the system is shut
//! down, cancelling those processes) instead of a run that never ends.

use motet_process::ProcessSystem;
use motet_runtime::Runtime;

use crate::bench::{Iteration, Outcome, Prepared};
use crate::motet_support;

/// Builds a process variant: a runtime with `threads` workers and a process system on it
/// (untimed), and an [`Iteration`] whose timed `run` calls `run` with the decoded parameters `cfg`
/// and the system.
pub(crate) fn prepare<C: 'static>(
    cfg: C,
    threads: usize,
    run: fn(&C, &ProcessSystem) -> Outcome,
) -> Prepared {
    let rt = motet_support::runtime(threads)?;
    let system = ProcessSystem::new(rt.handle());
    Ok(Box::new(Program {
        cfg,
        system,
        _rt: rt,
        run,
    }))
}

/// A process variant's program: its parameters, the process system (declared before the runtime,
/// so that it is dropped first) and the function that runs one iteration.
struct Program<C> {
    cfg: C,
    system: ProcessSystem,
    _rt: Runtime,
    run: fn(&C, &ProcessSystem) -> Outcome,
}

impl<C> Iteration for Program<C> {
    fn run(&mut self) -> Outcome {
        (self.run)(&self.cfg, &self.system)
    }
}

/// Ends an iteration: waits until the runtime is quiescent, then returns `check()` if every
/// process has finished without a panic, and a failed outcome saying what went wrong otherwise.
pub(crate) fn finish(system: &ProcessSystem, check: impl FnOnce() -> Outcome) -> Outcome {
    system.handle().wait_quiescent();
    let live = system.live();
    if live > 0 {
        system.shutdown();
        return Outcome::failed(format!(
            "{live} processes were still parked when the runtime went quiescent"
        ));
    }
    match system.wait() {
        Ok(()) => check(),
        Err(e) => Outcome::failed(e.to_string()),
    }
}
