//! The runtime object, its builder and the handle tasks use to reach it.

use std::fmt;
use std::num::NonZeroUsize;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::scheduler::deterministic::Deterministic;
use crate::scheduler::pool::Pool;
use crate::scheduler::Flavor;
use std::ptr::NonNull;

use crate::bank::{Counted, RefBank};
use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};
use crate::task::raw::TaskRef;
use crate::task::Runnable;
use crate::timer::{Callback, TimerKey, Timers};

/// Default bound on consecutive next-slot hand-offs before a worker looks at its deque.
pub const DEFAULT_CHAIN_BOUND: u32 = 128;

pub(crate) struct Shared {
    /// The number of references: one per [`Handle`], plus those banked by the workers (see
    /// [`Handle`]'s `Clone`).
    refs: AtomicUsize,
    flavor: Flavor,
    timers: Timers,
    clock: Clock,
    timer_thread: Mutex<Option<JoinHandle<()>>>,
    name: String,
    /// Set when the state is freed (unit tests check that the last handle frees it).
    #[cfg(test)]
    freed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

#[cfg(test)]
impl Drop for Shared {
    fn drop(&mut self) {
        self.freed.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Configures and builds a [`Runtime`].
///
/// ```
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// assert_eq!(rt.handle().workers(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    workers: Option<usize>,
    seed: Option<u64>,
    chain_bound: u32,
    stealing: Stealing,
    name: String,
}

/// How eagerly an idle worker takes work from a running one (see [`Builder::stealing`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stealing {
    /// The default: a thief steals only where stealing pays. A running worker's queue is stolen
    /// from once it holds two tasks or more (or its owner stays inside one turn), a thief takes
    /// half of it, and a thief whose stolen work ran out within 20 µs backs off before it
    /// searches again (20 µs, doubling to 200 µs). On a chain of fine-grained tasks a thief that
    /// takes every task as it is queued costs more in cache lines moved between cores than it
    /// runs in parallel.
    #[default]
    Selective,
    /// Any queued task is stolen as soon as a searching worker sees it, a thief takes at most 32
    /// tasks at a time, and searching workers never back off.
    Eager,
}

/// Why a runtime could not be built.
#[derive(Debug)]
pub struct BuildError {
    kind: BuildErrorKind,
}

#[derive(Debug)]
enum BuildErrorKind {
    ZeroWorkers,
    TooManyWorkers(usize),
    Spawn(std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BuildErrorKind::ZeroWorkers => f.write_str("a runtime needs at least one worker"),
            BuildErrorKind::TooManyWorkers(n) => {
                write!(f, "{n} workers requested; at most 65534 are supported")
            }
            BuildErrorKind::Spawn(e) => write!(f, "could not start a worker thread: {e}"),
        }
    }
}

impl Stealing {
    /// The former name of [`Stealing::Selective`].
    #[deprecated(note = "renamed `Stealing::Selective`")]
    #[allow(non_upper_case_globals)]
    pub const Patient: Stealing = Stealing::Selective;
}

impl std::error::Error for BuildError {}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            workers: None,
            seed: None,
            chain_bound: DEFAULT_CHAIN_BOUND,
            stealing: Stealing::Selective,
            name: "motet".to_string(),
        }
    }
}

impl Builder {
    /// Sets the number of worker threads (default: the available parallelism).
    pub fn workers(mut self, n: usize) -> Builder {
        self.workers = Some(n);
        self
    }

    /// Builds a deterministic runtime instead of a thread pool: no worker threads; tasks run on the
    /// thread that calls [`Runtime::wait_quiescent`] or [`Handle::drive_until`], picked at random by a
    /// generator seeded with `seed`; time is virtual. The same seed replays the same schedule.
    pub fn deterministic(mut self, seed: u64) -> Builder {
        self.seed = Some(seed);
        self
    }

    /// How many tasks in a row a worker may take from its next-task slot before it serves its deque
    /// (default [`DEFAULT_CHAIN_BOUND`]).
    pub fn chain_bound(mut self, n: u32) -> Builder {
        self.chain_bound = n;
        self
    }

    /// How eagerly idle workers take work from running ones (default [`Stealing::Selective`]).
    pub fn stealing(mut self, stealing: Stealing) -> Builder {
        self.stealing = stealing;
        self
    }

