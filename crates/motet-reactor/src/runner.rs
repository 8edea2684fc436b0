//! Running a program: on the calling thread, or in parallel on a motet runtime, with the readiness
//! or the level scheduler; in real time or fast; with a trace and LF's metrics.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use motet_reactor_core::{Metrics, Program, RunError, RunOptions};
use motet_runtime::Handle;

use crate::clock::StdClock;
use crate::parallel::level::Sharing;
use crate::parallel::readiness::Protocol;
use crate::single_thread::{self, panicked};
use crate::trace::{Recorder, Trace};

/// Which parallel scheduler runs the reactions of a tag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedulerKind {
    /// Follows the readiness rule: a reaction may run as soon as no reaction that could precede
    /// it at this tag is still pending (triggered and not finished). A pipeline runs on the
    /// calling thread; other programs run on LF's level protocol where the worker that ran a
    /// reaction runs at once the chain of reactions only it triggers, and where a level whose
    /// measured cost is too small to pay for sharing runs on the thread that plays the scheduler
    /// (see the readiness module; its own lock-based protocol, without level barriers, is kept
    /// for tests).
    #[default]
    Readiness,
    /// LF's scheduler: the reactions of one level run in parallel, with a barrier before the next
    /// level; the worker that finishes a level schedules the next.
    Level,
}

/// How to run a program (see [`Runner::run`]).
///
/// ```
/// use motet_reactor::{ProgramBuilder, Runner, Startup};
/// let mut b = ProgramBuilder::new();
/// let r = b.reactor("hello", ());
/// b.reaction(r, "greet").trigger(Startup).body(|_, ctx| println!("hello at {}", ctx.tag()));
/// let mut program = b.build().unwrap();
/// let report = Runner::new().fast(true).run(&mut program).unwrap();
/// assert_eq!(report.metrics.reactions_executed, 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Runner {
    handle: Option<Handle>,
    scheduler: SchedulerKind,
    options: RunOptions,
    trace: bool,
    readiness_protocol: bool,
    deadline_order: bool,
}

/// What a run reports.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// LF's Table 1 figures.
    pub metrics: Metrics,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Threads that ran reactions (1 for a run on the calling thread).
    pub workers: usize,
    /// The scheduler used (meaningful when `workers > 1`).
    pub scheduler: SchedulerKind,
    /// The execution trace, if tracing was on.
    pub trace: Option<Trace>,
}

impl Report {
    /// Nanoseconds of wall-clock time per executed reaction (LF's "time per reaction").
    pub fn ns_per_reaction(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.metrics.reactions_executed.max(1) as f64
    }
}

impl Runner {
    /// Runs on the calling thread, chasing physical time, without a timeout.
    pub fn new() -> Runner {
        Runner::default()
    }

    /// Runs on `handle`'s workers. With one worker the program runs on the calling thread instead
    /// (no cross-thread synchronisation is needed for one worker). Do not call
    /// [`Runner::run`] from one of that runtime's own workers: it blocks until the program ends.
    pub fn on(handle: &Handle) -> Runner {
        Runner {
            handle: Some(handle.clone()),
            ..Runner::default()
        }
    }

    /// Chooses the parallel scheduler (default: [`SchedulerKind::Readiness`]).
    pub fn scheduler(mut self, kind: SchedulerKind) -> Runner {
        self.scheduler = kind;
        self
    }

    /// Fast mode: logical time does not wait for physical time.
    pub fn fast(mut self, fast: bool) -> Runner {
        self.options.fast = fast;
        self
    }

    /// Stops the program at (T0 + `timeout`, 0).
    pub fn timeout(mut self, timeout: Duration) -> Runner {
        self.options.timeout = Some(timeout);
        self
    }

    /// Runs the readiness scheduler's own protocol (a lock round per claimed reaction or chain)
    /// instead of the sequential path or LF's level protocol with chains, which the readiness
    /// scheduler runs by default (for testing that protocol on any program).
    #[doc(hidden)]
    pub fn readiness_protocol(mut self, always: bool) -> Runner {
        self.readiness_protocol = always;
        self
    }

    /// Runs the ready reactions of a level (or, on the readiness scheduler's own protocol, the
    /// released ones) earliest deadline first, on every scheduler and on one worker (off by
    /// default): see [`Program::set_deadline_order`], which this calls before the run. What a
    /// run computes does not change, only which independent reaction starts first.
    pub fn deadline_order(mut self, on: bool) -> Runner {
        self.deadline_order = on;
        self
    }

    /// Records an execution trace (see [`Trace`]).
    pub fn trace(mut self, on: bool) -> Runner {
        self.trace = on;
        self
    }

    /// Runs `program` to its end.
    ///
    /// # Errors
    /// The first [`RunError`]: an undeclared access, a panic in a reaction (the run stops at the end
    /// of that tag), or the runtime shutting down.
    pub fn run(&self, program: &mut Program) -> Result<Report, RunError> {
        if self.deadline_order {
            program.set_deadline_order(true);
        }
        let started = Instant::now();
        let recorder = self.trace.then(Recorder::new);
        // A program whose structure may change at tag boundaries (mutations) runs on this
        // thread: the parallel schedulers' tables are made for a fixed reaction graph.
        let mutable = program.graph().mutable();
        let workers = match &self.handle {
            Some(h) if !mutable => h.workers(),
            _ => 1,
        };
        let metrics = match &self.handle {
            Some(h) if workers > 1 && !mutable => match self.scheduler {
                SchedulerKind::Readiness if !self.readiness_protocol => {
                    // Where the readiness rule never frees two reactions at once, one thread is
                    // the cheapest way to follow it; elsewhere LF's lock-free level protocol with
                    // chains run as one (see the readiness module).
                    match crate::parallel::readiness::protocol(program) {
                        Protocol::Sequential => {
                            single_thread::run(program, &self.options, recorder.as_ref())
                        }
                        Protocol::Levels(links) => crate::parallel::level::run(
                            program,
                            h,
                            &self.options,
                            recorder.as_ref(),
                            Some(links),
                            Sharing::WhenWorthIt,
                        ),
                    }
                }
                SchedulerKind::Readiness => {
                    crate::parallel::readiness::run(program, h, &self.options, recorder.as_ref())
                }
                SchedulerKind::Level => crate::parallel::level::run(
                    program,
                    h,
                    &self.options,
                    recorder.as_ref(),
                    None,
                    Sharing::Always,
                ),
            },
            _ => single_thread::run(program, &self.options, recorder.as_ref()),
        }?;
        Ok(Report {
            metrics,
            elapsed: started.elapsed(),
            workers,
            scheduler: self.scheduler,
            trace: recorder.map(|r| r.finish(program)),
        })
    }
}

/// Runs reaction `r`, containing a panic: returns the error it becomes.
///
/// # Safety
/// As for [`Program::execute`]: `r` is triggered at the current tag, its triggered predecessors
/// have completed, and no other reaction of its reactor runs.
#[inline]
pub(crate) unsafe fn execute_guarded(
    prog: &Program,
    r: usize,
    recorder: Option<&Recorder>,
) -> Option<RunError> {
    let start = recorder.map(Recorder::now);
    // SAFETY: forwarded from the caller.
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe { prog.execute(r, &StdClock) }));
    if let (Some(rec), Some(start)) = (recorder, start) {
        // SAFETY: still inside the tag.
        rec.span(r as u32, unsafe { prog.current_tag() }, start);
    }
    outcome.err().map(|payload| panicked(prog, r, &*payload))
}
