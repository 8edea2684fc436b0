//! Running a program from async code or from an actor: [`Runner::run_async`] returns a future
//! ([`RunFuture`]) that completes with the program and its report, and [`RunFuture::then`] hands
//! them to a callback instead, for code that cannot await (an actor's handler sends itself a
//! message from it).
//!
//! [`Runner::run`] blocks its caller: on one worker it runs the reactions there, and on several
//! it sleeps there while physical time or input is awaited. A worker of the runtime must not
//! block, so the asynchronous run gives that part to a thread of its own, started for the run
//! and ended with it; the reactions still run on the runtime's workers when the runner has more
//! than one ([`Runner::on`]). The future only waits for that thread: polling it never blocks,
//! and dropping it lets the run go on to its end unobserved.

use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use motet_reactor_core::{Program, RunError};

use crate::runner::{Report, Runner};

/// What an asynchronous run gives back: the program (to read its reactors' state with
/// [`Program::state_mut`]) and the run's outcome.
#[derive(Debug)]
#[non_exhaustive]
pub struct Finished {
    /// The program, after its run.
    pub program: Program,
    /// The report, or the first error (as [`Runner::run`] returns them).
    pub result: Result<Report, RunError>,
}

type Payload = Box<dyn std::any::Any + Send>;

/// The run's outcome as the running thread leaves it: finished, or the payload of a panic that
/// escaped [`Runner::run`] (a program run twice), re-raised where the outcome is taken.
type Outcome = Result<Finished, Payload>;

/// Who is told when the run ends.
enum Waiter {
    None,
    Task(Waker),
    Callback(Box<dyn FnOnce(Finished) + Send>),
}

/// Shared by the future and the thread that runs the program.
struct Shared {
    state: Mutex<(Option<Outcome>, Waiter)>,
}

impl Shared {
    /// Stores the outcome and tells the waiter, outside the lock.
    fn complete(&self, outcome: Outcome) {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match std::mem::replace(&mut guard.1, Waiter::None) {
            Waiter::Callback(f) => {
                drop(guard);
                call_back(f, outcome);
            }
            Waiter::Task(w) => {
                guard.0 = Some(outcome);
                drop(guard);
                w.wake();
            }
            Waiter::None => guard.0 = Some(outcome),
        }
    }
}

/// Calls `f` with a finished run, or re-raises the panic that ended it.
fn call_back(f: Box<dyn FnOnce(Finished) + Send>, outcome: Outcome) {
    match outcome {
        Ok(finished) => f(finished),
        Err(payload) => resume_unwind(payload),
    }
}

/// A program running on a thread of its own (see the module docs); completes with [`Finished`].
#[must_use = "the run goes on without it, but its outcome is only seen through it"]
pub struct RunFuture {
    shared: Arc<Shared>,
}

/// Why [`Runner::run_async`] could not start a run: no thread could be started for it. The
/// program comes back unrun.
#[derive(Debug)]
#[non_exhaustive]
pub struct StartError {
    /// The program, not started.
    pub program: Program,
    /// What the operating system said.
    pub error: std::io::Error,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no thread could be started for the run: {}", self.error)
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl std::fmt::Debug for RunFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunFuture").finish_non_exhaustive()
    }
}

impl RunFuture {
    /// Calls `f` with the outcome when the run ends, on the thread that ran it (or here, if it
    /// has ended already), instead of awaiting it: for an actor, whose handler cannot await,
    /// `f` sends the actor a message.
    ///
    /// # Panics
    /// In `f`'s thread, if the run panicked (a program run twice), as [`Runner::run`] would.
    pub fn then(self, f: impl FnOnce(Finished) + Send + 'static) {
        let mut guard = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match guard.0.take() {
            Some(outcome) => {
                drop(guard);
                call_back(Box::new(f), outcome);
            }
            None => guard.1 = Waiter::Callback(Box::new(f)),
        }
    }
}

impl Future for RunFuture {
    type Output = Finished;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Finished> {
        let mut guard = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match guard.0.take() {
            Some(Ok(finished)) => Poll::Ready(finished),
            Some(Err(payload)) => {
                drop(guard);
                resume_unwind(payload)
            }
            None => {
                guard.1 = Waiter::Task(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Runner {
    /// Runs `program` to its end without blocking the caller: the run starts at once on a
    /// thread of its own (see the module docs), and the returned future completes with the
    /// program and its outcome. Await it in a process or any async task, or give it a callback
    /// with [`RunFuture::then`].
    ///
    /// # Errors
    /// A [`StartError`], with the program, when no thread can be started for the run.
    ///
    /// ```
    /// use motet_reactor::{ProgramBuilder, Runner, Startup};
    /// let mut b = ProgramBuilder::new();
    /// let r = b.reactor("r", 0u32);
    /// b.reaction(r, "set").trigger(Startup).body(|n, _| *n = 7);
    /// let program = b.build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let run = Runner::new().fast(true).run_async(program).unwrap();
    /// run.then(move |mut done| {
    ///     assert!(done.result.is_ok());
    ///     tx.send(*done.program.state_mut(r)).unwrap();
    /// });
    /// assert_eq!(rx.recv().unwrap(), 7);
    /// ```
    pub fn run_async(&self, program: Program) -> Result<RunFuture, Box<StartError>> {
        let shared = Arc::new(Shared {
            state: Mutex::new((None, Waiter::None)),
        });
        let runner = self.clone();
        let on_thread = shared.clone();
        // The program travels to the thread through this slot, so that a failed start can give
        // it back.
        let slot = Arc::new(Mutex::new(Some(program)));
        let theirs = slot.clone();
        let started = std::thread::Builder::new()
            .name("motet-reactor-run".into())
            .spawn(move || {
                let taken = theirs.lock().unwrap_or_else(PoisonError::into_inner).take();
                let Some(mut program) = taken else { return };
                let outcome = catch_unwind(AssertUnwindSafe(|| runner.run(&mut program)))
                    .map(|result| Finished { program, result });
                on_thread.complete(outcome);
            });
        match started {
            Ok(_) => Ok(RunFuture { shared }),
            Err(error) => {
                let program = slot
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take()
                    .expect("a thread that did not start took nothing");
                Err(Box::new(StartError { program, error }))
            }
        }
    }
}
