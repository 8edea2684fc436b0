//! LF's level scheduler (paper section 4.3-4.4) on motet's runtime.
//!
//! The reactions triggered at a tag are kept per level. The reactions of the lowest non-empty level
//! are published in the fixed-size [`ReadyQueue`]; workers claim them with one atomic increment each
//! and run them; the worker that finishes the level's last reaction *becomes the scheduler*: it
//! takes in the level's effects (which trigger reactions of higher levels and schedule events),
//! publishes the next level, or finishes the tag and enters the next one. Levels are barriers:
//! reactions of level `l + 1` wait for every reaction of level `l`.
//!
//! **Wake-up.** LF wakes sleeping workers with a counting semaphore, releasing exactly as many
//! permits as the level has extra reactions. Here the permits are *runner tasks* on the pool: one per
//! worker, each either active (scheduled or running) or idle, and the scheduler activates
//! `min(width, workers) - 1` idle runners besides itself, so exactly as many workers wake as there is
//! work for (runners are scheduled as *shared* tasks, where another worker takes them, and the pool
//! wakes one parked worker per task; see [`runner`]). A runner that finds the queue
//! empty goes idle (returns its permit): it parks its runnable in its slot and clears its `active`
//! flag, then looks at the queue once more (`SeqCst` on both sides, so either it sees the newly
//! published level or the scheduler sees it idle and activates it again; see [`IdleSlot`]). Before that it watches the queue for up to [`WATCH_LEVEL`]
//! (30 µs) for a level that has run for [`JOIN_AFTER_NS`] (10 µs) with reactions unclaimed, and
//! joins it (a level the driver published, or one that the level costs share, at once): a
//! runner that stays active is not activated again through the runtime for every level, and a
//! level too short to share is left to the worker that published it (see
//! [`Shared::watch_for_level`]).
//!
//! **Levels of one reaction.** A worker playing the scheduler runs a level that holds a single
//! reaction itself, on the spot, instead of publishing it: nobody else could run it any sooner, and
//! publishing would cost a round of atomics on the queue and another turn as the scheduler (the
//! message-passing programs, pingpong, threadring, count, are made of such levels). Under LF's
//! protocol ([`Sharing::Always`]) up to [`INLINE_BUDGET`] levels in a row; then the level is
//! published as any other, so that a long chain still passes through the queue now and then;
//! and the driver thread never runs reactions inline: it publishes, and the workers run the
//! program.
//!
//! **Levels not worth sharing** ([`Sharing::WhenWorthIt`], the readiness scheduler's protocol).
//! Whoever plays the scheduler, a worker or the driver, runs on the spot, one claim after another
//! (a reaction and the chain that follows it, see [`Chains`]), every level whose last measured
//! cost on one thread says that sharing it would not pay (see [`level_cost`](super::level_cost)),
//! and enters a tag's next microstep on the spot when that is all that comes next, as the
//! core's sequential path does: a tag of small reactions runs as on one worker, and the other
//! workers are woken only for a level of claims long enough to share. A level run so that turns
//! out long is shared from the claim at which that shows. After enough tags with no level
//! shared, whoever plays the scheduler runs whole tags with the core's sequential loop, as one
//! worker does, until a look at the clock says the tags got long (see
//! [`sequential_tags`](super::sequential_tags)).

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

use motet_reactor_core::{Engine, LevelQueue, Metrics, Next, Program, RunError, RunOptions};
use motet_runtime::task::{Running, Turn};
use motet_runtime::{Handle, Runnable};

use super::chain::NONE;
use super::level_cost::{checkpoint, worth_sharing, LevelCosts, Plan, FIRST_CLAIM_NS};
use super::ready_queue::ReadyQueue;
use super::runner::{self, IdleSlot, RunnerTask, Scheduler, Seat};
use super::sequential_tags::{run_tags_sequentially, SequentialTags};
use super::triggered::Triggered;
use super::Driver;
use crate::clock::{now_ns, StdClock};
use crate::runner::execute_guarded;
use crate::trace::Recorder;

