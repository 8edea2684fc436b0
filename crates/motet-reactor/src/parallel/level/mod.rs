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
//! wakes one parked worker per task; see [`runner`]). A runner that finds the queue empty goes
//! idle (returns its permit): it parks its runnable in its slot and clears its `active` flag, then
//! looks at the queue once more (`SeqCst` on both sides, so either it sees the newly published
//! level or the scheduler sees it idle and activates it again; see [`IdleSlot`]). Before that it
//! watches the queue for up to [`WATCH_LEVEL`](claims::WATCH_LEVEL) (30 µs) for a level that has
//! run for [`JOIN_AFTER_NS`](claims::JOIN_AFTER_NS) (10 µs) with reactions unclaimed, and joins it
//! (a level the driver published, or one that the level costs share, at once): a runner that stays
//! active is not activated again through the runtime for every level, and a level too short to
//! share is left to the worker that published it (see [`Shared::watch_for_level`]).
//!
//! The runners' side of this (claiming, watching, going idle, waking) is in [`claims`].
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

mod claims;

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use motet_reactor_core::{Engine, LevelQueue, Metrics, Next, Program, RunError, RunOptions};
use motet_runtime::{Handle, Runnable};

use super::chain::NONE;
use super::level_cost::{checkpoint, worth_sharing, LevelCosts, Plan, FIRST_CLAIM_NS};
use super::ready_queue::ReadyQueue;
use super::runner::{self, IdleSlot, Seat};
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
        // SAFETY: `shared` stays here, untouched but through shared references, until the driver
        // has seen every activation end; and this thread made the slot held, and nobody else
        // sees it yet.
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

/// A runner's seat (see [`runner`]): the runners point at the driver's
/// [`Shared`], whose borrows outlive them.
type RunnerSeat = Seat<Shared<'static>>;

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
        // nothing, many times a run on Philosopher.
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
                    if let Some(keys) = prog.deadline_order() {
                        // Claims (and a level run here) take the batch from its start.
                        motet_reactor_core::sort_earliest_first(keys, batch);
                    }
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
