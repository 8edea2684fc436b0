//! What the reactor variants share: the runtime and the [`Runner`] (built once per cell, untimed),
//! a fresh program per iteration (built in the untimed [`Iteration::setup`], since a reactor
//! program runs once), the timed run from start to finish, and LF's Table 1 figures of the run.
//!
//! Model `reactor` runs on motet-reactor's readiness scheduler, `reactor-level` on LF's level
//! scheduler; on one worker both run the program on the calling thread (the sequential scheduler),
//! in fast mode (logical time does not wait for physical time, as in every Savina port of LF).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use motet_reactor::{
    Ctx, Declare, Input, LogicalAction, Program, ProgramBuilder, ReactorId, Runner, SchedulerKind,
    Startup, Trace,
};
use motet_runtime::Runtime;

use crate::bench::{Iteration, Model, Outcome, Prepared, ReactorMetrics};
use crate::motet_support::runtime;

/// What reads a built reactor program's result after the run: the handles of the reactors whose
/// state holds it. A variant's `build` returns the program with its `Built`.
pub(crate) trait Built {
    /// The checked result, read from `program`'s state after the run.
    fn outcome(&mut self, program: &mut Program) -> Outcome;

    /// Untimed validation after the run (see [`Iteration::validate`]): takes what
    /// [`outcome`](Built::outcome) returned and gives the checked outcome; the default passes it
    /// through.
    fn validate(&mut self, outcome: Outcome) -> Outcome {
        outcome
    }
}

/// The scheduler of a reactor model.
pub(crate) fn scheduler(model: Model) -> SchedulerKind {
    match model {
        Model::ReactorLevel => SchedulerKind::Level,
        _ => SchedulerKind::Readiness,
    }
}

/// Adds to `reactor` a reaction named `start`, triggered at startup, whose one effect is
/// `effect` and whose body is `body(ctx, effect)`: the kick-off of a program (set an output that
/// starts other reactors, or schedule the action its sender then loops on).
pub(crate) fn at_startup<S: 'static, E: Declare + Copy + Send + 'static>(
    b: &mut ProgramBuilder,
    reactor: ReactorId<S>,
    effect: E,
    body: impl Fn(&Ctx<'_>, E) + Send + 'static,
) {
    b.reaction(reactor, "start")
        .trigger(Startup)
        .effect(effect)
        .body(move |_, ctx| body(ctx, effect));
}

/// Schedules `action` with no delay: the body of [`at_startup`] for a sender that loops on
/// `action`.
pub(crate) fn schedule_now(ctx: &Ctx<'_>, action: LogicalAction<()>) {
    ctx.schedule(action, (), Duration::ZERO);
}

/// Declares the reactor `name` at the end of a pipeline, with state `state`, one input `port` and
/// one reaction `reaction`, triggered by the input, that hands the value present to `take` (which
/// records it in the state). Returns the reactor, whose state the result is read from, and its
/// input, for the caller to connect.
pub(crate) fn sink<S, T>(
    b: &mut ProgramBuilder,
    name: &str,
    state: S,
    port: &str,
    reaction: &str,
    take: impl Fn(&mut S, T) + Send + 'static,
) -> (ReactorId<S>, Input<T>)
where
    S: Send + 'static,
    T: Copy + Send + Sync + 'static,
{
    let sink = b.reactor(name, state);
    let input = b.input::<T, _>(sink, port);
    b.reaction(sink, reaction)
        .trigger(input)
        .body(move |state: &mut S, ctx| {
            if let Some(&v) = ctx.get(input) {
                take(state, v);
            }
        });
    (sink, input)
}

/// Whether variants prepared now record tag traces (see [`crate::bench::record_tag_traces`]).
pub(crate) static TRACE_TAGS: AtomicBool = AtomicBool::new(false);

/// A digest of `trace`'s tags in the order processed and, per tag, the reactions executed at it
/// (sorted, since the reactions of one tag may complete in any order on several workers).
fn tag_digest(trace: &Trace) -> u64 {
    let mut executed: Vec<_> = trace.spans.iter().map(|s| (s.tag, s.reaction)).collect();
    executed.sort_unstable();
    let tags: Vec<_> = trace.tags.iter().map(|&(t, _)| t).collect();
    let mut h = DefaultHasher::new();
    tags.hash(&mut h);
    executed.hash(&mut h);
    h.finish()
}

/// Builds a reactor variant: a runtime with `threads` workers (untimed) and an [`Iteration`] that
/// builds a fresh program with `build` before each iteration and runs it, timed.
pub(crate) fn prepare<C: 'static, B: Built + 'static>(
    cfg: C,
    threads: usize,
    model: Model,
    build: fn(&C) -> (Program, B),
) -> Prepared {
    let rt = runtime(threads)?;
    let runner = Runner::on(rt.handle())
        .scheduler(scheduler(model))
        .fast(true)
        .trace(TRACE_TAGS.load(Ordering::Relaxed));
    Ok(Box::new(ReactorIteration {
        cfg,
        _rt: rt,
        runner,
        build,
        next: None,
        last: None,
        metrics: None,
    }))
}

struct ReactorIteration<C, B> {
    cfg: C,
    /// Kept alive for `runner`, which holds a handle to it.
    _rt: Runtime,
    runner: Runner,
    build: fn(&C) -> (Program, B),
    /// The program built by `setup` for the next `run`.
    next: Option<(Program, B)>,
    /// What read the last run's result, for its untimed validation.
    last: Option<B>,
    metrics: Option<ReactorMetrics>,
}

impl<C, B: Built> Iteration for ReactorIteration<C, B> {
    fn setup(&mut self) {
        self.next = Some((self.build)(&self.cfg));
    }

    fn run(&mut self) -> Outcome {
        let build = self.build;
        let (mut program, mut built) = self.next.take().unwrap_or_else(|| build(&self.cfg));
        match self.runner.run(&mut program) {
            Ok(report) => {
                let m = report.metrics;
                self.metrics = Some(ReactorMetrics {
                    reactors: m.reactors as u64,
                    reactions: m.reactions as u64,
                    actions: m.actions as u64,
                    ports: m.ports as u64,
                    connections: m.connections as u64,
                    tags: m.tags,
                    reactions_executed: m.reactions_executed,
                    ports_set: m.ports_set,
                    actions_scheduled: m.actions_scheduled,
                    reactors_created: m.reactors_created,
                    ns_per_reaction: None,
                    tag_trace: report.trace.as_ref().map(tag_digest),
                });
                let outcome = built.outcome(&mut program);
                self.last = Some(built);
                outcome
            }
            Err(e) => Outcome::failed(format!("the reactor program failed: {e}")),
        }
    }

    fn validate(&mut self, outcome: Outcome) -> Outcome {
        match self.last.take() {
            Some(mut built) if outcome.check.is_ok() => built.validate(outcome),
            _ => outcome,
        }
    }

    fn metrics(&self) -> Option<ReactorMetrics> {
        self.metrics
    }
}