/// How many single-reaction levels a worker playing the scheduler runs inline before it publishes
/// one through the queue (see the module docs).
const INLINE_BUDGET: u32 = 1024;

/// The scheduler's state, touched by whoever plays the scheduler (one at a time by the protocol;
/// the mutex is never contended).
struct Core {
    engine: Engine,
    /// The reactions triggered at this tag and not yet taken, per level.
    triggered: Triggered,
    /// The level being run, and its reactions.
    level: usize,
    batch: Vec<u32>,
    /// Whether a tag has been entered and not finished.
    in_tag: bool,
    /// With [`Sharing::WhenWorthIt`], the levels' last measured costs; `None` for LF's protocol.
    costs: Option<LevelCosts>,
    /// With [`Sharing::WhenWorthIt`] and no trace, what running quiet tags sequentially needs
    /// (see [`sequential_tags`](super::sequential_tags)); `None` otherwise.
    sequential: Option<Sequential>,
}

/// What running tags sequentially needs (see [`sequential_tags`](super::sequential_tags)).
struct Sequential {
    when: SequentialTags,
    /// The ready reactions of the sequential loop (empty between tags).
    ready: LevelQueue,
    /// Whether a level of the current tag was shared.
    shared: bool,
}

/// Which levels the workers share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sharing {
    /// LF's: every level of two or more reactions is published in the ready queue (a level of
    /// one runs on the spot, see the module docs).
    Always,
    /// A level is published only when its last measured cost says it is worth sharing (see
    /// [`level_cost`](super::level_cost)); every other level runs on the thread that plays the
    /// scheduler, as on one worker, and so does a tag whose next microstep is all that follows.
    WhenWorthIt,
}

struct Shared<'p> {
    prog: &'p Program,
    driver: Driver,
    core: Mutex<Core>,
    queue: ReadyQueue,
    /// When the published level was published ([`now_ns`]), for runners that watch for a level
    /// worth joining (see [`Shared::watch_for_level`]); 0 for a level to join at once (one the
    /// driver published, or one the level costs say is worth sharing).
    published_at: AtomicU64,
    panics: Mutex<Option<RunError>>,
    /// Per runner, its `active` flag and, while it is idle, its runnable (see [`IdleSlot`]).
    runners: Vec<IdleSlot<Runnable<RunnerSeat>>>,
    recorder: Option<&'p Recorder>,
    /// With chains (see [`Chains`]), what they need; `None` for LF's protocol as it is, and for a
    /// program without chains.
    chains: Option<Chains>,
    sharing: Sharing,
}

/// What running chains needs: a runner that claimed reaction `r` of the published level and ran
/// it runs the reaction that follows it (see [`chain_links`](super::chain::chain_links)) when `r`
/// triggered it, and so on, before it finishes its claim; the scheduler takes in the whole chain
/// with the level.
struct Chains {
    /// Per reaction, the reaction that follows it, or [`NONE`].
    links: Vec<u32>,
    /// Per reaction of the published level, how many reactions ran after it in its chain
    /// (written by the runner that claimed it before [`ReadyQueue::finish_one`], read by the
    /// level's last finisher after it).
    ran_after: Vec<AtomicU32>,
}

/// Who plays the scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Player {
    /// The thread that called [`run`], between waits (it claims nothing).
    Driver,
    /// A runner, after finishing a level's last reaction.
    Worker,
}

/// A runner's seat (see [`runner`]): the runners point at the driver's
/// [`Shared`], whose borrows outlive them.
type RunnerSeat = Seat<Shared<'static>>;

impl Scheduler for Shared<'static> {
    type Scratch = ();

    fn driver(&self) -> &Driver {
        &self.driver
    }

    #[inline]
    fn turn(&self, runner: Running<RunnerTask<Self>>) -> Turn<RunnerSeat> {
        self.claim_turn(runner.into_runnable())
    }
}

