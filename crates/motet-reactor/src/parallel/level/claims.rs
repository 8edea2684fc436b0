//! The runners' side of the level scheduler: a runner claims reactions of the published level
//! and runs them, plays the scheduler when it finishes a level's last one, watches for the next
//! level worth joining, and goes idle when none comes; the scheduler activates idle runners for a
//! level (see the [parent module](super) for the protocol).

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use motet_runtime::task::{Running, Turn};
use motet_runtime::Runnable;

use super::{Player, RunnerSeat, Shared};
use crate::clock::now_ns;
use crate::parallel::runner::{self, RunnerTask, Scheduler};
use crate::parallel::Driver;
use crate::runner::execute_guarded;

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

/// How long a runner that finds the published level all claimed watches for a level worth
/// joining before it goes idle (see [`Shared::watch_for_level`]).
pub(super) const WATCH_LEVEL: Duration = Duration::from_micros(30);

/// How long a published level must have run, with reactions still unclaimed, before a watching
/// runner joins it (see [`Shared::watch_for_level`]).
pub(super) const JOIN_AFTER_NS: u64 = 10_000;

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
        // SAFETY: the runnable is parked (it was not revived), and this turn is over.
        unsafe { runner::idle(&self.driver) }
    }

    /// Runs claimed reaction `r` of the published level, and the chain that follows it (see
    /// [`Chains`](super::Chains)), recording how many ran after it and any panic.
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

    /// Spins until the published level has unclaimed reactions and has run for
    /// [`JOIN_AFTER_NS`] (`true`: join it), or until [`WATCH_LEVEL`] passes without such a level
    /// (`false`: go idle), yielding the thread now and then so that a loaded machine runs the
    /// threads that do the work.
    ///
    /// Why watch: a runner that went idle at the end of every level would be activated again,
    /// as a task queued on the scheduler's worker, for the next level wide enough for two: a
    /// hand-off through the runtime per level, whose latency is the thief's (the runtime's
    /// selective stealing leaves a running worker's lone queued task alone for a while, and a
    /// worker whose last steals did not pay backs off), with a wake-up and a park per level, and the scheduler's
    /// part passing from worker to worker. Watching keeps the runner in the run while levels
    /// come close together, as LF's workers stay awake between levels.
    ///
    /// Why wait before joining: the worker that published a level claims its reactions from the
    /// start. Where a level's reactions take tens of nanoseconds (Philosopher, Concurrent
    /// Dictionary, Fork-Join throughput: a level of 20 to 60 reactions is done in a few
    /// microseconds), a second worker claiming beside it costs more than it saves (the claim
    /// counter's cache line and the reactors' state move between the cores on every claim), as
    /// measured on two workers with both runners claiming every level. A
    /// level still unclaimed after [`JOIN_AFTER_NS`] is long enough to share (Big's levels of
    /// a hundred reactions, the parallel programs' levels of long reactions), and a level
    /// whose publisher the operating system preempted is taken over. Under
    /// [`Sharing::WhenWorthIt`](super::Sharing::WhenWorthIt) a level is published only when its
    /// costs say that sharing it pays, so such a level is joined at once: waiting would cost up
    /// to [`JOIN_AFTER_NS`] a level on the programs that share a level every tag (Nqueens, Filter
    /// Bank, Bounded Buffer, A*).
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

    /// Activates idle runners for a published level of `width` reactions: `min(width, workers)`
    /// in all, counting `me` (the runner playing the scheduler) if given.
    pub(super) fn wake(&self, width: usize, me: Option<usize>) {
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
