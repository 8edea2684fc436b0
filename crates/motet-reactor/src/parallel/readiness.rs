//! The readiness scheduler: a triggered reaction is released to run as soon as no reaction that
//! could precede it at this tag is pending.
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
//! Ancestry comes from the [`Closure`] bitsets. A reaction whose ancestors are exactly all the
//! reactions of the lower levels (most reactions of chains and of fully connected banks) is ruled
//! by levels instead: it may run when no pending reaction has a lower level, which for it is the
//! same rule, and counting pending reactions per level costs O(1) where testing ancestor sets costs
//! a scan per waiting descendant. For programs too large for the bitsets, every reaction is ruled
//! by levels (level-synchronous execution, still without a global barrier per level).
//!
//! # Protocol
//!
//! The bookkeeping (the [`Engine`], the pending and waiting sets, and the stack of *released*
//! reactions not yet claimed) sits behind one mutex. Reactions are run by *runners*, one task per
//! worker, as in the level scheduler: a runner claims released reactions under the lock, runs
//! their bodies outside it, then takes the lock once to take in what they did, release whatever
//! became free and claim its next ones (the last released first, so a chain of reactions stays on
//! one worker with warm caches). A runner claims its fair share of what is released (the released
//! count over the number of workers, at least one): on a wide tag the lock is taken once per share
//! rather than once per reaction, and for a chain it is one lock per reaction; never a task
//! hand-off per reaction. When the one released reaction is also the only pending one (a chain,
//! as in the message-passing programs), the runner runs it while still holding the lock: nobody
//! else could run or complete anything meanwhile, and it saves letting go of the lock and taking
//! it again per reaction. Released reactions have no pending ancestor, so the reactions of a share
//! are independent of each other and may run in any order.
//!
//! **Wake-up.** A runner that claims a share and leaves reactions released activates idle runners
//! for them (at most one per reaction), scheduled as *shared* tasks so that another worker takes
//! them while this one goes on. A runner that finds nothing released goes idle under the lock, so
//! whoever releases next sees it idle: no wake-up is lost. When the pending set empties, the
//! runner that completed the last reaction plays the scheduler for the next tag (see the parent
//! module). A runner gives its worker back (yields) after a bounded number of reactions in one
//! turn, so that other work on that worker is not starved.
//!
//! **Level-exact programs.** When every reaction that can run after startup is ruled by levels,
//! the two rules release the same reactions at the same moments, and [`prefers_levels`] tells the
//! runner to use the level scheduler's lock-free protocol (claims with one atomic increment, no
//! lock per reaction) for the whole run.

use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Mutex;

use motet_reactor_core::{Engine, Metrics, Next, Program, RunError, RunOptions};
use motet_runtime::{Handle, RunOutcome, TaskHeader, TaskRef, TaskVTable};

use super::closure::{runs_after_startup, Bits, Closure};
use super::Driver;
use crate::clock::{now_ns, StdClock};
use crate::runner::execute_guarded;
use crate::trace::Recorder;

/// What is pending and what waits, for deciding what may run (see the module docs).
struct Reach {
    /// Pending reactions per level.
    count: Vec<u32>,
    /// Waiting reactions per level, for the reactions ruled by levels.
    waiting: Vec<Vec<u32>>,
    /// No reaction below this level is pending (`usize::MAX` before a tag's first admission).
    min: usize,
    /// The ancestor sets, for the reactions not ruled by levels; `None` for programs too large
    /// for the closure, where every reaction is ruled by levels.
    sets: Option<Sets>,
}

/// The ancestor-set side of [`Reach`].
struct Sets {
    closure: Closure,
    /// Per reaction, whether levels rule it (its ancestors are exactly the lower levels).
    by_level: Vec<bool>,
    /// Pending reactions.
    pending: Bits,
    /// Waiting reactions not ruled by levels.
    waiting: Bits,
}

struct Core {
    engine: Engine,
    reach: Reach,
    /// Reactions triggered at this tag and not finished.
    pending: usize,
    fresh: Vec<u32>,
    /// Released and not yet claimed; the last released is claimed first.
    released: Vec<u32>,
    /// Runners neither scheduled nor running.
    idle: Vec<usize>,
}