/// Runs `prog` on `handle`'s workers with the level scheduler; with `links` (per reaction, the
/// reaction that follows it, see [`chain_links`](super::chain::chain_links)), a worker that runs
/// a reaction runs the chain that follows it too (see [`Chains`]: the readiness rule's release of
/// a reaction that only one reaction feeds, for programs where the readiness scheduler takes this
/// protocol). `sharing` says which levels are published (see [`Sharing`]).
pub(crate) fn run(
    prog: &mut Program,
    handle: &Handle,
    options: &RunOptions,
    recorder: Option<&Recorder>,
    links: Option<Vec<u32>>,
    sharing: Sharing,
) -> Result<Metrics, RunError> {
    let prog: &Program = prog;
    let g = prog.graph();
    let width = g.level_widths.iter().copied().max().unwrap_or(1) as usize;
    let levels = g.levels as usize;
    let workers = handle.workers();
    let shared = Shared {
        prog,
        driver: Driver::new(handle),
        core: Mutex::new(Core {
            engine: Engine::new(prog, now_ns(), options),
            triggered: Triggered::new(prog),
            level: 0,
            batch: Vec::with_capacity(width),
            in_tag: false,
            costs: (sharing == Sharing::WhenWorthIt).then(|| LevelCosts::new(levels)),
            sequential: (sharing == Sharing::WhenWorthIt && recorder.is_none()).then(|| {
                Sequential {
                    when: SequentialTags::new(),
                    ready: LevelQueue::new(prog),
                    shared: false,
                }
            }),
        }),
        queue: ReadyQueue::new(width),
        published_at: AtomicU64::new(0),
        panics: Mutex::new(None),
        runners: (0..workers).map(|_| IdleSlot::held()).collect(),
        recorder,
        chains: links
            .filter(|links| links.iter().any(|&s| s != NONE))
            .map(|links| Chains {
                links,
                ran_after: (0..g.reactions.len()).map(|_| AtomicU32::new(0)).collect(),
            }),
        sharing,
    };
    let sh = &shared;
    // The runners point at `shared`, which stays here until every activation has ended (see
    // `runner`'s lifetime rule).
    let at = NonNull::from(sh).cast::<Shared<'static>>();
    for (index, slot) in sh.runners.iter().enumerate() {
        // SAFETY: this thread made the slot held, and nobody else sees it yet.
        unsafe { slot.park(runner::make(at, index)) };
    }
    sh.driver.drive(prog, || {
        let mut core = sh.core.lock().unwrap_or_else(|e| e.into_inner());
        let next = sh.advance(&mut core, Player::Driver);
        drop(core);
        match next {
            Ok(width) => {
                sh.wake(width, None);
                None
            }
            Err(n) => Some(n),
        }
    })?;
    let core = shared.core.into_inner().unwrap_or_else(|e| e.into_inner());
    core.engine.finish()
}

