//! The process system: where processes are spawned, counted, waited for and shut down.
//!
//! A [`ProcessSystem`] is a view on a motet runtime (as Effpi's `ProcessSystem` owns its executors,
//! but here the workers are the runtime's, shared with actors and the other models). It counts
//! every process and registers the ones that park (see `registry`), so that
//! [`ProcessSystem::wait`] knows when all have finished and [`ProcessSystem::shutdown`] can cancel
//! the ones parked on channels.

use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

#[cfg(not(loom))]
use motet_runtime::Handle;
use motet_runtime::Runnable;

use crate::context;
use crate::process::{self, Header, ProcessTask};
use crate::registry::Registry;

/// Default number of steps a process may take per scheduling before it yields (see
/// [`ProcessSystemBuilder::steps`]): as many as the messages a motet actor handles per turn
/// (`motet_actor::DEFAULT_BATCH`), so that a process reading its channel and an actor reading its
/// mailbox go back to the scheduler equally often.
pub const DEFAULT_STEPS: u32 = 128;

/// Panics caught in processes.
#[derive(Default)]
struct Panics {
    count: usize,
    first: Option<String>,
}

/// The shared state of a process system.
pub(crate) struct SystemShared {
    #[cfg(not(loom))]
    handle: Handle,
    /// Under loom there is no runtime: scheduled processes wait here for the model to run them.
    #[cfg(loom)]
    pub(crate) ready: loom::sync::Mutex<std::collections::VecDeque<Runnable<Header>>>,
    pub(crate) registry: Registry,
    pub(crate) steps: u32,
    shut_down: AtomicBool,
    /// Threads blocked in `wait` (completions notify `done` only when some are).
    waiting: AtomicUsize,
    done: Mutex<()>,
    done_cv: Condvar,
    panics: Mutex<Panics>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SystemShared {
    /// Hands a process whose run is owed to the runtime: from a worker, into that worker's
    /// next-task slot. Its runnable comes from whoever owns its scheduling (see
    /// [`process::schedule`]).
    #[inline]
    pub(crate) fn schedule(&self, runnable: Runnable<Header>) {
        #[cfg(not(loom))]
        self.handle.schedule(runnable);
        #[cfg(loom)]
        self.ready.lock().unwrap().push_back(runnable);
    }

    /// Hands a new process to the runtime for its first run: as [`schedule`](SystemShared::schedule),
    /// but from a worker a process displaced from the next-task slot waits on the worker's spawn
    /// stack (newest first) instead of its queue of woken tasks (oldest first). A process that
    /// spawns many (a driver forking workers, a broker starting its clients) has the newest, whose
    /// allocation is still in cache, run first, as the runtime does for actors an actor spawns.
    #[inline]
    pub(crate) fn schedule_new(&self, runnable: Runnable<Header>) {
        #[cfg(not(loom))]
        self.handle.schedule_new(runnable);
        #[cfg(loom)]
        self.ready.lock().unwrap().push_back(runnable);
    }

    #[cfg(not(loom))]
    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }

    pub(crate) fn record_panic(&self, payload: &(dyn std::any::Any + Send)) {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic payload".to_string());
        let mut panics = lock(&self.panics);
        panics.count += 1;
        panics.first.get_or_insert(message);
    }

    /// Counts a process as finished (it left the registry already) and wakes the threads in
    /// `wait` if it was the last one.
    #[inline]
    pub(crate) fn process_finished(&self) {
        self.registry.finished();
        // SeqCst, with the count's increment before it and `wait_until`'s increment of `waiting`
        // before it counts: either this load sees the waiter, or the waiter's count sees this
        // process finished.
        if self.waiting.load(SeqCst) > 0 && self.registry.live() == 0 {
            let _guard = lock(&self.done);
            self.done_cv.notify_all();
        }
    }

    /// Whether [`ProcessSystem::shutdown`] was called.
    #[inline]
    pub(crate) fn is_shut_down(&self) -> bool {
        self.shut_down.load(SeqCst)
    }

    /// Whether the calling thread is one of the runtime's workers.
    #[inline]
    pub(crate) fn on_worker(&self) -> bool {
        #[cfg(not(loom))]
        return self.handle.on_worker();
        #[cfg(loom)]
        false
    }
}

/// Configures a [`ProcessSystem`].
#[derive(Debug)]
pub struct ProcessSystemBuilder {
    #[cfg(not(loom))]
    handle: Handle,
    steps: u32,
}