struct Shared<'p> {
    prog: &'p Program,
    handle: Handle,
    driver: Driver,
    core: Mutex<Core>,
    runners: Vec<RunnerTask>,
    recorder: Option<&'p Recorder>,
}

/// One worker's runner (allocated once per run, scheduled whenever it is activated).
#[repr(C)]
struct RunnerTask {
    header: TaskHeader,
    shared: *const Shared<'static>,
    index: usize,
    /// The reactions claimed in the current share; touched only by the runner's own turn (a task
    /// runs on one thread at a time).
    share: UnsafeCell<Vec<u32>>,
}

static VTABLE: TaskVTable = TaskVTable {
    run: run_runner,
    shutdown: shutdown_runner,
};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

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
    let sets = Closure::new(g).map(|closure| {
        let w = closure.words();
        Sets {
            by_level: closure.level_exact(g),
            closure,
            pending: Bits::new(w),
            waiting: Bits::new(w),
        }
    });
    let reach = Reach {
        count: vec![0; g.levels as usize],
        waiting: vec![Vec::new(); g.levels as usize],
        min: usize::MAX,
        sets,
    };
    let workers = handle.workers();
    let cap = n.min(1 << 16);
    let mut shared = Shared {
        prog,
        handle: handle.clone(),
        driver: Driver::new(),
        core: Mutex::new(Core {
            engine: Engine::new(prog, now_ns(), options),
            reach,
            pending: 0,
            fresh: Vec::with_capacity(cap),
            released: Vec::with_capacity(cap),
            idle: (0..workers).rev().collect(),
        }),
        runners: Vec::with_capacity(workers),
        recorder,
    };
    let self_ptr: *const Shared<'_> = &shared;
    for index in 0..workers {
        shared.runners.push(RunnerTask {
            header: TaskHeader::new(&VTABLE),
            shared: self_ptr.cast(),
            index,
            share: UnsafeCell::new(Vec::new()),
        });
    }
    let sh = &shared;
    sh.driver.drive(prog, || {
        let mut core = lock(&sh.core);
        let next = sh.advance(&mut core);
        let extra = core.released.len();
        sh.wake(&mut core, extra);
        next
    });
    if shared.driver.aborted.load(SeqCst) {
        return Err(RunError::RuntimeShutDown);
    }
    let core = shared.core.into_inner().unwrap_or_else(|e| e.into_inner());
    core.engine.finish()
}

