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
//! worker, as in the level scheduler: a runner claims one released reaction under the lock (the
//! last released first, so a chain of reactions stays on one worker with warm caches), runs its
//! body outside it, then takes the lock once to take in what it did, release whatever became free
//! and claim its next one: one lock round per reaction, never a task hand-off per reaction.
//! Claiming one at a time (rather than a share of what is released) balances uneven reactions
//! as LF's level queue does, and a worker that the operating system preempts holds up at most the
//! one reaction it claimed. When the one released reaction is also the only pending one (a
//! chain, as in the message-passing programs), the runner runs it while still holding the lock:
//! nobody else could run or complete anything meanwhile, and it saves letting go of the lock and
//! taking it again per reaction.
//!
//! **Wake-up.** A runner that claims a reaction and leaves others released activates idle runners
//! for them (at most one per reaction), scheduled as *shared* tasks so that another worker takes
//! them while this one goes on. A runner that finds nothing released goes idle under the lock
//! (its runnable goes back to the list of idle runners, see [`runner`]), so whoever
//! releases next sees it idle: no wake-up is lost. When the pending set empties, the
//! runner that completed the last reaction plays the scheduler for the next tag (see the parent
//! module). A runner gives its worker back (yields) after a bounded number of reactions in one
//! turn, so that other work on that worker is not starved.
//!
//! **Chains.** A reaction that only one reaction can trigger, and that only its own descendants
//! wait behind (see [`chain_links`]), is free the moment that one finishes: the runner that ran it
//! runs the next one on the spot, without a lock round, when it was triggered, and takes in the
//! whole chain in one completion (a bank of Filter Bank, Delay → FIR → SampleFilter → Delay →
//! FIR, is one claim and one lock round instead of five).
//!
//! **Which protocol runs.** [`protocol`] looks at the program before a run. When no two
//! reactions that run after startup are independent (a pipeline such as Radix Sort, or the
//! message-passing programs), the rule never frees two reactions at once, and the run takes the
//! sequential path on the calling thread, as on one worker. Every other program runs on the
//! level scheduler's lock-free protocol (claims with one atomic increment, no lock per reaction)
//! with chains run as above: where every reaction after startup is level-exact or follows
//! another in a chain, that releases what this module's rule releases; elsewhere it holds some
//! reactions back longer. On that protocol a level is shared with the other workers only when
//! its last measured cost says it pays (claims of a microsecond or more, 20 µs or more in all);
//! every other level runs on the thread that plays the scheduler, as on one worker
//! ([`Sharing::WhenWorthIt`](super::level::Sharing::WhenWorthIt)), and where no level was
//! shared for a while, whole tags run sequentially with the one-worker loop
//! ([`sequential_tags`](super::sequential_tags)).
//! This module's protocol (one lock round per claim) is kept, and tested,
//! behind [`Runner::readiness_protocol`](crate::Runner::readiness_protocol): on every Savina
//! program that took it by the earlier rule (Philosopher, Logistic Map, Sleeping Barber, APSP,
//! whose reactions are small or whose levels are even), it measured no faster than the level
//! protocol on two workers, and slower on some (a lock round per reaction against a barrier per
//! level; see docs/measurements/2026-11-29-comment-figures.md).

use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use motet_reactor_core::{Engine, Metrics, Next, Program, RunError, RunOptions};
use motet_runtime::task::{Running, Turn};
use motet_runtime::{Handle, Runnable};

use super::chain::{chain_links, NONE};
use super::closure::{totally_ordered, Bits, Closure, LazyClosure};
use super::runner::{self, RunnerTask, Scheduler, Seat};
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
    /// How many reactions `waiting` holds (the lists are not looked at while it is zero).
    waiting_len: usize,
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
    /// How many bits `waiting` has set (the descendants of a completed reaction are not scanned
    /// while it is zero).
    waiting_len: usize,
}

struct Core {
    engine: Engine,
    reach: Reach,
    /// Reactions triggered at this tag and not finished.
    pending: usize,
    fresh: Vec<u32>,
    /// Released and not yet claimed; the last released is claimed first.
    released: Vec<u32>,
    /// The runnables of the runners neither scheduled nor running (the runner that is pushed
    /// last is activated first).
    idle: Vec<Runnable<RunnerSeat>>,
}

struct Shared<'p> {
    prog: &'p Program,
    driver: Driver,
    core: Mutex<Core>,
    /// `core.released.len()` as of the last release of the lock: a hint for runners that wait for
    /// work without holding the lock (see [`Shared::claim_turn`]).
    released_hint: AtomicUsize,
    recorder: Option<&'p Recorder>,
    /// Per reaction, the reaction that follows it in a chain, or [`NONE`] (see [`chain_links`]).
    links: Vec<u32>,
}