impl Shared<'_> {
    /// Plays the scheduler: takes in the finished level's effects, then publishes the next level
    /// (returns its width) or returns what the driver must do. A worker runs levels of one
    /// reaction here and now (see the module docs); with [`Sharing::WhenWorthIt`], whoever plays
    /// the scheduler runs here every level not worth sharing.
    fn advance(&self, core: &mut Core, player: Player) -> Result<usize, Next> {
        match self.sharing {
            Sharing::Always => self.advance_as::<false>(core, player),
            Sharing::WhenWorthIt => self.advance_as::<true>(core, player),
        }
    }

    /// [`Shared::advance`], compiled once per kind of sharing (`WHEN_WORTH_IT`: with
    /// [`Sharing::WhenWorthIt`]), so that LF's protocol runs the code it ran before levels were
    /// run alone, with no test for them.
    fn advance_as<const WHEN_WORTH_IT: bool>(
        &self,
        core: &mut Core,
        player: Player,
    ) -> Result<usize, Next> {
        let prog = self.prog;
        if let Some(e) = self.panics.lock().unwrap_or_else(|e| e.into_inner()).take() {
            core.engine.fail(e);
        }
        {
            let Core {
                engine,
                triggered,
                batch,
                ..
            } = &mut *core;
            for &r in batch.iter() {
                // The chain that ran from `r`, if any: each reaction in it ran when the one before
                // triggered it, so it is not queued again.
                let (mut cur, mut after) = match &self.chains {
                    Some(c) => (r, c.ran_after[r as usize].load(Relaxed)),
                    None => (r, 0),
                };
                loop {
                    let ran = match &self.chains {
                        Some(c) if after > 0 => c.links[cur as usize],
                        _ => NONE,
                    };
                    complete_into(engine, prog, cur, ran, triggered);
                    if ran == NONE {
                        break;
                    }
                    after -= 1;
                    cur = ran;
                }
            }
            batch.clear();
        }
        let when_worth_it = WHEN_WORTH_IT;
        let mut from = core.level + 1;
        // Under `WhenWorthIt` the budget is never spent: levels run on the spot for as long as
        // their costs keep them alone. Publishing one level in `INLINE_BUDGET` there moved the
        // run between threads (a level the driver publishes wakes the runners, and whichever
        // finishes it last plays the scheduler from then on) and woke the other workers for
        // nothing, a few times a millisecond on Philosopher.
        let mut budget = if player == Player::Worker || when_worth_it {
            INLINE_BUDGET
        } else {
            0
        };
        loop {
            if core.in_tag {
                if let Some(l) = core.triggered.take_next(from) {
                    if budget > 0 && core.triggered.queues[l].len() == 1 {
                        if !when_worth_it {
                            budget -= 1;
                        }
                        let r = core.triggered.queues[l][0];
                        core.triggered.queues[l].clear();
                        core.level = l;
                        // SAFETY: every lower level of this tag has finished, and `r` is the only
                        // reaction of its level: nothing else runs.
                        if let Some(e) = unsafe { execute_guarded(prog, r as usize, self.recorder) }
                        {
                            core.engine.fail(e);
                        }
                        let Core {
                            engine, triggered, ..
                        } = &mut *core;
                        engine.complete(prog, r, &mut |t| triggered.push(prog, t));
                        from = l + 1;
                        continue;
                    }
                    let Core {
                        batch, triggered, ..
                    } = &mut *core;
                    std::mem::swap(batch, &mut triggered.queues[l]);
                    core.level = l;
                    // `costed`: the level costs decide, so a level published below is worth sharing
                    // (by its estimate, or by its claims run so far here).
                    let (plan, costed) = match &mut core.costs {
                        Some(costs) if WHEN_WORTH_IT && budget > 0 => {
                            (costs.plan(l, core.batch.len()), true)
                        }
                        _ => (Plan::Share, false),
                    };
                    if let Plan::Alone { timed } = plan {
                        if !when_worth_it {
                            budget -= 1;
                        }
                        if !self.run_level_here(core, l, timed) {
                            from = l + 1;
                            continue;
                        }
                        // It took long: the rest of it is shared.
                    }
                    // Before the publish, which releases it to the claims that see the level. The
                    // driver claims nothing, and a level the costs share has claims of a
                    // microsecond or more: those are joinable at once. A level published
                    // otherwise by a worker is joined once it has run `JOIN_AFTER_NS` (LF's
                    // protocol publishes every level, however small its reactions).
                    self.published_at.store(
                        if player == Player::Worker && !costed {
                            now_ns()
                        } else {
                            0
                        },
                        Relaxed,
                    );
                    if let Some(s) = &mut core.sequential {
                        s.shared = true;
                    }
                    // SAFETY: the previous level is fully claimed and finished (we are its last
                    // finisher, or the driver between tags).
                    unsafe { self.queue.publish(&core.batch) };
                    return Ok(core.batch.len());
                }
                core.engine.finish_tag(prog);
                core.in_tag = false;
                // After enough tags with no level shared, tags run sequentially for a while.
                if let Some(s) = core.sequential.as_mut().filter(|_| when_worth_it) {
                    s.when.level_tag_done(std::mem::take(&mut s.shared));
                    if s.when.due() {
                        // SAFETY: between tags: every level published so far was claimed and
                        // finished (we finished the last one, or are the driver between tags),
                        // and none is published before this returns.
                        unsafe {
                            run_tags_sequentially(&mut core.engine, &mut s.ready, prog, &mut s.when)
                        }?;
                    }
                }
                // A tag run here to its end whose next microstep is all that comes next (as in
                // the core's sequential path): entered on the spot, without `next`.
                if when_worth_it && self.recorder.is_none() {
                    let Core {
                        engine, triggered, ..
                    } = &mut *core;
                    if engine.enter_next_microstep(prog, &mut |r| triggered.push(prog, r)) {
                        core.in_tag = true;
                        from = 0;
                        continue;
                    }
                }
            }
            match core.engine.next(prog, &StdClock) {
                Next::Tag(tag) => {
                    if let Some(rec) = self.recorder {
                        rec.tag(tag);
                    }
                    let Core {
                        engine, triggered, ..
                    } = &mut *core;
                    engine.enter_tag(prog, tag, &mut |r| triggered.push(prog, r));
                    core.in_tag = true;
                    from = 0;
                }
                other => return Err(other),
            }
        }
    }

    /// Runs level `l` (two or more reactions, taken off its queue into `batch`) on this thread,
    /// one claim after another as a runner would run them (a reaction, then the chain that
    /// follows it, see [`Chains`]), taking in each reaction's effects as it finishes. With
    /// `timed`, it is measured, and once the claims run so far say that the rest is worth sharing
    /// (see [`worth_sharing`]), the rest is left in `batch` to be shared, and this returns `true`.
    /// Untimed, it looks at the clock once, after the first claim of a level of three or more, and
    /// shares the rest in the same way (and records the measurement) if that claim was long.
    fn run_level_here(&self, core: &mut Core, l: usize, timed: bool) -> bool {
        let prog = self.prog;
        let Core {
            engine,
            triggered,
            batch,
            costs,
            ..
        } = core;
        let Some(costs) = costs else {
            unreachable!("levels run here only with level costs")
        };
        let width = batch.len();
        // A level planned alone without timing still looks at the clock once, after its first
        // claim, when two or more claims would be left: the estimate comes from earlier tags,
        // whose claims at this level may have been far cheaper (a decomposition's early tags
        // split work, its last ones multiply leaves), and a level of long claims run on one
        // thread costs the whole second worker.
        let guarded = !timed && width >= 3;
        let start = if timed || guarded { now_ns() } else { 0 };
        let mut ran = 0;
        let mut shared = false;
        while ran < width {
            let mut r = batch[ran];
            loop {
                // SAFETY: every lower level of this tag has finished, reactions of one level never
                // share a reactor, and this thread runs the level's reactions one at a time; a
                // reaction of the chain that follows one of them is free once it finished (see
                // `Chains`).
                let failed = unsafe { execute_guarded(prog, r as usize, self.recorder) };
                let next = match &self.chains {
                    Some(c) if failed.is_none() => c.links[r as usize],
                    _ => NONE,
                };
                // SAFETY: `r` ran on this thread and is not taken in yet.
                let next = if next != NONE && unsafe { prog.sets_trigger_of(r as usize, next) } {
                    next
                } else {
                    NONE
                };
                if let Some(e) = failed {
                    engine.fail(e);
                }
                // A reaction triggers only reactions of higher levels, never one of this level;
                // the one that follows it in its chain runs next, here.
                complete_into(engine, prog, r, next, triggered);
                if next == NONE {
                    break;
                }
                r = next;
            }
            ran += 1;
            if (if timed {
                checkpoint(ran)
            } else {
                guarded && ran == 1
            }) && width - ran >= 2
            {
                let elapsed = now_ns().saturating_sub(start);
                // A timed level's first claim alone shares the rest only when it is long beyond
                // doubt (see `FIRST_CLAIM_NS`); otherwise the second claim has its say.
                let doubtful = timed && ran == 1 && elapsed < FIRST_CLAIM_NS;
                if worth_sharing(elapsed / ran as u64, width - ran) && !doubtful {
                    shared = true;
                    break;
                }
            }
        }
        if timed || shared {
            costs.ran_alone(l, ran, now_ns().saturating_sub(start));
        }
        batch.drain(..ran);
        shared
    }

    /// Activates idle runners for a published level of `width` reactions: `min(width, workers)`
    /// in all, counting `me` (the runner playing the scheduler) if given.
    fn wake(&self, width: usize, me: Option<usize>) {
        let mut wanted = width
            .min(self.runners.len())
            .saturating_sub(usize::from(me.is_some()));
        for (index, slot) in self.runners.iter().enumerate() {
            if wanted == 0 {
                break;
            }
            if Some(index) == me {
                continue;
            }
            // An idle runner's slot gives up its runnable once; an active one's gives nothing.
            if let Some(r) = slot.activate() {
                wanted -= 1;
                runner::activate(&self.driver, r);
            }
        }
    }
}