    /// The prefix of the worker threads' names (default `motet`).
    pub fn name(mut self, name: impl Into<String>) -> Builder {
        self.name = name.into();
        self
    }

    /// Starts the runtime.
    ///
    /// # Errors
    /// Zero or more than 65534 workers, or a worker thread that the OS refused to start.
    pub fn build(self) -> Result<Runtime, BuildError> {
        if let Some(seed) = self.seed {
            let handle = Handle::new(Shared {
                refs: AtomicUsize::new(1),
                flavor: Flavor::Deterministic(Deterministic::new(seed)),
                timers: Timers::new(),
                clock: Clock::new_virtual(),
                timer_thread: Mutex::new(None),
                name: self.name,
                #[cfg(test)]
                freed: Default::default(),
            });
            return Ok(Runtime {
                handle,
                threads: Vec::new(),
            });
        }
        let workers = self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(NonZeroUsize::get)
                .unwrap_or(1)
        });
        if workers == 0 {
            return Err(BuildError {
                kind: BuildErrorKind::ZeroWorkers,
            });
        }
        if workers > 65534 {
            return Err(BuildError {
                kind: BuildErrorKind::TooManyWorkers(workers),
            });
        }
        let (pool, locals) = Pool::new(workers, self.chain_bound.max(1), self.stealing);
        let mut rt = Runtime {
            handle: Handle::new(Shared {
                refs: AtomicUsize::new(1),
                flavor: Flavor::Pool(pool),
                timers: Timers::new(),
                clock: Clock::Physical,
                timer_thread: Mutex::new(None),
                name: self.name,
                #[cfg(test)]
                freed: Default::default(),
            }),
            threads: Vec::with_capacity(workers),
        };
        for (index, local) in locals.into_iter().enumerate() {
            let handle = rt.handle.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{}-worker-{index}", handle.shared().name))
                .spawn(move || {
                    #[cfg(feature = "tracing")]
                    let _span = tracing::trace_span!("motet-worker", index).entered();
                    let shared = handle.shared();
                    let Flavor::Pool(pool) = &shared.flavor else {
                        unreachable!("pool runtime")
                    };
                    pool.run_worker(index, local, &shared.timers);
                    // The references this worker's bank still holds go back to the count now
                    // (`handle` holds another, so this cannot be the last), not when the thread's
                    // exit hooks run.
                    RefBank::flush(&HANDLE_REFS);
                });
            match spawned {
                Ok(t) => rt.threads.push(t),
                // Dropping `rt` shuts down the workers already started.
                Err(e) => {
                    return Err(BuildError {
                        kind: BuildErrorKind::Spawn(e),
                    })
                }
            }
        }
        Ok(rt)
    }
}

/// A running motet runtime: a pool of worker threads (or a deterministic single-thread scheduler),
/// timers and a clock. Dropping it shuts it down (see [`Runtime::shutdown`]).
///
/// ```
/// use motet_runtime::Runtime;
/// let rt = Runtime::builder().workers(1).build().unwrap();
/// rt.wait_quiescent(); // nothing was scheduled: returns at once
/// ```
pub struct Runtime {
    handle: Handle,
    threads: Vec<JoinHandle<()>>,
}

impl Runtime {
    /// A builder with the defaults: as many workers as the machine has cores.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Starts a runtime with the default configuration.
    ///
    /// # Errors
    /// See [`Builder::build`].
    pub fn new() -> Result<Runtime, BuildError> {
        Builder::default().build()
    }

    /// A handle to this runtime, cheap to clone, for spawning and scheduling.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Blocks until no work is left: no task runnable or running, no timer pending. On a deterministic
    /// runtime, runs the tasks on the calling thread (and advances virtual time) until then.
    pub fn wait_quiescent(&self) {
        self.handle.wait_quiescent();
    }

    /// Shuts the runtime down: workers finish the turn they are in and stop; every task still scheduled
    /// is told to shut down (actors stop with reason "shutdown"); pending timers are dropped unfired.
    /// Tasks scheduled afterwards are shut down at once. Called by `Drop`.
    pub fn shutdown(mut self) {
        self.shutdown_inner();
    }