impl ProcessSystemBuilder {
    /// How many steps (channel operations that complete at once, polls after a wake-up during a poll)
    /// a process may take per scheduling before it goes to the back of its worker's queue. Default
    /// [`DEFAULT_STEPS`]; at least 1. More steps mean fewer trips through the scheduler, fewer mean
    /// finer interleaving (the thesis' granularity trade-off, section 4.5).
    pub fn steps(mut self, steps: u32) -> ProcessSystemBuilder {
        self.steps = steps.max(1);
        self
    }

    /// Builds the system.
    pub fn build(self) -> ProcessSystem {
        ProcessSystem {
            shared: Arc::new(SystemShared {
                #[cfg(not(loom))]
                handle: self.handle,
                #[cfg(loom)]
                ready: loom::sync::Mutex::new(Default::default()),
                registry: Registry::new(),
                steps: self.steps,
                shut_down: AtomicBool::new(false),
                waiting: AtomicUsize::new(0),
                done: Mutex::new(()),
                done_cv: Condvar::new(),
                panics: Mutex::new(Panics::default()),
            }),
        }
    }
}

/// Why [`ProcessSystem::wait`] (or [`ProcessSystem::block_on`]) returned without success.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitError {
    /// On a deterministic runtime, nothing was left to run while processes were still alive: they
    /// are parked for good (a deadlock, or a receive nobody will answer).
    Stuck {
        /// Processes still alive.
        live: usize,
    },
    /// The time given to [`ProcessSystem::wait_timeout`] passed with processes still alive.
    Timeout {
        /// Processes still alive.
        live: usize,
    },
    /// Every process finished, but some panicked (the panic ended that process only).
    Panicked {
        /// How many processes panicked since the system was built.
        count: usize,
        /// The first panic's message.
        first: String,
    },
}

impl fmt::Display for WaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitError::Stuck { live } => {
                write!(f, "{live} processes are parked and nothing is left to run")
            }
            WaitError::Timeout { live } => write!(f, "timed out with {live} processes alive"),
            WaitError::Panicked { count, first } => {
                write!(f, "{count} processes panicked; the first with: {first}")
            }
        }
    }
}

impl std::error::Error for WaitError {}

/// A system of processes on a motet runtime: spawn processes, wait for them, shut them down.
///
/// Cloning is cheap (a reference count); every clone is the same system. A process is an `async`
/// block (a `Future<Output = ()> + Send + 'static`): it runs on the runtime's workers, parks on a
/// channel's wait queue when it receives from an empty channel, and is woken (onto the waker's worker,
/// through its next-task slot) by the send that gives it its value.
///
/// ```
/// use motet_process::{channel, ProcessSystem};
/// use motet_runtime::Runtime;
///
/// let rt = Runtime::builder().workers(2).build().unwrap();
/// let system = ProcessSystem::new(rt.handle());
/// let (tx, rx) = channel::unbounded::<u64>();
/// let (done_tx, done_rx) = channel::unbounded::<u64>();
/// system.spawn(async move {
///     let mut sum = 0;
///     while let Ok(n) = rx.recv().await {
///         sum += n;
///     }
///     done_tx.send(sum).unwrap();
/// });
/// for n in 1..=10 {
///     tx.send(n).unwrap();
/// }
/// drop(tx); // closes the channel: the loop ends
/// assert_eq!(done_rx.recv_blocking(), Ok(55));
/// system.wait().unwrap();
/// ```
#[derive(Clone)]
pub struct ProcessSystem {
    shared: Arc<SystemShared>,
}

impl fmt::Debug for ProcessSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessSystem")
            .field("live", &self.live())
            .field("steps", &self.shared.steps)
            .finish()
    }
}

impl ProcessSystem {
    /// A process system on the runtime behind `handle`, with the default settings.
    #[cfg(not(loom))]
    pub fn new(handle: &Handle) -> ProcessSystem {
        ProcessSystem::builder(handle).build()
    }

    /// A builder for a process system on the runtime behind `handle`.
    #[cfg(not(loom))]
    pub fn builder(handle: &Handle) -> ProcessSystemBuilder {
        ProcessSystemBuilder {
            handle: handle.clone(),
            steps: DEFAULT_STEPS,
        }
    }

    /// A system without a runtime, whose processes the loom models run by hand.
    #[cfg(all(loom, test))]
    pub(crate) fn for_model(steps: u32) -> ProcessSystem {
        ProcessSystemBuilder { steps }.build()
    }

