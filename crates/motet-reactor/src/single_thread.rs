//! The tag loop on one thread: the core's sequential loop, one reaction at a time in level order,
//! with a panic in a reaction body contained.
//!
//! [`run`] runs a whole program so: a run on one worker, and a pipeline under the readiness
//! scheduler (see `parallel::readiness::protocol`). The level protocol runs quiet tags
//! sequentially with the same pieces ([`contain_panics`], [`run_microsteps`]; see
//! `parallel::sequential_tags`).
//!
//! Panics are caught once per run of tags rather than once per reaction: the loop runs inside one
//! `catch_unwind`, and a panic in a body completes that reaction, records the error and resumes
//! the loop in the middle of its tag, under a fresh `catch_unwind` (the run stops at the end of
//! the tag, as on the parallel paths).

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use motet_reactor_core::{Engine, LevelQueue, Metrics, Next, Platform, Program, RunError};
use motet_reactor_core::{RunOptions, Tag};

use crate::clock::{now_ns, StdClock, StdPlatform};
use crate::trace::Recorder;

/// Runs `program` to its end on the calling thread (see the module docs).
pub(crate) fn run(
    program: &mut Program,
    options: &RunOptions,
    recorder: Option<&Recorder>,
) -> Result<Metrics, RunError> {
    let mut platform = StdPlatform::new(program.inbox());
    let mut engine = Engine::new(program, now_ns(), options);
    let mut ready = LevelQueue::new(program);
    // The tag entered and not yet finished.
    let mut current: Option<Tag> = None;
    // Runs of tags, each up to a tag after which mutations change the program (see
    // `motet_reactor_core::mutation`): they are applied here, between the runs, where nothing
    // borrows the program.
    loop {
        if engine.mutation_pending() && engine.apply_mutations(program) {
            ready.fit(program);
        }
        let prog: &Program = program;
        let mutated = run_tags(
            &mut engine,
            &mut ready,
            prog,
            &mut platform,
            &mut current,
            recorder,
        );
        if !mutated {
            break;
        }
    }
    engine.finish()
}

/// Runs tags until the end of the run (`false`) or until a tag after which mutations are
/// pending (`true`, with no tag entered).
fn run_tags(
    engine: &mut Engine,
    ready: &mut LevelQueue,
    prog: &Program,
    platform: &mut StdPlatform,
    current: &mut Option<Tag>,
    recorder: Option<&Recorder>,
) -> bool {
    contain_panics(engine, ready, prog, |engine, ready, running| {
        loop {
            if let Some(tag) = *current {
                // Two loops, so that an untraced run tests nothing per reaction for tracing.
                match recorder {
                    None => {
                        // SAFETY: this thread is the only one that runs reactions of `prog`.
                        unsafe { run_microsteps(engine, ready, prog, running, || true) };
                    }
                    Some(rec) => {
                        engine.run_ready(prog, ready, |r| {
                            *running = r;
                            let start = rec.now();
                            // SAFETY: reactions run one at a time in level order, so every
                            // triggered predecessor has completed.
                            unsafe { prog.execute(r as usize, &StdClock) };
                            rec.span(r, tag, start);
                            *running = u32::MAX;
                        });
                        engine.finish_tag(prog);
                    }
                }
                *current = None;
            }
            if engine.mutation_pending() {
                return true;
            }
            match engine.next(prog, &StdClock) {
                Next::Done => return false,
                Next::WaitUntil(t) => platform.wait(prog.inbox(), Some(t)),
                Next::WaitForInput => platform.wait(prog.inbox(), None),
                Next::Tag(tag) => {
                    if let Some(rec) = recorder {
                        rec.tag(tag);
                    }
                    engine.enter_tag(prog, tag, &mut |r| ready.push(prog, r));
                    *current = Some(tag);
                }
            }
        }
    })
}

/// Runs `step` until it returns, containing the panics of reaction bodies: `step` gets the engine,
/// the ready queue, and `running`, where it keeps the reaction whose body runs (`u32::MAX`: none,
/// one store per body on each side, where an `Option` takes two). A panic while a body runs
/// completes that reaction, fails the run (it stops at the end of this tag) and calls `step`
/// again, in the middle of its tag, to go on with the tag's other reactions; a panic elsewhere is
/// a bug of the scheduler and is not contained.
#[inline(always)]
pub(crate) fn contain_panics<T>(
    engine: &mut Engine,
    ready: &mut LevelQueue,
    prog: &Program,
    mut step: impl FnMut(&mut Engine, &mut LevelQueue, &mut u32) -> T,
) -> T {
    let mut running = u32::MAX;
    loop {
        let outcome = catch_unwind(AssertUnwindSafe(|| step(engine, ready, &mut running)));
        let body = std::mem::replace(&mut running, u32::MAX);
        match (outcome, (body != u32::MAX).then_some(body)) {
            (Ok(end), _) => return end,
            (Err(payload), Some(r)) => {
                engine.complete(prog, r, &mut |s| ready.push(prog, s));
                engine.fail(panicked(prog, r as usize, &*payload));
            }
            (Err(payload), None) => resume_unwind(payload),
        }
    }
}

/// Runs the entered tag's ready reactions, one at a time in level order, then tag after tag as
/// long as each next one is the next microstep with only zero-delay actions
/// ([`Engine::enter_next_microstep`]); `tag_done` is asked after each tag whether to go on.
/// Returns `true` when the next tag needs [`Engine::next`] (none is entered), `false` when
/// `tag_done` said to stop (between tags). `running` holds the reaction whose body runs (see
/// [`contain_panics`]).
///
/// The lone reaction that entering a microstep triggers is handed back in a local
/// ([`LevelQueue::offer`]) and runs first, without a trip through the queue's memory.
///
/// # Safety
/// No other thread runs reactions of `prog` meanwhile.
#[inline(always)]
pub(crate) unsafe fn run_microsteps(
    engine: &mut Engine,
    ready: &mut LevelQueue,
    prog: &Program,
    running: &mut u32,
    mut tag_done: impl FnMut() -> bool,
) -> bool {
    let mut hand = u32::MAX;
    loop {
        engine.run_ready_from(prog, ready, hand, |r| {
            *running = r;
            // SAFETY: reactions run one at a time in level order on this thread, and no other
            // thread runs any (the caller's contract), so every triggered predecessor has
            // completed.
            unsafe { prog.execute(r as usize, &StdClock) };
            *running = u32::MAX;
        });
        engine.finish_tag(prog);
        if !tag_done() {
            return false;
        }
        hand = u32::MAX;
        if !engine.enter_next_microstep(prog, &mut |r| ready.offer(prog, r, &mut hand)) {
            return true;
        }
    }
}

/// The error of reaction `r`'s body panicking with `payload`.
pub(crate) fn panicked(prog: &Program, r: usize, payload: &(dyn Any + Send)) -> RunError {
    RunError::Panicked {
        reaction: prog.graph().reactions[r].name.clone(),
        message: panic_message(payload),
    }
}

/// A panic's message, if it has a string one.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}