    fn shutdown_inner(&mut self) {
        let shared = self.handle.shared();
        match &shared.flavor {
            Flavor::Pool(pool) => {
                // A debugging aid: every worker's counters on standard error at shutdown.
                #[cfg(feature = "metrics")]
                if std::env::var_os("MOTET_RUNTIME_METRICS").is_some() {
                    for (worker, m) in pool.counters.iter().map(|c| c.snapshot()).enumerate() {
                        eprintln!("motet-runtime metrics: worker {worker}: {m:?}");
                    }
                }
                pool.begin_shutdown();
                let on_worker = pool.on_worker();
                for t in self.threads.drain(..) {
                    if on_worker && t.thread().id() == std::thread::current().id() {
                        continue; // dropped from inside a task: this worker exits after the task
                    }
                    let _ = t.join();
                }
                shared.timers.shutdown();
                if let Some(t) = lock(&shared.timer_thread).take() {
                    let _ = t.join();
                }
                pool.drain_injector();
                pool.finish_shutdown();
            }
            Flavor::Deterministic(det) => {
                shared.timers.shutdown();
                det.shutdown();
            }
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown_inner();
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("handle", &self.handle)
            .finish()
    }
}

/// A cheap, cloneable reference to a runtime, held by everything that schedules work on it.
///
/// A handle may outlive its [`Runtime`]: after shutdown, scheduled tasks are shut down at once.
///
/// Cloning and dropping a handle on one of the runtime's own workers costs no atomic operation:
/// every actor holds a handle, and programs that spawn an actor per message (a recursive fib spawns
/// a hundred thousand and more) would otherwise pay two atomic read-modify-writes per actor on one
/// cache line that every worker writes to. The count lives in the shared state as a plain
/// reference count, and each worker keeps a bank of references it took from it in bulk (a
/// [`RefBank`], see [`bank`](crate::bank)): a clone on the worker takes one from the bank
/// (refilling it with `REF_BATCH` in one atomic add when empty), a drop puts one back (and returns
/// `REF_BATCH` in one atomic subtraction when the bank holds more than twice that). The count thus
/// never undercounts: it is the handles plus the banks. A worker returns its bank when it stops,
/// so the shared state is freed with the last handle, as with an `Arc`. Off the workers (and for
/// another runtime's handles) clones and drops use the count directly.
pub struct Handle {
    shared: NonNull<Shared>,
}

/// How many references a worker's bank takes from the shared count at a time.
pub(crate) const REF_BATCH: usize = 256;

thread_local! {
    /// This thread's bank of references to the runtime it is a worker of (filled on workers only).
    static HANDLE_REFS: RefBank<Shared, REF_BATCH> = const { RefBank::new() };
}

// SAFETY: `acquire` and `release` add to and subtract from `refs`, the count of handles and banked
// references that keeps the state alive, and the release that takes it to zero frees the state.
unsafe impl Counted for Shared {
    #[inline]
    fn acquire(&self, n: usize) {
        // Relaxed, as in `Arc::clone`: the new references are made from an existing one.
        if self.refs.fetch_add(n, Ordering::Relaxed) > isize::MAX as usize {
            // As `Arc` does: a count this high means leaked handles; wrapping would free too early.
            std::process::abort();
        }
    }

    #[inline]
    unsafe fn release(this: *const Shared, n: usize) {
        // SAFETY: the caller gives up `n` references it holds, which keep the state alive until
        // the subtraction.
        let refs = unsafe { &(*this).refs };
        // Release orders these references' uses before the freeing; the Acquire load makes the
        // one that frees see every other holder's uses (as `Arc`'s drop does; a load rather than
        // a fence, as ThreadSanitizer models the one and not the other).
        if refs.fetch_sub(n, Ordering::Release) == n {
            refs.load(Ordering::Acquire);
            // SAFETY: the count reached zero: no handle and no bank is left, so nothing else can
            // reach the state, which `Handle::new` allocated as a Box.
            drop(unsafe { Box::from_raw(this.cast_mut()) });
        }
    }
}

impl Shared {
    /// Whether the calling thread is one of this runtime's workers: only they bank references.
    fn on_pool_worker(&self) -> bool {
        matches!(&self.flavor, Flavor::Pool(pool) if pool.on_worker())
    }