    /// Runs the scheduled processes until none is left (the loom models' worker).
    #[cfg(all(loom, test))]
    pub(crate) fn run_ready(&self) {
        let mut runs = 0;
        loop {
            runs += 1;
            assert!(runs < 1_000, "a process keeps being rescheduled");
            let next = self.shared.ready.lock().unwrap().pop_front();
            let Some(runnable) = next else {
                return;
            };
            if let Some(yielded) = runnable.run_now() {
                self.shared.ready.lock().unwrap().push_back(yielded);
            }
        }
    }

    /// The system of the process being polled on this thread (also inside
    /// [`block_on`](ProcessSystem::block_on)); `None` elsewhere.
    pub fn current() -> Option<ProcessSystem> {
        context::with_system(|s| {
            s.map(|s| {
                // SAFETY: the context's system is alive (see `with_system`) and was created inside an
                // `Arc` by `ProcessSystemBuilder::build`, so taking another reference is sound.
                let shared = unsafe {
                    Arc::increment_strong_count(s as *const SystemShared);
                    Arc::from_raw(s as *const SystemShared)
                };
                ProcessSystem { shared }
            })
        })
    }

    /// The runtime this system runs on.
    #[cfg(not(loom))]
    pub fn handle(&self) -> &Handle {
        &self.shared.handle
    }

    /// Spawns a process: `future` runs on the runtime's workers until it completes. The process and
    /// its future are one allocation. After [`shutdown`](ProcessSystem::shutdown) the future is
    /// dropped unrun instead, as a shut-down runtime drops the tasks scheduled on it.
    ///
    /// A panic in the process ends that process only; [`wait`](ProcessSystem::wait) reports it.
    pub fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        if self.shared.is_shut_down() {
            let _ = catch_unwind(AssertUnwindSafe(|| drop(future)));
            return;
        }
        #[cfg(feature = "tracing")]
        tracing::trace!(target: "motet::process", process = std::any::type_name::<F>(), "spawn");
        // A new process starts `RUNNING`: its runnable is ours to schedule.
        let runnable = ProcessTask::spawn(&self.shared, future);
        // Counted before it can run (and finish): see `Registry::live`. It registers in the
        // registry only if it parks.
        self.shared.registry.spawned();
        self.shared.schedule_new(runnable);
    }

    /// The number of processes alive (spawned and not yet finished).
    pub fn live(&self) -> usize {
        self.shared.registry.live()
    }

    /// Whether [`shutdown`](ProcessSystem::shutdown) was called.
    pub fn is_shut_down(&self) -> bool {
        self.shared.is_shut_down()
    }

    fn panic_report(&self) -> Result<(), WaitError> {
        let panics = lock(&self.shared.panics);
        match &panics.first {
            None => Ok(()),
            Some(first) => Err(WaitError::Panicked {
                count: panics.count,
                first: first.clone(),
            }),
        }
    }

    /// Blocks until every process has finished. On a deterministic runtime, runs the scheduler on
    /// this thread meanwhile.
    ///
    /// # Errors
    /// [`WaitError::Stuck`] on a deterministic runtime whose work ran out while processes were still
    /// parked; [`WaitError::Panicked`] if any process panicked (after all have finished). On a thread
    /// pool, parked processes that nothing will wake keep `wait` blocked, as a thread join would:
    /// use [`wait_timeout`](ProcessSystem::wait_timeout) where that can happen.
    pub fn wait(&self) -> Result<(), WaitError> {
        self.wait_until(None)
    }

    /// As [`wait`](ProcessSystem::wait), giving up after `timeout` with [`WaitError::Timeout`] (on a
    /// deterministic runtime, time is virtual and the limit does not apply).
    pub fn wait_timeout(&self, timeout: Duration) -> Result<(), WaitError> {
        self.wait_until(Some(Instant::now() + timeout))
    }

    fn wait_until(&self, deadline: Option<Instant>) -> Result<(), WaitError> {
        #[cfg(not(loom))]
        if self.shared.handle.seed().is_some() {
            if !self.shared.handle.drive_until(|| self.live() == 0) {
                return Err(WaitError::Stuck { live: self.live() });
            }
            return self.panic_report();
        }
        let shared = &self.shared;
        shared.waiting.fetch_add(1, SeqCst);
        let mut guard = lock(&shared.done);
        let result = loop {
            let live = self.live();
            if live == 0 {
                break Ok(());
            }
            match deadline {
                None => {
                    guard = shared
                        .done_cv
                        .wait(guard)
                        .unwrap_or_else(|e| e.into_inner())
                }
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break Err(WaitError::Timeout { live });
                    }
                    guard = shared
                        .done_cv
                        .wait_timeout(guard, d - now)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|e| e.into_inner().0);
                }
            }
        };
        drop(guard);
        shared.waiting.fetch_sub(1, SeqCst);
        result.and_then(|()| self.panic_report())
    }

    /// Shuts the system down: later spawns are dropped unrun, every live process is cancelled (a
    /// parked one is woken and its future dropped, a running one is dropped when its current step
    /// ends), and this call returns once all are gone. Values a cancelled receive had been handed are
    /// put back into their channels, so nothing is lost while a receiver remains.
    pub fn shutdown(&self) {
        self.cancel_all();
        let _ = self.wait_until(None);
    }

    /// The first half of [`shutdown`](ProcessSystem::shutdown): refuses later spawns and cancels
    /// every live process (scheduling the parked ones), without waiting for them.
    fn cancel_all(&self) {
        self.shared.shut_down.store(true, SeqCst);
        let mut to_schedule = Vec::new();
        self.shared.registry.close_and_for_each(|header| {
            // SAFETY: registered processes are alive while the registry's lock is held.
            match unsafe { header.as_ref() }.cancel() {
                process::Woken::Schedule => to_schedule.push(header),
                // SAFETY: alive, as above; the cancellation saw `PINNED`.
                process::Woken::LookUp => unsafe { process::look_up(header) },
                process::Woken::Nothing => {}
            }
        });
        for header in to_schedule {
            // SAFETY: `cancel` returned true: ours to schedule; its run will cancel it.
            unsafe { process::schedule(header) };
        }
    }

    /// [`shutdown`](ProcessSystem::shutdown) without the wait, for the loom models (whose
    /// processes run on the model's own thread, so a wait there would never end).
    #[cfg(all(loom, test))]
    pub(crate) fn cancel_all_for_model(&self) {
        self.cancel_all();
    }

    /// Runs `future` to completion on the calling thread, which blocks while the future waits. Inside
    /// it, receives with a timeout and [`ProcessSystem::current`] work as in a process. On a
    /// deterministic runtime, runs the scheduler on this thread until the future completes.
    ///
    /// Call it from outside the runtime (a test, `main`): on a worker it would block that worker.
    ///
    /// # Errors
    /// [`WaitError::Stuck`] on a deterministic runtime that ran out of work before the future
    /// completed (it can never complete).
    pub fn block_on<F: Future>(&self, future: F) -> Result<F::Output, WaitError> {
        block_on_notify(future, &*self.shared, |notify| {
            #[cfg(not(loom))]
            if self.shared.handle.seed().is_some() {
                if !self.shared.handle.drive_until(|| notify.take()) {
                    return Err(WaitError::Stuck { live: self.live() });
                }
                return Ok(());
            }
            notify.park();
            Ok(())
        })
    }
}