/// Whether the level scheduler's protocol runs `prog` as the readiness rule would: every reaction
/// that can run after startup has as ancestors exactly the reactions of all lower levels that can
/// run after startup (see [`Closure::level_exact`]), or the program is too large for the ancestor
/// sets (then the readiness scheduler would rule every reaction by levels anyway).
pub(crate) fn prefers_levels(prog: &Program) -> bool {
    let g = prog.graph();
    let Some(closure) = Closure::new(g) else {
        return true;
    };
    let exact = closure.level_exact(g);
    (0..g.reactions.len()).all(|r| exact[r] || !runs_after_startup(g, r))
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
                    core.reach.min = usize::MAX;
                    self.admit(core, None);
                    return None;
                }
                other => return Some(other),
            }
        }
    }

    /// Makes the freshly triggered reactions pending, then (after dropping `done`, the reaction that
    /// just completed) moves every reaction that became free to `released`.
    fn admit(&self, core: &mut Core, done: Option<u32>) {
        let prog = self.prog;
        let Core {
            reach,
            pending,
            fresh,
            released,
            ..
        } = core;
        *pending += fresh.len();
        let Reach {
            count,
            waiting,
            min,
            sets,
        } = reach;
        for &r in fresh.iter() {
            let l = prog.level(r as usize) as usize;
            count[l] += 1;
            *min = (*min).min(l);
            if let Some(s) = sets.as_mut() {
                s.pending.set(r as usize);
            }
        }
        if let Some(d) = done {
            count[prog.level(d as usize) as usize] -= 1;
            *pending -= 1;
            if let Some(s) = sets.as_mut() {
                s.pending.clear(d as usize);
                // Waiting descendants of `d` not ruled by levels may be free now.
                let desc = s.closure.descendants(d as usize);
                for (w, &dw) in desc.iter().enumerate() {
                    let mut bits = s.waiting.0[w] & dw;
                    while bits != 0 {
                        let c = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if !s.pending.intersects(s.closure.ancestors(c)) {
                            s.waiting.clear(c);
                            released.push(c as u32);
                        }
                    }
                }
            }
        }
        let before = *min;
        while *min < count.len() && count[*min] == 0 {
            *min += 1;
        }
        // Nothing is pending below `min`: what waits up to it under the level rule is free.
        if *min > before {
            for list in &mut waiting[before + 1..(*min + 1).min(count.len())] {
                released.append(list);
            }
        }
        for &r in fresh.iter() {
            let by_level = sets.as_ref().is_none_or(|s| s.by_level[r as usize]);
            if by_level {
                let l = prog.level(r as usize) as usize;
                if l <= *min {
                    released.push(r);
                } else {
                    waiting[l].push(r);
                }
            } else {
                let s = sets.as_mut().expect("not ruled by levels: sets exist");
                if s.pending.intersects(s.closure.ancestors(r as usize)) {
                    s.waiting.set(r as usize);
                } else {
                    released.push(r);
                }
            }
        }
        fresh.clear();
    }

    /// Activates up to `extra` idle runners (called with the lock held: scheduling only queues).
    fn wake(&self, core: &mut Core, extra: usize) {
        for _ in 0..extra {
            let Some(i) = core.idle.pop() else { break };
            self.driver.outstanding.fetch_add(1, SeqCst);
            let task = &self.runners[i];
            // SAFETY: the runner lives in `runners` until the run ends, which waits for
            // `outstanding` to drop to zero; it leaves `idle` only here, under the lock, and goes
            // back only at the end of its turn, so it is never queued twice.
            unsafe {
                self.handle
                    .schedule_shared(TaskRef::from_raw(NonNull::from(&task.header)));
            }
        }
    }

    /// After the reactions of `share` ran (with the panics of some): take in their effects and
    /// release what became free; if the tag is over, play the scheduler (handing over to the
    /// driver when it must wait or stop).
    fn completed(&self, core: &mut Core, share: &[u32], panics: &mut Vec<RunError>) {
        let prog = self.prog;
        for &r in share {
            {
                let Core { engine, fresh, .. } = &mut *core;
                engine.complete(prog, r, &mut |t| fresh.push(t));
            }
            self.admit(core, Some(r));
        }
        for e in panics.drain(..) {
            core.engine.fail(e);
        }
        if core.pending == 0 {
            core.engine.finish_tag(prog);
            if let Some(next) = self.advance(core) {
                self.driver.hand_over(next);
            }
        }
    }
}

/// How many reactions a runner may run in one turn before it yields its worker (so that other work
/// on that worker is not starved).
const TURN: usize = 256;

unsafe fn run_runner(header: NonNull<TaskHeader>) -> RunOutcome {
    // SAFETY: the header is the first field of a `RunnerTask` (repr(C)), alive until the run ends.
    let runner = unsafe { header.cast::<RunnerTask>().as_ref() };
    // SAFETY: `shared` outlives every scheduled runner (see `Shared::wake`).
    let sh = unsafe { &*runner.shared };
    // SAFETY: only this runner's turns touch its share, and a task runs on one thread at a time.
    let share = unsafe { &mut *runner.share.get() };
    let workers = sh.runners.len();
    let mut panics = Vec::new();
    let mut core = lock(&sh.core);
    let mut ran = 0;
    let outcome = loop {
        let left = core.released.len();
        if left == 0 {
            core.idle.push(runner.index);
            break RunOutcome::Idle;
        }
        if ran >= TURN {
            // Stay active (not idle): the runner is queued again by yielding.
            break RunOutcome::Yield;
        }
        if left == 1 && core.pending == 1 {
            // The tag's only pending reaction (a chain): run it without letting go of the lock,
            // as nothing else can run or complete meanwhile (see the module docs).
            let r = core.released.pop().expect("one released reaction");
            // SAFETY: released, and the only pending reaction of the tag: every triggered
            // predecessor has completed and nothing else runs.
            if let Some(e) = unsafe { execute_guarded(sh.prog, r as usize, sh.recorder) } {
                panics.push(e);
            }
            ran += 1;
            sh.completed(&mut core, &[r], &mut panics);
            continue;
        }
        let take = left.div_ceil(workers);
        share.clear();
        share.extend(core.released.drain(left - take..).rev());
        let extra = core.released.len();
        if extra > 0 {
            sh.wake(&mut core, extra);
        }
        drop(core);
        for &r in share.iter() {
            // SAFETY: the reaction was released: no pending ancestor, so its triggered
            // predecessors have completed and no other reaction of its reactor (an ancestor or
            // descendant) runs, in this share or elsewhere.
            if let Some(e) = unsafe { execute_guarded(sh.prog, r as usize, sh.recorder) } {
                panics.push(e);
            }
        }
        ran += share.len();
        core = lock(&sh.core);
        sh.completed(&mut core, share, &mut panics);
    };
    drop(core);
    if matches!(outcome, RunOutcome::Idle) {
        sh.driver.outstanding.fetch_sub(1, SeqCst);
    }
    outcome
}