/// How long a runner that finds the published level all claimed watches for a level worth
/// joining before it goes idle (see [`Shared::watch_for_level`]).
const WATCH_LEVEL: Duration = Duration::from_micros(30);

/// How long a published level must have run, with reactions still unclaimed, before a watching
/// runner joins it (see [`Shared::watch_for_level`]).
const JOIN_AFTER_NS: u64 = 10_000;

impl Shared<'_> {
    /// Spins until the published level has unclaimed reactions and has run for
    /// [`JOIN_AFTER_NS`] (`true`: join it), or until [`WATCH_LEVEL`] passes without such a level
    /// (`false`: go idle), yielding the thread now and then so that a loaded machine runs the
    /// threads that do the work.
    ///
    /// Why watch: a runner that went idle at the end of every level would be activated again,
    /// as a task queued on the scheduler's worker, for the next level wide enough for two: a
    /// hand-off through the runtime per level, whose latency is the thief's (a patient thief
    /// leaves a running worker's lone queued task alone for 10 µs, and one whose last steals did
    /// not pay sleeps up to 200 µs), with a wake-up and a park per level, and the scheduler's
    /// part passing from worker to worker. Watching keeps the runner in the run while levels
    /// come close together, as LF's workers stay awake between levels.
    ///
    /// Why wait before joining: the worker that published a level claims its reactions from the
    /// start. Where a level's reactions take tens of nanoseconds (Philosopher, Concurrent
    /// Dictionary, Fork-Join throughput: a level of 20 to 60 reactions is done in a few
    /// microseconds), a second worker claiming beside it costs more than it saves (the claim
    /// counter's cache line and the reactors' state move between the cores on every claim): on
    /// two workers these ran 1.5 to 2 times slower with both runners claiming every level. A
    /// level still unclaimed after [`JOIN_AFTER_NS`] is long enough to share (Big's levels of
    /// a hundred reactions, the parallel programs' levels of long reactions), and a level
    /// whose publisher the operating system preempted is taken over. Under
    /// [`Sharing::WhenWorthIt`] a level is published only when its costs say that sharing it
    /// pays, so such a level is joined at once: waiting cost up to 10 µs a level on the
    /// programs that share a level every tag (Nqueens, Filter Bank, Bounded Buffer; A*'s tags
    /// take about 150 µs).
    fn watch_for_level(&self) -> bool {
        let deadline = now_ns() + WATCH_LEVEL.as_nanos() as u64;
        loop {
            for _ in 0..32 {
                std::hint::spin_loop();
            }
            let now = now_ns();
            if self.joinable(now) {
                return true;
            }
            if now >= deadline {
                return false;
            }
            std::thread::yield_now();
        }
    }

    /// Whether the published level has unclaimed reactions and has run for [`JOIN_AFTER_NS`]
    /// at `now` (a level the driver published is joinable at once: the driver claims nothing;
    /// so is one that the level costs share: its claims take a microsecond or more).
    fn joinable(&self, now: u64) -> bool {
        self.queue.has_work()
            && now.saturating_sub(self.published_at.load(Relaxed)) >= JOIN_AFTER_NS
    }
}

