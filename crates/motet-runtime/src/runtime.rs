//! The runtime object, its builder and the handle tasks use to reach it.

use std::fmt;
use std::num::NonZeroUsize;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::scheduler::deterministic::Deterministic;
use crate::scheduler::pool::Pool;
use crate::scheduler::Flavor;
use crate::sync::{lock, Arc, Mutex};
use crate::task::TaskRef;
use crate::timer::{Callback, TimerKey, Timers};

/// Default bound on consecutive next-slot hand-offs before a worker looks at its deque.
pub const DEFAULT_CHAIN_BOUND: u32 = 128;

struct Shared {
    flavor: Flavor,
    timers: Timers,
    clock: Clock,
    timer_thread: Mutex<Option<JoinHandle<()>>>,
    name: String,
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
    name: String,
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

impl std::error::Error for BuildError {}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            workers: None,
            seed: None,
            chain_bound: DEFAULT_CHAIN_BOUND,
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
            let shared = Arc::new(Shared {
                flavor: Flavor::Deterministic(Deterministic::new(seed)),
                timers: Timers::new(),
                clock: Clock::new_virtual(),
                timer_thread: Mutex::new(None),
                name: self.name,
            });
            return Ok(Runtime {
                handle: Handle { shared },
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
        let (pool, locals) = Pool::new(workers, self.chain_bound.max(1));
        let shared = Arc::new(Shared {
            flavor: Flavor::Pool(pool),
            timers: Timers::new(),
            clock: Clock::Physical,
            timer_thread: Mutex::new(None),
            name: self.name,
        });
        let mut rt = Runtime {
            handle: Handle {
                shared: shared.clone(),
            },
            threads: Vec::with_capacity(workers),
        };
        for (index, local) in locals.into_iter().enumerate() {
            let shared = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{}-worker-{index}", shared.name))
                .spawn(move || {
                    #[cfg(feature = "tracing")]
                    let _span = tracing::trace_span!("motet-worker", index).entered();
                    let Flavor::Pool(pool) = &shared.flavor else {
                        unreachable!("pool runtime")
                    };
                    pool.run_worker(index, local, &shared.timers);
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
        let shared = &self.handle.shared;
        match &shared.flavor {
            Flavor::Pool(pool) => {
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
#[derive(Clone)]
pub struct Handle {
    shared: Arc<Shared>,
}

impl Handle {
    /// Makes `task` runnable. From a task running on one of this runtime's workers, the task goes to
    /// that worker's next-task slot; from anywhere else, to the global injector.
    ///
    /// # Safety
    /// `task` satisfies [`TaskRef::from_raw`]'s contract and is not scheduled anywhere else until the
    /// runtime has called its `run` or `shutdown`.
    #[inline]
    pub unsafe fn schedule(&self, task: TaskRef) {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.schedule(task),
            Flavor::Deterministic(det) => det.schedule(task),
        }
    }

    /// Makes `task` runnable where another worker can take it: from a task running on one of this
    /// runtime's workers, to the back of that worker's deque (an idle worker is woken to steal it)
    /// rather than its next-task slot; from anywhere else, to the global injector, as
    /// [`Handle::schedule`] does. For fan-out, where the caller goes on with work of its own and
    /// the task should run beside it, not after it.
    ///
    /// # Safety
    /// As for [`Handle::schedule`].
    pub unsafe fn schedule_shared(&self, task: TaskRef) {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.schedule_shared(task),
            Flavor::Deterministic(det) => det.schedule(task),
        }
    }

    /// Blocks until the runtime is quiescent (see [`Runtime::wait_quiescent`]).
    pub fn wait_quiescent(&self) {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.wait_quiescent(&self.shared.timers),
            Flavor::Deterministic(det) => {
                det.drive(&self.shared.timers, &self.shared.clock, || false);
            }
        }
    }

    /// Whether the runtime is quiescent right now.
    pub fn is_quiescent(&self) -> bool {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.is_quiescent(&self.shared.timers),
            Flavor::Deterministic(det) => det.is_quiescent(&self.shared.timers),
        }
    }

    /// On a deterministic runtime, runs tasks (and virtual timers) on the calling thread until `done()`
    /// holds or no work is left, and returns `done()`. On a thread pool the workers do the work: this
    /// only evaluates `done()`. Blocking waits (an ask's `wait`, a test's join) call it first so that
    /// they also work under the deterministic scheduler.
    pub fn drive_until(&self, done: impl FnMut() -> bool) -> bool {
        match &self.shared.flavor {
            Flavor::Pool(_) => {
                let mut done = done;
                done()
            }
            Flavor::Deterministic(det) => det.drive(&self.shared.timers, &self.shared.clock, done),
        }
    }

    /// The number of worker threads (1 for a deterministic runtime).
    pub fn workers(&self) -> usize {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.counters.len(),
            Flavor::Deterministic(_) => 1,
        }
    }

    /// The seed of a deterministic runtime; `None` for a thread pool.
    pub fn seed(&self) -> Option<u64> {
        match &self.shared.flavor {
            Flavor::Pool(_) => None,
            Flavor::Deterministic(det) => Some(det.seed()),
        }
    }

    /// Whether the calling thread is one of this runtime's workers.
    pub fn on_worker(&self) -> bool {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.on_worker(),
            Flavor::Deterministic(_) => false,
        }
    }

    /// The runtime's current time (virtual on a deterministic runtime).
    pub fn now(&self) -> Instant {
        self.shared.clock.now()
    }

    /// Runs `f` once, `after` from now, on the timer thread (or, deterministically, when virtual time
    /// reaches the deadline). `f` should be short: schedule work rather than do it. A pending timer
    /// keeps the runtime from being quiescent.
    pub fn call_after(&self, after: Duration, f: impl FnOnce() + Send + 'static) -> TimerKey {
        self.call_at(self.now() + after, Box::new(f))
    }

    fn call_at(&self, deadline: Instant, f: Callback) -> TimerKey {
        let (key, start) = self.shared.timers.insert(deadline, f);
        if start && matches!(self.shared.flavor, Flavor::Pool(_)) {
            self.start_timer_thread();
        }
        key
    }

    /// Cancels a timer; returns whether it had not fired yet.
    pub fn cancel_timer(&self, key: TimerKey) -> bool {
        let cancelled = self.shared.timers.cancel(key);
        if cancelled {
            if let Flavor::Pool(pool) = &self.shared.flavor {
                pool.check_quiescent(&self.shared.timers);
            }
        }
        cancelled
    }

    fn start_timer_thread(&self) {
        let shared = self.shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{}-timer", self.shared.name))
            .spawn(move || {
                let Flavor::Pool(pool) = &shared.flavor else {
                    return;
                };
                shared
                    .timers
                    .run_thread(|| pool.check_quiescent(&shared.timers));
            })
            .expect("motet-runtime: could not start the timer thread");
        *lock(&self.shared.timer_thread) = Some(thread);
    }

    /// Per-worker counters (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub fn metrics(&self) -> Vec<crate::metrics::WorkerMetrics> {
        match &self.shared.flavor {
            Flavor::Pool(pool) => pool.counters.iter().map(|c| c.snapshot()).collect(),
            Flavor::Deterministic(_) => Vec::new(),
        }
    }

    /// Whether two handles refer to the same runtime.
    pub fn same_runtime(&self, other: &Handle) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("name", &self.shared.name)
            .field("workers", &self.workers())
            .field("seed", &self.seed())
            .finish()
    }
}
