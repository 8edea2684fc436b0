//! Request/response: [`Addr::ask`](crate::Addr::ask) sends a request carrying a [`Reply`] and returns an
//! [`Ask`] that completes with the answer, a timeout, or an error.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use motet_runtime::{Handle, TimerKey};

use crate::oneshot::{Slot, SlotFuture};

/// Why an ask produced no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskError {
    /// No answer within the timeout.
    Timeout,
    /// The actor had stopped before the request was sent.
    Stopped,
    /// The actor's bounded mailbox (see [`Spawn::bounded`](crate::Spawn::bounded)) was full: the
    /// request was not sent. Ask again once there is room, or send the request with
    /// [`Addr::send_async`](crate::Addr::send_async) or [`Addr::tell_timeout`](crate::Addr::tell_timeout),
    /// which wait for room, around a [`Reply`] of your own.
    Full,
    /// The actor dropped the [`Reply`] without answering (it stopped with the request queued, or
    /// chose not to answer).
    Dropped,
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AskError::Timeout => "the ask timed out",
            AskError::Stopped => "the actor had stopped",
            AskError::Full => "the actor's bounded mailbox was full: the request was not sent",
            AskError::Dropped => "the actor dropped the request without answering",
        })
    }
}

impl std::error::Error for AskError {}

struct Shared<R> {
    slot: Arc<Slot<Result<R, AskError>>>,
    timer: Mutex<Option<TimerKey>>,
    runtime: Handle,
}

impl<R> Shared<R> {
    fn complete(&self, result: Result<R, AskError>) -> Result<(), Result<R, AskError>> {
        self.slot.complete(result)?;
        let key = self.timer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(key) = key {
            self.runtime.cancel_timer(key);
        }
        Ok(())
    }
}

pub(crate) fn pair<R: Send + 'static>(runtime: Handle, timeout: Duration) -> (Reply<R>, Ask<R>) {
    let shared = Arc::new(Shared {
        slot: Slot::new(),
        timer: Mutex::new(None),
        runtime: runtime.clone(),
    });
    let on_timeout = shared.clone();
    let key = runtime.call_after(timeout, move || {
        let _ = on_timeout.slot.complete(Err(AskError::Timeout));
    });
    *shared.timer.lock().unwrap_or_else(|e| e.into_inner()) = Some(key);
    if shared.slot.is_done() {
        runtime.cancel_timer(key);
    }
    (
        Reply {
            shared: Some(shared.clone()),
        },
        Ask { shared },
    )
}

/// The answering side of an ask, carried inside the request message. Answer with [`Reply::send`];
/// dropping it unanswered completes the ask with [`AskError::Dropped`].
pub struct Reply<R> {
    shared: Option<Arc<Shared<R>>>,
}

impl<R> Reply<R> {
    /// Answers the request. If the asker already gave up (timeout), the value is handed back and
    /// nothing else happens.
    pub fn send(mut self, value: R) -> Result<(), R> {
        let shared = self.shared.take().expect("a reply is sent once");
        match shared.complete(Ok(value)) {
            Ok(()) => Ok(()),
            Err(Ok(value)) => Err(value),
            Err(Err(_)) => unreachable!("completed with the value just given"),
        }
    }
}

impl<R> Drop for Reply<R> {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let _ = shared.complete(Err(AskError::Dropped));
        }
    }
}

impl<R> fmt::Debug for Reply<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reply(..)")
    }
}

/// The asking side: a future, a blocking [`wait`](Ask::wait), or a callback ([`then`](Ask::then)).
pub struct Ask<R> {
    shared: Arc<Shared<R>>,
}

impl<R: Send + 'static> Ask<R> {
    pub(crate) fn fail_stopped(&self) {
        self.fail(AskError::Stopped);
    }

    /// Completes the ask with `error` (the request was not sent).
    pub(crate) fn fail(&self, error: AskError) {
        let _ = self.shared.complete(Err(error));
    }

    /// Blocks the calling thread until the answer (or an error). Do not call it from inside an actor:
    /// it would block a worker; use [`Context::ask`](crate::Context::ask) there. On a deterministic
    /// runtime, runs the runtime on the calling thread until the answer arrives.
    pub fn wait(self) -> Result<R, AskError> {
        self.shared
            .slot
            .wait(&self.shared.runtime, None)
            .unwrap_or(Err(AskError::Timeout))
    }

    /// Routes the outcome to `f`, called on whichever thread completes the ask.
    pub fn then(self, f: impl FnOnce(Result<R, AskError>) + Send + 'static) {
        self.shared.slot.on_complete(f);
    }
}

impl<R> Future for Ask<R> {
    type Output = Result<R, AskError>;

    /// # Cancel safety
    /// Dropping the future abandons the answer; the actor's reply is then dropped harmlessly.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut SlotFuture(self.shared.slot.clone())).poll(cx)
    }
}
