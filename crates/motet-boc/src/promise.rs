//! The promise a `when` returns: its behaviour's result, as a future or by blocking.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::behaviour::{free_core, Core, Head};
use crate::completion::Completion;
use crate::error::WhenError;
use motet_runtime::Handle;

/// The result of a behaviour spawned by [`when`](crate::when): `.await` it, or block on it with
/// [`wait`](Promise::wait) from outside the runtime.
///
/// It holds no allocation of its own: the result is kept in the behaviour's block until the
/// promise takes it. Dropping the promise detaches the behaviour, which then drops its result.
///
/// ```
/// use motet_boc::{when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let c = Cown::new(rt.handle(), 20);
/// let p = when(&c, |v| {
///     *v += 1;
///     *v * 2
/// });
/// assert_eq!(p.wait(), Ok(42));
/// ```
pub struct Promise<R> {
    state: State<R>,
}

enum State<R> {
    /// The behaviour's block, whose completion has its HANDLE bit set for us, and its runtime's
    /// handle if that is deterministic.
    Pending(NonNull<Core>, Option<Handle>, std::marker::PhantomData<R>),
    /// Rejected at spawn.
    Failed(WhenError),
    /// The result was taken.
    Taken,
}

// SAFETY: the promise only moves an `R: Send` out of the block, through the completion protocol.
unsafe impl<R: Send> Send for Promise<R> {}
// SAFETY: `&Promise` only reads the completion's atomic state.
unsafe impl<R: Send> Sync for Promise<R> {}

impl<R> Unpin for Promise<R> {}

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

impl<R> Promise<R> {
    /// A promise of the behaviour `core`.
    ///
    /// # Safety
    /// `core` is a behaviour block of result type `R` whose completion's HANDLE bit belongs to
    /// the new promise.
    pub(crate) unsafe fn pending(core: NonNull<Core>, deterministic: Option<Handle>) -> Promise<R> {
        Promise {
            state: State::Pending(core, deterministic, std::marker::PhantomData),
        }
    }

    /// A promise already failed with `error`.
    pub(crate) fn failed(error: WhenError) -> Promise<R> {
        Promise {
            state: State::Failed(error),
        }
    }

    fn completion(&self) -> Option<&Completion> {
        match &self.state {
            State::Pending(core, _, _) => {
                // SAFETY: the HANDLE bit keeps the block, which has a `Head<R>`, alive while the
                // promise is pending.
                Some(&unsafe { core.cast::<Head<R>>().as_ref() }.completion)
            }
            _ => None,
        }
    }

    /// Whether the result is there (or the promise failed): [`wait`](Promise::wait) would not
    /// block.
    pub fn is_done(&self) -> bool {
        self.completion().is_none_or(|c| c.is_done())
    }

    /// Takes the result; the behaviour is done.
    fn take(&mut self) -> Result<R, WhenError> {
        match std::mem::replace(&mut self.state, State::Taken) {
            State::Pending(core, _, _) => {
                // SAFETY: DONE was observed: the result cell is ours to take, and the block is
                // alive until we give up the HANDLE bit below.
                let result = unsafe { (*core.cast::<Head<R>>().as_ref().result.get()).take() };
                // SAFETY: the block is alive (HANDLE).
                if unsafe { core.cast::<Head<R>>().as_ref() }
                    .completion
                    .drop_handle()
                {
                    // SAFETY: the behaviour is done and we were its last user.
                    unsafe { free_core(core) };
                }
                result
                    .expect("a completed behaviour holds its result")
                    .map_err(|e| *e)
            }
            State::Failed(e) => Err(e),
            State::Taken => panic!("a promise's result was taken twice"),
        }
    }

    /// Registers `waker` and returns whether the result is there.
    fn poll_done(&self, waker: &Waker) -> bool {
        self.completion().is_none_or(|c| c.register(waker))
    }

    /// On a deterministic runtime, runs it on this thread until the behaviour is done or nothing is
    /// left to run.
    fn drive(&self) {
        if let State::Pending(core, Some(runtime), _) = &self.state {
            // SAFETY: the HANDLE bit keeps the block alive while the promise is pending.
            let c = unsafe { core.cast::<Head<R>>().as_ref() };
            runtime.drive_until(|| c.completion.is_done());
        }
    }

    /// Blocks the calling thread until the behaviour has run, and returns its result. On a
    /// deterministic runtime, runs the runtime on this thread meanwhile.
    ///
    /// Call it from outside the runtime: from a behaviour or an actor it would block a worker
    /// (spawn a behaviour over the result's cowns, or `.await` in an async task, instead).
    pub fn wait(mut self) -> Result<R, WhenError> {
        crate::behaviour::flush_handoff();
        self.drive();
        let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
        while !self.poll_done(&waker) {
            std::thread::park();
        }
        self.take()
    }

    /// As [`wait`](Promise::wait), for at most `timeout`; gives the promise back if the behaviour
    /// has not run by then. On a deterministic runtime, returns at once once nothing is left to
    /// run.
    pub fn wait_timeout(mut self, timeout: Duration) -> Result<Result<R, WhenError>, Promise<R>> {
        crate::behaviour::flush_handoff();
        self.drive();
        let deterministic = matches!(self.state, State::Pending(_, Some(_), _));
        let deadline = Instant::now() + timeout;
        let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
        while !self.poll_done(&waker) {
            let now = Instant::now();
            if deterministic || now >= deadline {
                return Err(self);
            }
            std::thread::park_timeout(deadline - now);
        }
        Ok(self.take())
    }
}

impl<R> Future for Promise<R> {
    type Output = Result<R, WhenError>;

    /// # Cancel safety
    /// Dropping the future detaches the behaviour: it still runs, and its result is dropped.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.poll_done(cx.waker()) {
            Poll::Ready(self.take())
        } else {
            Poll::Pending
        }
    }
}

impl<R> Drop for Promise<R> {
    fn drop(&mut self) {
        if let State::Pending(core, _, _) = &self.state {
            let core = *core;
            // SAFETY: the block is alive (HANDLE) until we give the bit up here.
            if unsafe { core.cast::<Head<R>>().as_ref() }
                .completion
                .drop_handle()
            {
                // SAFETY: the behaviour is done and we were its last user.
                unsafe { free_core(core) };
            }
        }
    }
}

impl<R> fmt::Debug for Promise<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Promise")
            .field("done", &self.is_done())
            .finish_non_exhaustive()
    }
}