/// Takes in reaction `r`'s completion: every reaction it triggers but `skip` (the next of its
/// chain, which runs on the spot, or `NONE`) goes into its level's queue, marked non-empty.
#[inline(always)]
fn complete_into(
    engine: &mut Engine,
    prog: &Program,
    r: u32,
    skip: u32,
    triggered: &mut Triggered,
) {
    engine.complete(prog, r, &mut |t| {
        if t != skip {
            triggered.push(prog, t);
        }
    });
}

impl Shared<'_> {
    /// One turn of a runner: claims reactions of the published level and runs them (with the
    /// chains that follow them), plays the scheduler when it finishes a level's last one, and
    /// goes idle once nothing is left to join.
    fn claim_turn(&self, mut runner: Runnable<RunnerSeat>) -> Turn<RunnerSeat> {
        let index = runner.index;
        // Whether this runner published the level it claims from (it played the scheduler): it
        // runs its own level from the start; a level published by another worker is joined only
        // once it is worth it (see `Shared::watch_for_level`).
        let mut own = false;
        loop {
            let claimed = if own || self.joinable(now_ns()) {
                self.queue.claim()
            } else {
                None
            };
            if let Some(r) = claimed {
                self.run_claim(r);
                if self.queue.finish_one() {
                    let next = {
                        let mut core = self.core.lock().unwrap_or_else(|e| e.into_inner());
                        self.advance(&mut core, Player::Worker)
                    };
                    match next {
                        Ok(width) => {
                            own = true;
                            self.wake(width, Some(index));
                        }
                        // The driver takes over; this runner goes idle through the protocol below.
                        Err(n) => self.driver.hand_over(n),
                    }
                }
                continue;
            }
            // The level is all claimed (or not worth joining yet): the next one usually comes
            // within microseconds, so watch for one worth joining before going idle.
            own = false;
            if self.watch_for_level() {
                continue;
            }
            // Going idle: park the runnable, which clears the flag, then look once more (see the
            // module docs).
            let slot = &self.runners[index];
            // SAFETY: this turn holds the runner's runnable, so it holds the runner's slot.
            unsafe { slot.park(runner) };
            // A level published by a worker is claimed by that worker: it is left to it unless it
            // is worth joining (see `watch_for_level`); one the driver published is taken at once.
            match self.joinable(now_ns()).then(|| slot.activate()).flatten() {
                Some(revived) => runner = revived,
                None => break,
            }
        }
        runner::idle(&self.driver)
    }

    /// Runs claimed reaction `r` of the published level, and the chain that follows it (see
    /// [`Chains`]), recording how many ran after it and any panic.
    fn run_claim(&self, r: u32) {
        let failed = match &self.chains {
            // SAFETY: `r` is in the published level: every lower level of this tag has finished,
            // and reactions of one level never share a reactor.
            None => unsafe { execute_guarded(self.prog, r as usize, self.recorder) },
            Some(c) => {
                let mut after = 0;
                // SAFETY: as above; and the level is taken in only once its last claim finishes,
                // so `r` and its chain are taken in after this, and nothing waiting for them
                // (a higher level) runs meanwhile.
                let failed = unsafe {
                    runner::run_chain(self.prog, self.recorder, &c.links, r, |_| after += 1)
                };
                // Written only when it changes: the records of one level share cache lines, and
                // most chains run the same length from tag to tag.
                let record = &c.ran_after[r as usize];
                if record.load(Relaxed) != after {
                    record.store(after, Relaxed);
                }
                failed
            }
        };
        if let Some(e) = failed {
            let mut p = self.panics.lock().unwrap_or_else(|e| e.into_inner());
            p.get_or_insert(e);
        }
    }
}
