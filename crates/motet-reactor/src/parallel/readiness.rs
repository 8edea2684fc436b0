//! The readiness scheduler: each triggered reaction becomes a task as soon as no reaction that could
//! precede it at this tag is pending.
//!
//! # Rule
//!
//! At a tag, a reaction is *pending* from the moment it is triggered until it completes. A pending
//! reaction `r` may run when no other pending reaction is an ancestor of `r` in the reaction graph.
//! This is exact: a reaction that could still write what `r` reads (or precede it in its reactor) is
//! an ancestor; if it is not pending now it can only become so through a pending ancestor of its own,
//! which would also be an ancestor of `r`. Unlike the level scheduler there is no barrier: a reaction
//! deep in one branch of the graph runs while a shallow one of another branch is still running.
//!
//! Ancestry comes from the [`Closure`] bitsets. For programs too large for them, the rule falls back
//! to levels: `r` may run when no pending reaction has a lower level (which is level-synchronous
//! execution, still without a global barrier per level).
//!
//! # Protocol
//!
//! The bookkeeping (the [`Engine`], the pending and waiting sets) sits behind one mutex, taken once
//! per completed reaction: the worker that finished `r` takes in its effects (new triggers, new
//! events), drops `r` from the pending set, and schedules every reaction that became free, the last
//! one into its own next-task slot so that a chain of reactions continues on the same worker. Bodies
//! run outside the lock. When the pending set empties, that worker plays the scheduler for the next
//! tag (see the parent module).

use std::ptr::NonNull;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Mutex;

use motet_reactor_core::{Engine, Metrics, Next, Program, RunError, RunOptions};
use motet_runtime::{Handle, RunOutcome, TaskHeader, TaskRef, TaskVTable};

use super::closure::{Bits, Closure};
use super::Driver;
use crate::clock::{now_ns, StdClock};
use crate::runner::execute_guarded;
use crate::trace::Recorder;

/// How blocking is decided.
enum Reach {
    Closure {
        closure: Closure,
        pending: Bits,
        waiting: Bits,
    },
    Levels {
        /// Pending reactions per level.
        count: Vec<u32>,
        /// Waiting reactions per level.
        waiting: Vec<Vec<u32>>,
        /// The lowest level with a pending reaction.
        min: usize,
    },
}

struct Core {
    engine: Engine,
    reach: Reach,
    pending: usize,
    fresh: Vec<u32>,
    release: Vec<u32>,
}

struct Shared<'p> {
    prog: &'p Program,
    handle: Handle,
    driver: Driver,
    core: Mutex<Core>,
    tasks: Vec<ReactionTask>,
    recorder: Option<&'p Recorder>,
}

/// One reaction as a runtime task (allocated once per run, scheduled once per execution).
#[repr(C)]
struct ReactionTask {
    header: TaskHeader,
    shared: *const Shared<'static>,
    r: u32,
}

static VTABLE: TaskVTable = TaskVTable {
    run: run_task,
    shutdown: shutdown_task,
};

/// Runs `prog` on `handle`'s workers with the readiness scheduler.
pub(crate) fn run(
    prog: &mut Program,
    handle: &Handle,
    options: &RunOptions,
    recorder: Option<&Recorder>,
) -> Result<Metrics, RunError> {
    let prog: &Program = prog;
    let g = prog.graph();
    let n = g.reactions.len();
    let reach = match Closure::new(g) {
        Some(closure) => {
            let w = closure.words();
            Reach::Closure {
                closure,
                pending: Bits::new(w),
                waiting: Bits::new(w),
            }
        }
        None => Reach::Levels {
            count: vec![0; g.levels as usize],
            waiting: vec![Vec::new(); g.levels as usize],
            min: usize::MAX,
        },
    };
    let shared = Shared {
        prog,
        handle: handle.clone(),
        driver: Driver::new(),
        core: Mutex::new(Core {
            engine: Engine::new(prog, now_ns(), options),
            reach,
            pending: 0,
            fresh: Vec::with_capacity(n.min(1 << 16)),
            release: Vec::with_capacity(n.min(1 << 16)),
        }),
        tasks: Vec::with_capacity(n),
        recorder,
    };
    let mut shared = shared;
    let self_ptr: *const Shared<'_> = &shared;
    for r in 0..n as u32 {
        shared.tasks.push(ReactionTask {
            header: TaskHeader::new(&VTABLE),
            shared: self_ptr.cast(),
            r,
        });
    }
    let sh = &shared;
    sh.driver.drive(prog, || {
        let mut core = sh.core.lock().unwrap_or_else(|e| e.into_inner());
        let next = sh.advance(&mut core);
        sh.release(&mut core);
        next
    });
    if shared.driver.aborted.load(SeqCst) {
        return Err(RunError::RuntimeShutDown);
    }
    let core = shared.core.into_inner().unwrap_or_else(|e| e.into_inner());
    core.engine.finish()
}