/// Polls `future` on the calling thread, inside the process context of `system` (null: none),
/// until it completes; between polls, `wait` waits for the future's wake-up on its notifier, or
/// gives up with an error, which is returned (and the future dropped, which cancels it).
#[inline]
pub(crate) fn block_on_notify<F: Future, E>(
    future: F,
    system: *const SystemShared,
    mut wait: impl FnMut(&ThreadNotify) -> Result<(), E>,
) -> Result<F::Output, E> {
    let mut future = pin!(future);
    let notify = Arc::new(ThreadNotify::new());
    let waker = Waker::from(notify.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        let polled = {
            let _enter = context::enter(system, u32::MAX);
            future.as_mut().poll(&mut cx)
        };
        if let Poll::Ready(v) = polled {
            return Ok(v);
        }
        wait(&notify)?;
    }
}

/// A waker that unparks a thread blocked outside the runtime.
pub(crate) struct ThreadNotify {
    woken: AtomicBool,
    thread: Thread,
}

impl ThreadNotify {
    pub(crate) fn new() -> ThreadNotify {
        ThreadNotify {
            woken: AtomicBool::new(false),
            thread: std::thread::current(),
        }
    }

    /// Consumes a wake-up, if one came.
    pub(crate) fn take(&self) -> bool {
        self.woken.swap(false, SeqCst)
    }

    /// Parks the calling thread (the one that made this) until woken.
    pub(crate) fn park(&self) {
        while !self.take() {
            std::thread::park();
        }
    }

    /// Parks until woken or `deadline`; returns whether a wake-up came.
    pub(crate) fn park_until(&self, deadline: Instant) -> bool {
        loop {
            if self.take() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            std::thread::park_timeout(deadline - now);
        }
    }
}

impl Wake for ThreadNotify {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, SeqCst);
        self.thread.unpark();
    }
}
