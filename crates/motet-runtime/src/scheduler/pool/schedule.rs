//! Where a task goes when it is made runnable.
//!
//! # Where a task goes
//!
//! - Scheduled by a task running on a worker of the same pool: into that worker's **next-task slot**.
//!   If the slot is taken, the new task goes to one of the worker's two queues (and an idle worker
//!   may be woken to steal it), and the slot keeps its task. So a task that makes exactly one
//!   other task runnable hands it over directly: the worker runs it next, with warm caches and without touching a queue,
//!   as CAF chains actors and Verona keeps the last runnable behaviour.
//! - Scheduled from any other thread: into the global **injector**, and one parked worker is woken.
//! - Scheduled as *shared* (`Handle::schedule_shared`) by a task on a worker: to the back of that
//!   worker's wake queue, where another worker can steal it, and an idle worker is woken. This is
//!   for fan-out: the caller goes on with work of its own and wants the task to run beside it.
//! - A task that yields (more work, but its turn is over) goes to the back of the worker's wake
//!   queue.
//!
//! A worker has two queues. Tasks *woken up* (an actor that received a message) wait in the **wake
//! queue** (crossbeam's FIFO deque): served oldest first, fair among actors. Tasks *just created*
//! ([`Handle::schedule_new`](crate::Handle::schedule_new): an actor's first scheduling) wait on the
//! **spawn stack** (crossbeam's LIFO deque): the owner pops the newest, thieves steal the oldest. A
//! task that creates several tasks in one turn (an actor spawning children) is thereby followed
//! depth first, so the tasks alive at once stay few and their memory stays in cache. With one FIFO
//! queue for all, a recursive program runs breadth first and the actors waiting at once grow with
//! the width of the tree: fib's working set and time grew severalfold (see
//! docs/measurements/2026-11-29-runtime.md, "Depth-first local scheduling"). Thieves take the
//! oldest spawns, the roots of the largest subtrees, as in Cilk's work-first stealing. In a pool of
//! one worker, where nobody steals, both queues are private rings instead of crossbeam deques, free
//! of atomics ([`LocalQueue`](crate::scheduler::local_queue::LocalQueue)).

use super::worker::WorkerCtx;
use super::Pool;
use crate::metrics::Counter;
use crate::runtime::Shared;
use crate::sync::atomic::Ordering::SeqCst;
use crate::task::raw::TaskRef;

impl Pool {
    /// Makes `task` runnable: into the current worker's slot if this thread is one of this pool's
    /// workers, otherwise into the injector. `new` says whether the task was just created (see the
    /// module docs for where that sends it if it leaves the slot). `owner` is the state of the
    /// handle the caller scheduled through (see [`Pool::schedule_remote`]).
    #[inline]
    pub(crate) fn schedule(&self, task: TaskRef, new: bool, owner: &Shared) {
        match self.current() {
            Some(ctx) => self.schedule_local(ctx, task, new),
            None => self.schedule_remote(task, owner),
        }
    }

    /// Makes `task` runnable where another worker can take it: the back of the current worker's
    /// wake queue (waking an idle worker to steal it) if this thread is one of this pool's
    /// workers, otherwise the injector.
    pub(crate) fn schedule_shared(&self, task: TaskRef, owner: &Shared) {
        match self.current() {
            Some(ctx) => {
                ctx.local.push(task);
                self.notify_stealable();
            }
            None => self.schedule_remote(task, owner),
        }
    }

    /// Into the slot if it is empty, otherwise to one of this worker's queues (and a parked worker
    /// may be woken to steal it, under the "at most one searcher" rule): the slot keeps the task
    /// that was there first. Filling an empty slot wakes nobody: a slot's task stuck behind a long
    /// turn is rescued by a searching or timed-parked worker (see "The next-task slot is
    /// stealable" in the module docs).
    ///
    /// The slot used to take the newest task and hand its previous occupant to a queue, as Go's
    /// `runnext` and Tokio's LIFO slot do. On a pool of several workers that cost an atomic swap per
    /// displaced task (a thief may have taken the occupant), where keeping the occupant costs a
    /// load; which of the woken tasks runs first makes no difference to a chain of hand-offs (one
    /// task woken per turn), and a task that wakes several still runs one of them next.
    #[inline]
    pub(super) fn schedule_local(&self, ctx: &WorkerCtx, task: TaskRef, new: bool) {
        let slot = ctx.slot();
        if ctx.alone {
            if slot.fill_unshared(task.as_ptr()).is_err() {
                Self::push_alone(ctx, task, new);
            }
        } else if slot.fill(task.as_ptr()).is_err() {
            self.push_local(ctx, task, new);
        }
    }

    /// [`Pool::push_local`] for the only worker of its pool: onto its private ring, with nobody
    /// to tell. Kept out of line, as `push_local` is, and apart from it, so that its few
    /// instructions carry none of the crossbeam deque's register saves.
    #[inline(never)]
    pub(super) fn push_alone(ctx: &WorkerCtx, task: TaskRef, new: bool) {
        let queue = if new { &ctx.spawns } else { &ctx.local };
        queue.push_private(task);
    }

    /// Pushes onto one of this worker's queues and, if the queue was empty, tells an idle worker
    /// there is something to steal. Kept out of line: `schedule` is inlined into every send, and
    /// usually finds the slot empty.
    ///
    /// A push onto a queue that already holds a task looks for nobody: the push that made it
    /// non-empty did (a `SeqCst` fence, the most expensive step of a push: a task that wakes four
    /// others in one turn would pay it three times), and a worker woken then, or searching then,
    /// finds this task too. Nothing depends on it for progress: the owner runs its own queues
    /// before it parks, and a worker that parks while the owner runs watches the queues with a
    /// timed park (see `watch`), so a task the others missed waits at most one watch timeout for
    /// them, and usually runs on its own worker first.
    #[inline(never)]
    pub(super) fn push_local(&self, ctx: &WorkerCtx, task: TaskRef, new: bool) {
        let queue = if new { &ctx.spawns } else { &ctx.local };
        let was_empty = queue.is_empty();
        queue.push(task);
        if was_empty {
            self.notify_stealable();
        }
    }

    /// Into the injector, waking a parked worker; after shutdown, drains the injector here. The
    /// pool is kept alive by a reference of its own until this returns: the handle the caller
    /// scheduled through (whose state is `owner`) may live in the very task being scheduled (a
    /// model reaching its runtime through the task's cell), and once the task is pushed another
    /// thread, or the drain below once the runtime has shut down, may run or shut it down and drop
    /// that handle, the runtime's last reference. A worker needs no such reference: the runtime
    /// outlives its workers.
    pub(super) fn schedule_remote(&self, task: TaskRef, owner: &Shared) {
        let _alive = owner.new_handle();
        self.injector.push(task);
        self.idle.notify_one();
        if self.shutdown.load(SeqCst) {
            self.drain_injector();
        }
    }

    #[inline]
    pub(super) fn notify_stealable(&self) {
        if self.num_workers() > 1 && self.idle.notify_one() {
            self.count_here(Counter::Wake);
        }
    }
}