unsafe fn shutdown_runner(header: NonNull<TaskHeader>) {
    // SAFETY: as in `run_runner`.
    let runner = unsafe { header.cast::<RunnerTask>().as_ref() };
    // SAFETY: as in `run_runner`.
    let sh = unsafe { &*runner.shared };
    sh.driver.abort();
    sh.driver.outstanding.fetch_sub(1, SeqCst);
}

#[cfg(test)]
mod tests {
    use super::prefers_levels;
    use motet_reactor_core::{ProgramBuilder, Startup};

    /// A chain is level-exact; a fan-out into branches of uneven depth is not.
    #[test]
    fn level_protocol_only_where_the_rules_coincide() {
        let mut b = ProgramBuilder::new();
        let s = b.reactor("s", ());
        let o = b.output::<u8, _>(s, "o");
        b.reaction(s, "r")
            .trigger(Startup)
            .effect(o)
            .body(|_, _| {});
        let x = b.reactor("x", ());
        let xi = b.input::<u8, _>(x, "i");
        let xo = b.output::<u8, _>(x, "o");
        b.reaction(x, "r").trigger(xi).effect(xo).body(|_, _| {});
        b.connect(o, xi);
        let chain = b.build().unwrap();
        assert!(prefers_levels(&chain));

        let mut b = ProgramBuilder::new();
        let s = b.reactor("s", ());
        let o = b.output::<u8, _>(s, "o");
        b.reaction(s, "r")
            .trigger(Startup)
            .effect(o)
            .body(|_, _| {});
        let mut prev = None;
        for k in 0..2 {
            let r = b.reactor(&format!("long{k}"), ());
            let i = b.input::<u8, _>(r, "i");
            let out = b.output::<u8, _>(r, "o");
            b.reaction(r, "r").trigger(i).effect(out).body(|_, _| {});
            b.connect(prev.unwrap_or(o), i);
            prev = Some(out);
        }
        let short = b.reactor("short", ());
        let si = b.input::<u8, _>(short, "i");
        b.reaction(short, "r").trigger(si).body(|_, _| {});
        b.connect(o, si);
        let sink = b.reactor("sink", ());
        let ki = b.input::<u8, _>(sink, "i");
        b.reaction(sink, "r").trigger(ki).body(|_, _| {});
        b.connect(prev.unwrap(), ki);
        let uneven = b.build().unwrap();
        assert!(!prefers_levels(&uneven));

        // A ring opened by a startup reaction that feeds only its first node (as in the thread
        // ring): the startup reaction is no ancestor of the later nodes, but it runs only once.
        let mut b = ProgramBuilder::new();
        let s = b.reactor("s", ());
        let o = b.output::<u8, _>(s, "o");
        b.reaction(s, "r")
            .trigger(Startup)
            .effect(o)
            .body(|_, _| {});
        let a = b.reactor("a", ());
        let ai = b.input::<u8, _>(a, "i");
        let ao = b.output::<u8, _>(a, "o");
        let tick = b.logical_action::<(), _>(a, "tick", std::time::Duration::ZERO);
        b.reaction(a, "t").trigger(tick).effect(ao).body(|_, _| {});
        b.reaction(a, "i").trigger(ai).effect(tick).body(|_, _| {});
        let c = b.reactor("c", ());
        let ci = b.input::<u8, _>(c, "i");
        b.reaction(c, "r").trigger(ci).body(|_, _| {});
        b.connect(o, ai);
        b.connect(ao, ci);
        let ring = b.build().unwrap();
        assert!(prefers_levels(&ring));
    }
}
