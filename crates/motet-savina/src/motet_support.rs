//! What motet's own variants share: building the runtime (untimed, in [`prepare`]), the
//! [`Iteration`] that runs a benchmark's program on it, and a slot through which the final actor
//! hands its result to the harness.

use std::sync::{Arc, Mutex};

use motet_runtime::Runtime;

use crate::bench::{Iteration, Outcome, Prepared};

/// Builds a motet variant: the runtime with `threads` workers (untimed), and an [`Iteration`] whose
/// timed `run` calls `run` with the decoded parameters `cfg` and that runtime.
pub(crate) fn prepare<C: 'static>(
    cfg: C,
    threads: usize,
    run: fn(&C, &Runtime) -> Outcome,
) -> Prepared {
    Ok(Box::new(Program {
        cfg,
        rt: runtime(threads)?,
        run,
    }))
}

/// A motet variant's program: its parameters, its runtime and the function that runs one
/// iteration.
struct Program<C> {
    cfg: C,
    rt: Runtime,
    run: fn(&C, &Runtime) -> Outcome,
}

impl<C> Iteration for Program<C> {
    fn run(&mut self) -> Outcome {
        (self.run)(&self.cfg, &self.rt)
    }
}

/// Builds a motet variant whose validation is untimed (Savina checks apsp, astar, recmatmul and
/// sor in `cleanupIteration`): the timed `run` returns what the program ended with, and
/// `validate` checks it in [`Iteration::validate`]. Until then the outcome is a failure, so that
/// a caller that skips the validation cannot mistake the run for a checked one.
pub(crate) fn prepare_validated<C: 'static, R: 'static>(
    cfg: C,
    threads: usize,
    run: fn(&C, &Runtime) -> R,
    validate: fn(&C, R) -> Outcome,
) -> Prepared {
    Ok(Box::new(Validated {
        cfg,
        rt: runtime(threads)?,
        run,
        validate,
        last: None,
    }))
}

/// A motet variant's program with an untimed validation (see [`prepare_validated`]).
struct Validated<C, R> {
    cfg: C,
    rt: Runtime,
    run: fn(&C, &Runtime) -> R,
    validate: fn(&C, R) -> Outcome,
    /// What the last run ended with, until it is validated.
    last: Option<R>,
}

impl<C, R> Iteration for Validated<C, R> {
    fn run(&mut self) -> Outcome {
        self.last = Some((self.run)(&self.cfg, &self.rt));
        Outcome::failed(NOT_VALIDATED)
    }

    fn validate(&mut self, outcome: Outcome) -> Outcome {
        match self.last.take() {
            Some(last) => (self.validate)(&self.cfg, last),
            None => outcome,
        }
    }
}

/// The outcome of a run whose untimed validation has not run yet.
pub(crate) const NOT_VALIDATED: &str = "the run's result was not validated";

/// A motet runtime with `threads` workers.
pub(crate) fn runtime(threads: usize) -> Result<Runtime, String> {
    Runtime::builder()
        .workers(threads.max(1))
        .name("motet-savina")
        .build()
        .map_err(|e| e.to_string())
}

/// A value set once by an actor and read by the harness after the run is quiescent.
pub(crate) struct ResultSlot<T>(Arc<Mutex<Option<T>>>);

impl<T> Clone for ResultSlot<T> {
    fn clone(&self) -> Self {
        ResultSlot(self.0.clone())
    }
}

impl<T> ResultSlot<T> {
    /// An empty slot.
    pub(crate) fn new() -> ResultSlot<T> {
        ResultSlot(Arc::new(Mutex::new(None)))
    }

    /// Stores the result.
    pub(crate) fn set(&self, value: T) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    }

    /// Takes the result, if one was stored.
    pub(crate) fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}
