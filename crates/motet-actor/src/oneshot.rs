//! A one-shot slot completed once by one side and awaited by the other: by blocking, as a future, or
//! through a callback. Used for ask replies and exit watches.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use motet_runtime::Handle;

type Callback<T> = Box<dyn FnOnce(T) + Send>;

struct State<T> {
    value: Option<T>,
    done: bool,
    waker: Option<Waker>,
    callback: Option<Callback<T>>,
}

/// The shared slot.
pub(crate) struct Slot<T> {
    state: Mutex<State<T>>,
    cv: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T> Slot<T> {
    pub(crate) fn new() -> Arc<Slot<T>> {
        Arc::new(Slot {
            state: Mutex::new(State {
                value: None,
                done: false,
                waker: None,
                callback: None,
            }),
            cv: Condvar::new(),
        })
    }

    /// Completes the slot with `value`; if it was already complete, hands `value` back.
    pub(crate) fn complete(&self, value: T) -> Result<(), T> {
        let mut st = lock(&self.state);
        if st.done {
            return Err(value);
        }
        st.done = true;
        if let Some(cb) = st.callback.take() {
            drop(st);
            cb(value);
            return Ok(());
        }
        st.value = Some(value);
        let waker = st.waker.take();
        drop(st);
        self.cv.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    /// Whether the slot was completed.
    pub(crate) fn is_done(&self) -> bool {
        lock(&self.state).done
    }

    /// Routes the value to `cb` (at once if it is already there).
    pub(crate) fn on_complete(&self, cb: impl FnOnce(T) + Send + 'static) {
        let mut st = lock(&self.state);
        if let Some(v) = st.value.take() {
            drop(st);
            cb(v);
        } else {
            st.callback = Some(Box::new(cb));
        }
    }

    /// Blocks until complete, or until `timeout` passes (then `None`). On a deterministic runtime,
    /// drives it first.
    pub(crate) fn wait(&self, handle: &Handle, timeout: Option<Duration>) -> Option<T> {
        handle.drive_until(|| self.is_done());
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = lock(&self.state);
        loop {
            if let Some(v) = st.value.take() {
                return Some(v);
            }
            match deadline {
                None => st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d || handle.seed().is_some() {
                        return None;
                    }
                    st = self
                        .cv
                        .wait_timeout(st, d - now)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|e| e.into_inner().0);
                }
            }
        }
    }

    fn poll(&self, cx: &mut Context<'_>) -> Poll<T> {
        let mut st = lock(&self.state);
        match st.value.take() {
            Some(v) => Poll::Ready(v),
            None => {
                st.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A future over a slot.
pub(crate) struct SlotFuture<T>(pub(crate) Arc<Slot<T>>);

impl<T> Future for SlotFuture<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.0.poll(cx)
    }
}