/// A runner's seat (see [`runner`]): the runners point at the driver's
/// [`Shared`], whose borrows outlive them.
type RunnerSeat = Seat<Shared<'static>>;

/// What a runner's turns reuse: the panics of the reactions it ran and not yet taken in, and the
/// chain it ran from its last claim.
#[derive(Default)]
struct Scratch {
    panics: Vec<RunError>,
    chain: Vec<u32>,
}

impl Scheduler for Shared<'static> {
    type Scratch = Scratch;

    fn driver(&self) -> &Driver {
        &self.driver
    }

    fn turn(&self, runner: Running<RunnerTask<Self>>) -> Turn<RunnerSeat> {
        self.claim_turn(runner)
    }
}

/// How many times [`lock`] tries the lock (with a spin-loop hint between tries) before it blocks.
const LOCK_SPINS: u32 = 64;
/// How many times [`lock`] then yields the thread and tries again before it blocks.
const LOCK_YIELDS: u32 = 4;

/// Takes the scheduler lock: tries it for a while, spinning and then yielding, before blocking on
/// it. The lock is held briefly per reaction, but by every runner: with a
/// plain `lock` a runner that finds it taken soon sleeps on a futex, and the holder pays a wake-up
/// on release; trying, spinning and yielding first (and [`Shared::wait_for_release`]) keeps most
/// runs off the futex. Yielding lets a holder that the operating system
/// preempted run again on a loaded machine.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    for i in 0..LOCK_SPINS + LOCK_YIELDS {
        match m.try_lock() {
            Ok(guard) => return guard,
            Err(TryLockError::Poisoned(e)) => return e.into_inner(),
            Err(TryLockError::WouldBlock) if i < LOCK_SPINS => std::hint::spin_loop(),
            Err(TryLockError::WouldBlock) => std::thread::yield_now(),
        }
    }
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
    let closure = LazyClosure::computed(g, Closure::new(g));
    let links = chain_links(g, &closure);
    let sets = closure.into_inner().map(|closure| {
        let w = closure.words();
        Sets {
            by_level: closure.level_exact(g),
            closure,
            pending: Bits::new(w),
            waiting: Bits::new(w),
            waiting_len: 0,
        }
    });
    let reach = Reach {
        count: vec![0; g.levels as usize],
        waiting: vec![Vec::new(); g.levels as usize],
        waiting_len: 0,
        min: usize::MAX,
        sets,
    };
    let workers = handle.workers();
    let cap = n.min(1 << 16);
    let shared = Shared {
        prog,
        driver: Driver::new(handle),
        core: Mutex::new(Core {
            engine: Engine::new(prog, now_ns(), options),
            reach,
            pending: 0,
            fresh: Vec::with_capacity(cap),
            released: Vec::with_capacity(cap),
            idle: Vec::with_capacity(workers),
        }),
        released_hint: AtomicUsize::new(0),
        recorder,
        links,
    };
    let sh = &shared;
    // The runners point at `shared`, which stays here until every activation has ended (see
    // `runner`'s lifetime rule). Runner 0 is activated first.
    let at = NonNull::from(sh).cast::<Shared<'static>>();
    // SAFETY: `shared` stays here, untouched but through shared references, until the driver has
    // seen every activation end.
    let runners = (0..workers)
        .rev()
        .map(|index| unsafe { runner::make(at, index) });
    lock(&sh.core).idle.extend(runners);
    sh.driver.drive(prog, || {
        let mut core = lock(&sh.core);
        let next = sh.advance(&mut core);
        let extra = core.released.len();
        sh.released_hint.store(extra, Relaxed);
        sh.wake(&mut core, extra);
        next
    })?;
    let core = shared.core.into_inner().unwrap_or_else(|e| e.into_inner());
    core.engine.finish()
}

/// How a run on several workers follows the readiness rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// No two reactions that run after startup are ever free at the same time (see
    /// [`totally_ordered`]): the calling thread runs the program, as on one worker, and
    /// pays no hand-off, lock or atomic per reaction.
    Sequential,
    /// LF's lock-free level protocol, where a worker runs the chain that follows a reaction it
    /// claimed: per reaction, the reaction that follows it, or [`NONE`] (see [`chain_links`]).
    Levels(Vec<u32>),
}

