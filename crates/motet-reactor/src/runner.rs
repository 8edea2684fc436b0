//! Running a program: on the calling thread, or in parallel on a motet runtime, with the readiness
//! or the level scheduler; in real time or fast; with a trace and LF's metrics.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use motet_reactor_core::{Engine, LevelQueue, Metrics, Next, Program, RunError, RunOptions, Tag};
use motet_runtime::Handle;

use crate::clock::{StdClock, StdPlatform};
use crate::parallel::level::Sharing;
use crate::parallel::readiness::Protocol;
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
        let started = Instant::now();
        let recorder = self.trace.then(Recorder::new);
        let workers = self.handle.as_ref().map_or(1, Handle::workers);
        let metrics = match &self.handle {
            Some(h) if workers > 1 => match self.scheduler {
                SchedulerKind::Readiness if !self.readiness_protocol => {
                    // Where the readiness rule never frees two reactions at once, one thread is
                    // the cheapest way to follow it; elsewhere LF's lock-free level protocol with
                    // chains run as one (see the readiness module).
                    match crate::parallel::readiness::protocol(program) {
                        Protocol::Sequential => run_here(program, &self.options, recorder.as_ref()),
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
            _ => run_here(program, &self.options, recorder.as_ref()),
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
    outcome.err().map(|payload| RunError::Panicked {
        reaction: prog.graph().reactions[r].name.clone(),
        message: panic_message(&*payload),
    })
}

pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// The single-threaded path (core's sequential scheduler, with panics contained and tracing).
///
/// Panics are caught once per run rather than once per reaction: the whole tag loop runs inside one
/// `catch_unwind`, and a panic in a body completes that reaction, records the error and resumes the
/// loop in the middle of its tag, under a fresh `catch_unwind` (the run stops at the end of the
/// tag, as on the parallel paths).
fn run_here(
    program: &mut Program,
    options: &RunOptions,
    recorder: Option<&Recorder>,
) -> Result<Metrics, RunError> {
    let prog: &Program = program;
    let mut platform = StdPlatform::new(prog.inbox());
    let mut engine = Engine::new(prog, crate::clock::now_ns(), options);
    let mut ready = LevelQueue::new(prog);
    // The tag entered and not yet finished, and the reaction whose body is running, or
    // `u32::MAX` if none is (a panic elsewhere is a bug of the scheduler and is not contained;
    // one store per body on each side, where an `Option` takes two).
    let mut current: Option<Tag> = None;
    let mut running: u32 = u32::MAX;
    loop {
        let outcome = catch_unwind(AssertUnwindSafe(|| loop {
            if let Some(tag) = current {
                // Two loops, so that an untraced run tests nothing per reaction for tracing.
                match recorder {
                    // Tag after tag, as long as each next one is the next microstep with only
                    // zero-delay actions (`Engine::enter_next_microstep`).
                    // The lone reaction a microstep's events trigger is handed back in a local
                    // (`LevelQueue::offer`) and runs first, without a trip through the queue.
                    None => {
                        let mut hand = u32::MAX;
                        loop {
                            engine.run_ready_from(prog, &mut ready, hand, |r| {
                                running = r;
                                // SAFETY: reactions run one at a time in level order, so every
                                // triggered predecessor has completed.
                                unsafe { prog.execute(r as usize, &StdClock) };
                                running = u32::MAX;
                            });
                            engine.finish_tag(prog);
                            hand = u32::MAX;
                            if !engine.enter_next_microstep(prog, &mut |r| {
                                ready.offer(prog, r, &mut hand)
                            }) {
                                break;
                            }
                        }
                    }
                    Some(rec) => {
                        engine.run_ready(prog, &mut ready, |r| {
                            running = r;
                            let start = rec.now();
                            // SAFETY: as above.
                            unsafe { prog.execute(r as usize, &StdClock) };
                            rec.span(r, tag, start);
                            running = u32::MAX;
                        });
                        engine.finish_tag(prog);
                    }
                }
                current = None;
            }
            match engine.next(prog, &StdClock) {
                Next::Done => return,
                Next::WaitUntil(t) => {
                    motet_reactor_core::Platform::wait(&mut platform, prog.inbox(), Some(t))
                }
                Next::WaitForInput => {
                    motet_reactor_core::Platform::wait(&mut platform, prog.inbox(), None)
                }
                Next::Tag(tag) => {
                    if let Some(rec) = recorder {
                        rec.tag(tag);
                    }
                    engine.enter_tag(prog, tag, &mut |r| ready.push(prog, r));
                    current = Some(tag);
                }
            }
        }));
        let body = core::mem::replace(&mut running, u32::MAX);
        match (outcome, (body != u32::MAX).then_some(body)) {
            (Ok(()), _) => break,
            // A body panicked: complete its reaction, fail the run (it stops at the end of this
            // tag), and go on with the tag's other reactions.
            (Err(payload), Some(r)) => {
                engine.complete(prog, r, &mut |s| ready.push(prog, s));
                engine.fail(RunError::Panicked {
                    reaction: prog.graph().reactions[r as usize].name.clone(),
                    message: panic_message(&*payload),
                });
            }
            (Err(payload), None) => std::panic::resume_unwind(payload),
        }
    }
    engine.finish()
}