impl Shared<'_> {
    /// Plays the scheduler after a tag's last completion (or at the start / after a wait): finishes
    /// tags and enters new ones until reactions are released, or returns what the driver must do.
    fn advance(&self, core: &mut Core) -> Option<Next> {
        loop {
            let prog = self.prog;
            match core.engine.next(prog, &StdClock) {
                Next::Tag(tag) => {
                    if let Some(rec) = self.recorder {
                        rec.tag(tag);
                    }
                    let Core { engine, fresh, .. } = core;
                    engine.enter_tag(prog, tag, &mut |r| fresh.push(r));
                    if core.fresh.is_empty() {
                        core.engine.finish_tag(prog);
                        continue;
                    }
                    if let Reach::Levels { min, .. } = &mut core.reach {
                        *min = usize::MAX;
                    }
                    self.admit(core, None);
                    return None;
                }
                other => return Some(other),
            }
        }
    }

    /// Makes the freshly triggered reactions pending, then (after dropping `done`, the reaction that
    /// just completed) moves every reaction that became free to `release`.
    fn admit(&self, core: &mut Core, done: Option<u32>) {
        let g = self.prog.graph();
        let Core {
            reach,
            pending,
            fresh,
            release,
            ..
        } = core;
        *pending += fresh.len();
        match reach {
            Reach::Closure {
                closure,
                pending: pend,
                waiting,
            } => {
                for &r in fresh.iter() {
                    pend.set(r as usize);
                }
                if let Some(d) = done {
                    pend.clear(d as usize);
                    // Waiting descendants of `d` may be free now.
                    let desc = closure.descendants(d as usize);
                    for (w, &d) in desc.iter().enumerate() {
                        let mut bits = waiting.0[w] & d;
                        while bits != 0 {
                            let b = bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            let c = w * 64 + b;
                            if !pend.intersects(closure.ancestors(c)) {
                                waiting.clear(c);
                                release.push(c as u32);
                            }
                        }
                    }
                }
                for &r in fresh.iter() {
                    if pend.intersects(closure.ancestors(r as usize)) {
                        waiting.set(r as usize);
                    } else {
                        release.push(r);
                    }
                }
            }
            Reach::Levels {
                count,
                waiting,
                min,
            } => {
                for &r in fresh.iter() {
                    let l = g.reactions[r as usize].level as usize;
                    count[l] += 1;
                    waiting[l].push(r);
                    *min = (*min).min(l);
                }
                if let Some(d) = done {
                    count[g.reactions[d as usize].level as usize] -= 1;
                }
                while *min < count.len() && count[*min] == 0 {
                    *min += 1;
                }
                // Nothing is pending below `min`: everything waiting at `min` is free.
                if *min < count.len() {
                    release.append(&mut waiting[*min]);
                }
            }
        }
        fresh.clear();
        if done.is_some() {
            *pending -= 1;
        }
    }

    /// Schedules the released reactions (called with the lock held: scheduling only queues).
    fn release(&self, core: &mut Core) {
        for r in core.release.drain(..) {
            self.driver.outstanding.fetch_add(1, SeqCst);
            let task = &self.tasks[r as usize];
            // SAFETY: the task lives in `tasks` until the run ends, which waits for `outstanding`
            // to drop to zero; a reaction is released at most once per tag and the next release
            // of it can only follow its completion, so it is never queued twice.
            unsafe {
                self.handle
                    .schedule(TaskRef::from_raw(NonNull::from(&task.header)));
            }
        }
    }

    /// After reaction `r` ran: take in its effects, release what became free, and if the tag is
    /// over, play the scheduler. If exactly one reaction became free and nothing else is pending,
    /// it is returned to run inline on this worker (when `inline` allows) instead of being
    /// scheduled: a chain of dependent reactions then costs no task hand-off.
    fn completed(&self, r: u32, panicked: Option<RunError>, inline: bool) -> Option<u32> {
        let mut core = self.core.lock().unwrap_or_else(|e| e.into_inner());
        let prog = self.prog;
        {
            let Core { engine, fresh, .. } = &mut *core;
            engine.complete(prog, r, &mut |t| fresh.push(t));
            if let Some(e) = panicked {
                engine.fail(e);
            }
        }
        self.admit(&mut core, Some(r));
        if core.pending == 0 {
            core.engine.finish_tag(prog);
            if let Some(next) = self.advance(&mut core) {
                self.driver.hand_over(next);
            }
        }
        if inline && core.pending == 1 && core.release.len() == 1 {
            return core.release.pop();
        }
        self.release(&mut core);
        None
    }
}

/// How many reactions one task may run inline in a row before handing the chain to the pool (so
/// that other work on this worker is not starved).
const INLINE_CHAIN: u32 = 256;

unsafe fn run_task(header: NonNull<TaskHeader>) -> RunOutcome {
    // SAFETY: the header is the first field of a `ReactionTask` (repr(C)), alive until the run ends.
    let task = unsafe { header.cast::<ReactionTask>().as_ref() };
    // SAFETY: `shared` outlives every scheduled task (see `Shared::release`).
    let shared = unsafe { &*task.shared };
    let mut r = task.r;
    let mut chain = 0;
    loop {
        // SAFETY: the reaction was released: no pending ancestor, so its triggered predecessors
        // have completed and no other reaction of its reactor (an ancestor or descendant) runs.
        let panicked = unsafe { execute_guarded(shared.prog, r as usize, shared.recorder) };
        chain += 1;
        match shared.completed(r, panicked, chain < INLINE_CHAIN) {
            Some(next) => r = next,
            None => break,
        }
    }
    shared.driver.outstanding.fetch_sub(1, SeqCst);
    RunOutcome::Idle
}

unsafe fn shutdown_task(header: NonNull<TaskHeader>) {
    // SAFETY: as in `run_task`.
    let task = unsafe { header.cast::<ReactionTask>().as_ref() };
    // SAFETY: as in `run_task`.
    let shared = unsafe { &*task.shared };
    shared.driver.abort();
    shared.driver.outstanding.fetch_sub(1, SeqCst);
}