/// Which protocol runs `prog` under the readiness rule: [`Protocol::Sequential`] for a program
/// without two independent reactions after startup (see [`totally_ordered`]), else
/// [`Protocol::Levels`] (see the module docs for why this module's own protocol is kept for
/// testing only).
///
/// Where every reaction that can run after startup either has as ancestors exactly the reactions
/// of all lower levels that can run after startup (see [`Closure::level_exact`]) or follows
/// another in a chain (it runs as soon as that one finishes), the level protocol with chains
/// releases what the readiness rule releases, but for a level-exact reaction that the chains of
/// lower levels hold back until they end (none in Filter Bank, whose chains end where the one
/// reaction that gathers them starts). Elsewhere the level rule holds back some reactions that
/// the readiness rule would free sooner; that is only ever stricter.
///
/// This runs at the start of every run, timed with it: the ancestor sets are computed at most
/// once, and only where cheaper checks leave the answer open (see [`LazyClosure`]).
pub(crate) fn protocol(prog: &Program) -> Protocol {
    let g = prog.graph();
    let closure = LazyClosure::new(g);
    if totally_ordered(g, &closure) {
        Protocol::Sequential
    } else {
        Protocol::Levels(chain_links(g, &closure))
    }
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
            waiting_len,
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
            }
            if let Some(s) = sets.as_mut().filter(|s| s.waiting_len > 0) {
                // Waiting descendants of `d` not ruled by levels may be free now.
                let desc = s.closure.descendants(d as usize);
                for (w, &dw) in desc.iter().enumerate() {
                    let mut bits = s.waiting.0[w] & dw;
                    while bits != 0 {
                        let c = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if !s.pending.intersects(s.closure.ancestors(c)) {
                            s.waiting.clear(c);
                            s.waiting_len -= 1;
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
        if *min > before && *waiting_len > 0 {
            for list in &mut waiting[before + 1..(*min + 1).min(count.len())] {
                *waiting_len -= list.len();
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
                    *waiting_len += 1;
                }
            } else {
                let s = sets.as_mut().expect("not ruled by levels: sets exist");
                if s.pending.intersects(s.closure.ancestors(r as usize)) {
                    s.waiting.set(r as usize);
                    s.waiting_len += 1;
                } else {
                    released.push(r);
                }
            }
        }
        fresh.clear();
    }

    /// Activates up to `extra` idle runners (called with the lock held: scheduling only queues).
    fn wake(&self, core: &mut Core, extra: usize) {
        // A runner's runnable leaves `idle` only here and goes back only at the end of its
        // turn, both under the lock: it is never queued twice.
        for _ in 0..extra {
            let Some(r) = core.idle.pop() else { break };
            runner::activate(&self.driver, r);
        }
    }

    /// After the reactions of `chain` ran, one after the other (with the panics of their bodies,
    /// if any): take in their effects and release what became free; if the tag is over, play the
    /// scheduler (handing over to the driver when it must wait or stop). Only the first of the
    /// chain was pending; each of the others follows the one before it (see [`chain_links`]) and
    /// ran when that one triggered it, so it is not triggered again.
    fn completed(&self, core: &mut Core, chain: &[u32], panics: &mut Vec<RunError>) {
        let prog = self.prog;
        {
            let Core { engine, fresh, .. } = &mut *core;
            for (i, &r) in chain.iter().enumerate() {
                let ran = chain.get(i + 1).copied().unwrap_or(NONE);
                engine.complete(prog, r, &mut |t| {
                    if t != ran {
                        fresh.push(t);
                    }
                });
            }
        }
        self.admit(core, Some(chain[0]));
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

/// How long a runner that finds nothing released, while reactions of the tag run elsewhere,
/// watches for a release before it goes idle.
const WATCH_RELEASE: Duration = Duration::from_micros(20);

impl Shared<'_> {
    /// Spins until the release hint shows work or [`WATCH_RELEASE`] passes (yielding now and then,
    /// so that a loaded machine runs the threads that do the work).
    fn wait_for_release(&self) {
        let deadline = Instant::now() + WATCH_RELEASE;
        loop {
            for _ in 0..32 {
                if self.released_hint.load(Relaxed) > 0 {
                    return;
                }
                std::hint::spin_loop();
            }
            if Instant::now() >= deadline {
                return;
            }
            std::thread::yield_now();
        }
    }
}

/// How many reactions a runner may run in one turn before it yields its worker (so that other work
/// on that worker is not starved).
const TURN: usize = 256;

impl Shared<'_> {
    /// One turn of a runner: claims released reactions one at a time and runs them (with the
    /// chains that follow them), taking each one's effects in under the lock, until none is
    /// released (it goes idle) or it ran [`TURN`] reactions (it yields).
    fn claim_turn(&self, mut runner: Running<RunnerTask<Shared<'static>>>) -> Turn<RunnerSeat> {
        let Scratch { panics, chain } = runner.private();
        let mut core = lock(&self.core);
        let mut ran = 0;
        let mut waited = false;
        let yielded = loop {
            let left = core.released.len();
            if left == 0 {
                if core.pending > 0 && !waited {
                    // Reactions of this tag run elsewhere and will likely release more within
                    // microseconds: watch for them a while rather than go idle and be woken again.
                    waited = true;
                    self.released_hint.store(0, Relaxed);
                    drop(core);
                    self.wait_for_release();
                    core = lock(&self.core);
                    continue;
                }
                break false;
            }
            if ran >= TURN {
                // Stay active (not idle): the runner is queued again by yielding.
                self.released_hint.store(left, Relaxed);
                break true;
            }
            let r = match self.prog.deadline_order() {
                None => core.released.pop(),
                Some(keys) => motet_reactor_core::take_earliest(keys, &mut core.released),
            }
            .expect("a released reaction");
            ran += 1;
            waited = false;
            if left == 1 && core.pending == 1 {
                // The tag's only pending reaction (a chain): run it without letting go of the
                // lock, as nothing else can run or complete meanwhile (see the module docs).
                // SAFETY: released, and the only pending reaction of the tag: every triggered
                // predecessor has completed and nothing else runs.
                if let Some(e) = unsafe { execute_guarded(self.prog, r as usize, self.recorder) } {
                    panics.push(e);
                }
                self.completed(&mut core, &[r], panics);
                continue;
            }
            if left > 1 {
                self.wake(&mut core, left - 1);
            }
            self.released_hint.store(left - 1, Relaxed);
            drop(core);
            self.run_chain(r, chain, panics);
            ran += chain.len() - 1;
            core = lock(&self.core);
            self.completed(&mut core, chain, panics);
        };
        if yielded {
            drop(core);
            return Turn::Yield(runner.into_runnable());
        }
        // Idle under the lock, so that whoever releases next finds the runner here.
        core.idle.push(runner.into_runnable());
        drop(core);
        // SAFETY: the runnable is back in `idle`, and this turn is over.
        unsafe { runner::idle(&self.driver) }
    }

    /// Runs released reaction `r` and the chain that follows it (see [`chain_links`]) into
    /// `chain`, adding the panic that stops it, if any, to `panics`.
    fn run_chain(&self, r: u32, chain: &mut Vec<u32>, panics: &mut Vec<RunError>) {
        chain.clear();
        chain.push(r);
        // SAFETY: `r` was released: no pending ancestor, so its triggered predecessors have
        // completed and no other reaction of its reactor (an ancestor or descendant) runs; it
        // stays pending, holding back what waits for it, until `completed` takes the chain in.
        let failed = unsafe {
            runner::run_chain(self.prog, self.recorder, &self.links, r, |s| chain.push(s))
        };
        panics.extend(failed);
    }
}

#[cfg(test)]
mod tests {
    use super::{protocol, Protocol};
    use crate::parallel::test_programs::{sink, source, stage};
    use motet_reactor_core::ProgramBuilder;

    /// A chain runs sequentially; a fan-out into branches of uneven depth, and a ring opened at
    /// startup whose nodes are independent, take the level protocol.
    #[test]
    fn protocol_by_program_shape() {
        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let (xi, _) = stage(&mut b, "x");
        b.connect(o, xi);
        let chain = b.build().unwrap();
        assert_eq!(protocol(&chain), Protocol::Sequential);

        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let mut prev = o;
        for k in 0..2 {
            let (i, out) = stage(&mut b, &format!("long{k}"));
            b.connect(prev, i);
            prev = out;
        }
        let si = sink(&mut b, "short");
        b.connect(o, si);
        // Two sinks read the long branch: neither follows it in a chain, and neither has the
        // short branch as an ancestor.
        for name in ["sink", "sink2"] {
            let ki = sink(&mut b, name);
            b.connect(prev, ki);
        }
        let uneven = b.build().unwrap();
        assert!(matches!(protocol(&uneven), Protocol::Levels(_)));

        // A ring opened by a startup reaction that feeds only its first node (as in the thread
        // ring): the startup reaction is no ancestor of the later nodes, but it runs only once.
        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let a = b.reactor("a", ());
        let ai = b.input::<u8, _>(a, "i");
        let ao = b.output::<u8, _>(a, "o");
        let tick = b.logical_action::<(), _>(a, "tick", std::time::Duration::ZERO);
        b.reaction(a, "t").trigger(tick).effect(ao).body(|_, _| {});
        b.reaction(a, "i").trigger(ai).effect(tick).body(|_, _| {});
        let ci = sink(&mut b, "c");
        b.connect(o, ai);
        b.connect(ao, ci);
        let ring = b.build().unwrap();
        assert!(matches!(protocol(&ring), Protocol::Levels(_)));
    }
}