    /// Another handle to this state, for a caller that holds one (which keeps the state alive
    /// meanwhile): as [`Handle::clone`], from the state itself, so that a scheduling call need not
    /// keep the handle's address (often a field of the task being scheduled) at hand for its rare
    /// remote path.
    pub(crate) fn new_handle(&self) -> Handle {
        RefBank::take(&HANDLE_REFS, self, || self.on_pool_worker());
        Handle {
            shared: NonNull::from(self),
        }
    }
}

// `Shared` itself is thread-safe (checked here), which is what the impls below rely on.
const _: fn() = || {
    fn thread_safe<T: Send + Sync>() {}
    thread_safe::<Shared>();
};

// SAFETY: a handle only gives shared access to `Shared`, whose fields are all thread-safe (atomics,
// mutexes, the pool's own synchronisation), and the reference count it owns keeps `Shared` alive.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

/// Whether the calling thread is a worker of any thread-pool runtime in this process (not only
/// of one runtime, as [`Handle::on_worker`] asks): for code that may wait, to decide whether it
/// would hold up a worker.
///
/// ```
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// assert!(!motet_runtime::on_worker_thread());
/// let (tx, rx) = std::sync::mpsc::channel();
/// let on_worker = move || tx.send(motet_runtime::on_worker_thread()).unwrap();
/// rt.handle().schedule(motet_runtime::testing::once(on_worker, || {}));
/// assert!(rx.recv().unwrap());
/// ```
pub fn on_worker_thread() -> bool {
    crate::scheduler::pool::on_any_worker()
}

impl Handle {
    /// The first handle to newly built shared state, whose count must be 1.
    fn new(shared: Shared) -> Handle {
        debug_assert_eq!(shared.refs.load(Ordering::Relaxed), 1);
        Handle {
            shared: NonNull::from(Box::leak(Box::new(shared))),
        }
    }

    #[inline]
    fn shared(&self) -> &Shared {
        // SAFETY: this handle owns a reference, which keeps the shared state alive.
        unsafe { self.shared.as_ref() }
    }
}

impl Clone for Handle {
    #[inline]
    fn clone(&self) -> Handle {
        let shared = self.shared();
        RefBank::take(&HANDLE_REFS, shared, || shared.on_pool_worker());
        Handle {
            shared: self.shared,
        }
    }
}

impl Drop for Handle {
    #[inline]
    fn drop(&mut self) {
        let shared = self.shared.as_ptr().cast_const();
        // SAFETY: this handle's reference is given up here, and the closure runs before that,
        // while the reference keeps the state alive.
        unsafe { RefBank::give(&HANDLE_REFS, shared, || (*shared).on_pool_worker()) };
    }
}

impl Handle {
    /// Makes `task` runnable. From a task running on one of this runtime's workers, the task goes to
    /// that worker's next-task slot; from anywhere else, to the global injector.
    #[inline]
    pub fn schedule<S>(&self, task: Runnable<S>) {
        self.schedule_ref(task.into_task_ref(), false);
    }

    /// Makes a task that was just created runnable for the first time: the same as
    /// [`Handle::schedule`], except that on a worker, if another task takes the next-task slot
    /// before it runs, it waits on the worker's *spawn stack* (newest first) instead of the queue of
    /// woken tasks (oldest first). A task that creates several tasks in one turn (an actor spawning
    /// children) thereby has them run depth first, which keeps a recursive program's live tasks few
    /// and in cache; other workers steal the oldest, the roots of the largest subtrees.
    #[inline]
    pub fn schedule_new<S>(&self, task: Runnable<S>) {
        self.schedule_ref(task.into_task_ref(), true);
    }

    /// Makes `task` runnable where another worker can take it: from a task running on one of this
    /// runtime's workers, to the back of that worker's wake queue (an idle worker is woken to steal it)
    /// rather than its next-task slot; from anywhere else, to the global injector, as
    /// [`Handle::schedule`] does. For fan-out, where the caller goes on with work of its own and
    /// the task should run beside it, not after it.
    pub fn schedule_shared<S>(&self, task: Runnable<S>) {
        self.schedule_shared_ref(task.into_task_ref());
    }

    #[inline]
    pub(crate) fn schedule_ref(&self, task: TaskRef, new: bool) {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.schedule(task, new, self.shared()),
            Flavor::Deterministic(det) => det.schedule(task),
        }
    }

