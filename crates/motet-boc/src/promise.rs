//! The promise a `when` returns: its behaviour's result, as a future or by blocking.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::behaviour::block::{promised_of, unpark, Promised};
use crate::error::WhenError;
use crate::protocol::Slot;
use motet_runtime::Handle;

/// The result of a behaviour spawned by [`when`](crate::when): `.await` it, or block on it with
/// [`wait`](Promise::wait) from outside the runtime.
///
/// It holds no allocation of its own: the result is kept in the behaviour's block until the
/// promise takes it. Dropping the promise detaches the behaviour, which then drops its result;
/// since a promise dropped by mistake loses a result (or an error) silently, the type is
/// `#[must_use]`: drop one on purpose with `drop(when(..))`, or spawn with
/// [`when_detached`](crate::when_detached), which makes no promise at all.
/// The block stays alive while the promise is pending: the promise's bit in the behaviour's
/// completion state keeps the behaviour from ending its task, and once the behaviour is done the
/// promise, if it is the last, takes the behaviour's runnable out of the block and drops it.
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
#[must_use = "dropping a promise detaches its behaviour (which still runs): spawn with \
              `when_detached` if the result is not wanted, or drop the promise with `drop(..)`"]
pub struct Promise<R> {
    state: State<R>,
}

enum State<R> {
    /// The behaviour (its first request, through which its `Promised<R>` is reached), whose
    /// completion has its HANDLE bit set for us, and its runtime's handle if that is
    /// deterministic.
    Pending(NonNull<Slot>, Option<Handle>, std::marker::PhantomData<R>),
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
    /// A promise of the behaviour whose first request is `first`.
    ///
    /// # Safety
    /// `first` is the first request of a behaviour whose shared part is a `Promised<R>`, reached
    /// through a pointer to the whole shared part, and whose completion's HANDLE bit belongs to the
    /// new promise.
    pub(crate) unsafe fn pending(
        first: NonNull<Slot>,
        deterministic: Option<Handle>,
    ) -> Promise<R> {
        Promise {
            state: State::Pending(first, deterministic, std::marker::PhantomData),
        }
    }

    /// A promise already failed with `error`.
    pub(crate) fn failed(error: WhenError) -> Promise<R> {
        Promise {
            state: State::Failed(error),
        }
    }

    /// The behaviour's shared part, while the promise is pending.
    fn promised(&self) -> Option<&Promised<R>> {
        match &self.state {
            State::Pending(first, _, _) => {
                // SAFETY: the HANDLE bit keeps the block, which has a `Promised<R>`, alive while
                // the promise is pending.
                Some(unsafe { promised_of::<R>(*first).as_ref() })
            }
            _ => None,
        }
    }

    /// The error the `when` was rejected with at spawn (a cown named twice with write access, an
    /// empty dynamic set), if it was: nothing was spawned. Known at once, without waiting;
    /// [`try_when`](crate::try_when) gives it as a `Result` instead.
    pub fn rejected(&self) -> Option<&WhenError> {
        match &self.state {
            State::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the result is there (or the promise failed): [`wait`](Promise::wait) would not
    /// block.
    pub fn is_done(&self) -> bool {
        self.promised().is_none_or(|p| p.completion.is_done())
    }

    /// Takes the result; the behaviour is done.
    fn take(&mut self) -> Result<R, WhenError> {
        match std::mem::replace(&mut self.state, State::Taken) {
            State::Pending(first, _, _) => {
                // SAFETY: the block is alive until we give up the HANDLE bit below.
                let promised = unsafe { promised_of::<R>(first).as_ref() };
                // SAFETY: DONE was observed: the result cell is ours to take.
                let result = unsafe { (*promised.result.get()).take() };
                if promised.completion.drop_handle() {
                    // SAFETY: the behaviour is done and parked its runnable before it completed,
                    // and we were its last user: the park is ours.
                    drop(unsafe { unpark(first) });
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
        self.promised()
            .is_none_or(|p| p.completion.register(&p.waker, waker))
    }

    /// On a deterministic runtime, runs it on this thread until the behaviour is done or nothing is
    /// left to run.
    fn drive(&self) {
        if let (State::Pending(_, Some(runtime), _), Some(p)) = (&self.state, self.promised()) {
            runtime.drive_until(|| p.completion.is_done());
        }
    }

    /// Blocks the calling thread until the behaviour has run, and returns its result. On a
    /// deterministic runtime, runs the runtime on this thread meanwhile.
    ///
    /// Call it from outside the runtime: from a behaviour or an actor it would block a worker
    /// (spawn a behaviour over the result's cowns, or `.await` in an async task, instead).
    pub fn wait(mut self) -> Result<R, WhenError> {
        crate::behaviour::flush_handoff();
        let _stall = crate::behaviour::stall();
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
        let _stall = crate::behaviour::stall();
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
        if let State::Pending(first, _, _) = &self.state {
            let first = *first;
            // SAFETY: the block is alive (HANDLE) until we give the bit up here.
            if unsafe { promised_of::<R>(first).as_ref() }
                .completion
                .drop_handle()
            {
                // SAFETY: the behaviour is done and parked its runnable before it completed, and
                // we were its last user: the park is ours.
                drop(unsafe { unpark(first) });
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