    pub(crate) fn schedule_shared_ref(&self, task: TaskRef) {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.schedule_shared(task, self.shared()),
            Flavor::Deterministic(det) => det.schedule(task),
        }
    }

    /// Blocks until the runtime is quiescent (see [`Runtime::wait_quiescent`]).
    pub fn wait_quiescent(&self) {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.wait_quiescent(&self.shared().timers),
            Flavor::Deterministic(det) => {
                det.drive(&self.shared().timers, &self.shared().clock, || false);
            }
        }
    }

    /// Whether the runtime is quiescent right now.
    pub fn is_quiescent(&self) -> bool {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.is_quiescent(&self.shared().timers),
            Flavor::Deterministic(det) => det.is_quiescent(&self.shared().timers),
        }
    }

    /// On a deterministic runtime, runs tasks (and virtual timers) on the calling thread until `done()`
    /// holds or no work is left, and returns `done()`. On a thread pool the workers do the work: this
    /// only evaluates `done()`. Blocking waits (an ask's `wait`, a test's join) call it first so that
    /// they also work under the deterministic scheduler.
    pub fn drive_until(&self, done: impl FnMut() -> bool) -> bool {
        match &self.shared().flavor {
            Flavor::Pool(_) => {
                let mut done = done;
                done()
            }
            Flavor::Deterministic(det) => {
                det.drive(&self.shared().timers, &self.shared().clock, done)
            }
        }
    }

    /// The number of worker threads (1 for a deterministic runtime).
    pub fn workers(&self) -> usize {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.counters.len(),
            Flavor::Deterministic(_) => 1,
        }
    }

    /// The seed of a deterministic runtime; `None` for a thread pool.
    pub fn seed(&self) -> Option<u64> {
        match &self.shared().flavor {
            Flavor::Pool(_) => None,
            Flavor::Deterministic(det) => Some(det.seed()),
        }
    }

    /// Whether the calling thread is one of this runtime's workers.
    pub fn on_worker(&self) -> bool {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.on_worker(),
            Flavor::Deterministic(_) => false,
        }
    }

    /// The runtime's current time (virtual on a deterministic runtime).
    pub fn now(&self) -> Instant {
        self.shared().clock.now()
    }

    /// Runs `f` once, `after` from now, on the timer thread (or, deterministically, when virtual time
    /// reaches the deadline). `f` should be short: schedule work rather than do it. A pending timer
    /// keeps the runtime from being quiescent.
    pub fn call_after(&self, after: Duration, f: impl FnOnce() + Send + 'static) -> TimerKey {
        self.call_at(self.now() + after, Box::new(f))
    }

    fn call_at(&self, deadline: Instant, f: Callback) -> TimerKey {
        let (key, start) = self.shared().timers.insert(deadline, f);
        if start && matches!(self.shared().flavor, Flavor::Pool(_)) {
            self.start_timer_thread();
        }
        key
    }

    /// Cancels a timer; returns whether it had not fired yet.
    pub fn cancel_timer(&self, key: TimerKey) -> bool {
        let cancelled = self.shared().timers.cancel(key);
        if cancelled {
            if let Flavor::Pool(pool) = &self.shared().flavor {
                pool.check_quiescent(&self.shared().timers);
            }
        }
        cancelled
    }

    fn start_timer_thread(&self) {
        let handle = self.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{}-timer", self.shared().name))
            .spawn(move || {
                let shared = handle.shared();
                let Flavor::Pool(pool) = &shared.flavor else {
                    return;
                };
                shared
                    .timers
                    .run_thread(|| pool.check_quiescent(&shared.timers));
            })
            .expect("motet-runtime: could not start the timer thread");
        *lock(&self.shared().timer_thread) = Some(thread);
    }

    /// Per-worker counters (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub fn metrics(&self) -> Vec<crate::metrics::WorkerMetrics> {
        match &self.shared().flavor {
            Flavor::Pool(pool) => pool.counters.iter().map(|c| c.snapshot()).collect(),
            Flavor::Deterministic(_) => Vec::new(),
        }
    }

    /// Whether two handles refer to the same runtime.
    pub fn same_runtime(&self, other: &Handle) -> bool {
        self.shared == other.shared
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("name", &self.shared().name)
            .field("workers", &self.workers())
            .field("seed", &self.seed())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    //! Handles are counted references: clones and drops on the runtime's own workers go through
    //! each worker's bank, off the workers through the shared count, and in any mix the count is
    //! the number of handles plus the banks, and the state is freed with the last handle.

    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::sync::{mpsc, Arc};

    use super::*;
    fn spawn(handle: &Handle, run: impl FnOnce() + Send + 'static) {
        handle.schedule(crate::testing::once(run, || {}));
    }

    fn refs(handle: &Handle) -> usize {
        handle.shared().refs.load(SeqCst)
    }

    fn freed_flag(handle: &Handle) -> Arc<AtomicBool> {
        handle.shared().freed.clone()
    }

    /// Enough clones to refill and give back a worker's bank several times over.
    const MANY: usize = 5 * REF_BATCH;

    /// Clones made off the pool and dropped on a worker, made and dropped on a worker, made on a
    /// worker and dropped off the pool: once the workers are gone, the count is exactly the
    /// handles left, and the last one frees the state.
    fn mixed_clones(workers: usize) {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        let freed = freed_flag(rt.handle());
        let (to_main, from_workers) = mpsc::channel::<Vec<Handle>>();
        for _ in 0..workers * 2 {
            let h = rt.handle().clone();
            let to_main = to_main.clone();
            let outside: Vec<Handle> = (0..MANY).map(|_| rt.handle().clone()).collect();
            spawn(rt.handle(), move || {
                drop(outside);
                for _ in 0..MANY {
                    drop(h.clone());
                }
                let kept: Vec<Handle> = (0..MANY + 7).map(|_| h.clone()).collect();
                to_main.send(kept).unwrap();
            });
        }
        drop(to_main);
        rt.wait_quiescent();
        let kept: Vec<Vec<Handle>> = from_workers.iter().collect();
        assert_eq!(kept.len(), workers * 2);
        let survivor = rt.handle().clone();
        drop(rt);
        // The workers have exited and returned their banks.
        assert_eq!(refs(&survivor), 1 + workers * 2 * (MANY + 7));
        drop(kept);
        assert_eq!(refs(&survivor), 1);
        assert!(survivor.is_quiescent());
        assert!(!freed.load(SeqCst));
        drop(survivor);
        assert!(freed.load(SeqCst), "the last handle did not free the state");
    }

    #[test]
    fn one_worker_counts_mixed_clones() {
        mixed_clones(1);
    }

    #[test]
    fn two_workers_count_mixed_clones() {
        for _ in 0..5 {
            mixed_clones(2);
        }
    }

    /// While the runtime runs, the count never falls below the live handles: it is those plus
    /// what the banks hold, and a worker's bank holds at most `2 * REF_BATCH + 1`.
    #[test]
    fn the_count_covers_the_live_handles_while_running() {
        let rt = Runtime::builder().workers(2).build().unwrap();
        let (tx, rx) = mpsc::channel::<usize>();
        let h = rt.handle().clone();
        spawn(rt.handle(), move || {
            let kept: Vec<Handle> = (0..3 * REF_BATCH).map(|_| h.clone()).collect();
            tx.send(refs(&h)).unwrap();
            drop(kept);
            tx.send(refs(&h)).unwrap();
        });
        let with_kept = rx.recv().unwrap();
        let after = rx.recv().unwrap();
        // rt's handle, `h`, two worker threads' handles: 4, plus the banks.
        assert!(with_kept >= 4 + 3 * REF_BATCH);
        assert!((4..=4 + 2 * (2 * REF_BATCH + 1)).contains(&after));
        rt.wait_quiescent();
    }

    /// A handle dropped on a worker of another runtime is counted on its own runtime.
    #[test]
    fn another_runtimes_handles_are_counted_apart() {
        let a = Runtime::builder().workers(1).build().unwrap();
        let b = Runtime::builder().workers(1).build().unwrap();
        let b_freed = freed_flag(b.handle());
        let of_b: Vec<Handle> = (0..MANY).map(|_| b.handle().clone()).collect();
        let b_handle = b.handle().clone();
        spawn(a.handle(), move || {
            let more: Vec<Handle> = (0..MANY).map(|_| b_handle.clone()).collect();
            drop(more);
            drop(of_b);
        });
        a.wait_quiescent();
        assert_eq!(refs(b.handle()), 2); // b's own handle and its worker's
        drop(b);
        assert!(b_freed.load(SeqCst));
        drop(a);
    }
}
