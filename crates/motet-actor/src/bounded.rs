//! Bounded mailboxes (Akka's `BoundedMailbox`), opt-in per actor with
//! [`Spawn::bounded`](crate::Spawn::bounded).
//!
//! A bounded actor's mailbox is *gated* (see [`crate::mailbox`]): the fast path of a push, which
//! tests only the gate bit, refers every push to the owner, which counts it here first. A user
//! message is refused while `capacity` messages are queued; a system signal (link, monitor, exit,
//! kill, watch) is never refused, and counts. The actor's turns (a separate, bounded kind of turn,
//! so plain actors' turns do not count) take one off the count per message taken, and wake the
//! senders waiting for room. Plain actors' mailboxes are not gated: their pushes pay nothing.

use std::fmt;
use std::sync::Arc;
use std::task::{Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::addr::{Addr, SendError};
use crate::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::sync::Mutex;

/// Why [`Addr::try_tell`] (or [`Addr::tell_timeout`]) did not deliver; holds the message.
#[derive(PartialEq, Eq)]
pub enum TrySendError<M> {
    /// The actor's bounded mailbox is full.
    Full(M),
    /// The actor has stopped.
    Stopped(M),
}

impl<M> TrySendError<M> {
    /// The message that was not delivered.
    pub fn into_inner(self) -> M {
        match self {
            TrySendError::Full(m) | TrySendError::Stopped(m) => m,
        }
    }
}

impl<M> fmt::Debug for TrySendError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(_) => "Full(..)",
            TrySendError::Stopped(_) => "Stopped(..)",
        })
    }
}

impl<M> fmt::Display for TrySendError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(_) => "the actor's mailbox is full",
            TrySendError::Stopped(_) => "the actor has stopped",
        })
    }
}

impl<M> std::error::Error for TrySendError<M> {}

/// The count and the waiting senders of a bounded mailbox.
pub(crate) struct Bound {
    capacity: usize,
    /// Messages and signals pushed and not yet taken by a turn.
    queued: AtomicUsize,
    /// How many wakers `waiters` holds (read without the lock on every take).
    waiting: AtomicUsize,
    waiters: Mutex<Vec<Waker>>,
}

impl Bound {
    pub(crate) fn new(capacity: usize) -> Bound {
        Bound {
            capacity: capacity.max(1),
            queued: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            waiters: Mutex::new(Vec::new()),
        }
    }

    /// Reserves room for a user message; false if the mailbox is full.
    ///
    /// Reads with a read-modify-write, not a load: a sender's retry after [`Bound::register`]
    /// and a turn's [`Bound::took`] each modify one word and then read-modify the other, so that
    /// one of them sees the other (see the loom model below) without relying on sequential
    /// consistency of plain loads. The count never exceeds the capacity for user messages.
    pub(crate) fn reserve(&self) -> bool {
        let mut queued = self.queued.fetch_add(0, SeqCst);
        loop {
            if queued >= self.capacity {
                return false;
            }
            match self
                .queued
                .compare_exchange_weak(queued, queued + 1, SeqCst, SeqCst)
            {
                Ok(_) => return true,
                Err(actual) => queued = actual,
            }
        }
    }

    /// Counts a signal, which is never refused.
    pub(crate) fn count_signal(&self) {
        self.queued.fetch_add(1, SeqCst);
    }

    /// Gives back a reservation whose push failed (the actor stopped).
    pub(crate) fn unreserve(&self) {
        self.took();
    }

    /// A turn took one message or signal: room for one more, so the waiting senders are woken.
    #[inline]
    pub(crate) fn took(&self) {
        self.queued.fetch_sub(1, SeqCst);
        // A read-modify-write that changes nothing: it reads the latest registration.
        if self.waiting.fetch_add(0, SeqCst) != 0 {
            self.wake_all();
        }
    }

    /// Wakes every waiting sender (they race for the room; the losers wait again).
    #[cold]
    pub(crate) fn wake_all(&self) {
        let waiters = {
            let mut waiters = crate::sync::lock(&self.waiters);
            self.waiting.store(0, SeqCst);
            std::mem::take(&mut *waiters)
        };
        for waker in waiters {
            waker.wake();
        }
    }

    /// Registers a sender to wake at the next take; the sender then tries again before it waits.
    pub(crate) fn register(&self, waker: &Waker) {
        let mut waiters = crate::sync::lock(&self.waiters);
        if !waiters.iter().any(|w| w.will_wake(waker)) {
            waiters.push(waker.clone());
        }
        self.waiting.store(waiters.len(), SeqCst);
    }

    pub(crate) fn len(&self) -> usize {
        self.queued.load(SeqCst)
    }
}

/// Wakes a thread blocked in [`Addr::tell_timeout`].
struct ThreadWake(Thread);

impl Wake for ThreadWake {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

impl<M: Send + 'static> Addr<M> {
    /// Sends `msg` unless the actor's bounded mailbox is full or the actor has stopped, and says
    /// which. For an unbounded actor this is [`Addr::tell`] (it is never full).
    pub fn try_tell(&self, msg: M) -> Result<(), TrySendError<M>> {
        self.header().try_push_user(msg)
    }

    /// Sends `msg`, waiting (without blocking a thread) while the actor's bounded mailbox is full.
    /// Fails only if the actor has stopped. For an unbounded actor it completes at once.
    ///
    /// # Cancel safety
    /// Dropping the future before it completes drops the message unsent.
    pub async fn send_async(&self, msg: M) -> Result<(), SendError<M>> {
        let mut msg = Some(msg);
        std::future::poll_fn(|cx| {
            let m = msg.take().expect("polled after completion");
            let m = match self.try_tell(m) {
                Ok(()) => return Poll::Ready(Ok(())),
                Err(TrySendError::Stopped(m)) => return Poll::Ready(Err(SendError(m))),
                Err(TrySendError::Full(m)) => m,
            };
            if let Some(bound) = self.header().bound() {
                bound.register(cx.waker());
            }
            // Room may have been made before the registration: try once more.
            match self.try_tell(m) {
                Ok(()) => Poll::Ready(Ok(())),
                Err(TrySendError::Stopped(m)) => Poll::Ready(Err(SendError(m))),
                Err(TrySendError::Full(m)) => {
                    msg = Some(m);
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// Sends `msg`, blocking the calling thread at most `timeout` while the actor's bounded mailbox
    /// is full; then fails with [`TrySendError::Full`]. For plain threads (not inside an actor,
    /// whose worker it would block, and not on a deterministic runtime, which would not run).
    pub fn tell_timeout(&self, msg: M, timeout: Duration) -> Result<(), TrySendError<M>> {
        let deadline = Instant::now() + timeout;
        let waker = Waker::from(Arc::new(ThreadWake(std::thread::current())));
        let mut msg = msg;
        loop {
            msg = match self.try_tell(msg) {
                Err(TrySendError::Full(m)) => m,
                done => return done,
            };
            if let Some(bound) = self.header().bound() {
                bound.register(&waker);
            }
            msg = match self.try_tell(msg) {
                Err(TrySendError::Full(m)) => m,
                done => return done,
            };
            let now = Instant::now();
            if now >= deadline {
                return Err(TrySendError::Full(msg));
            }
            std::thread::park_timeout(deadline - now);
        }
    }

    /// How many messages (and signals) a bounded actor's mailbox holds, counting those its
    /// current turn has taken but not finished; `None` for an unbounded actor.
    pub fn queued_len(&self) -> Option<usize> {
        self.header().bound().map(Bound::len)
    }
}

/// Loom model of the handshake between a sender that finds the mailbox full and the turn that makes
/// room: `RUSTFLAGS="--cfg loom" cargo test -p motet-actor --lib --release loom`.
#[cfg(all(test, loom))]
mod loom_models {
    use super::Bound;
    use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use loom::sync::Arc;
    use std::task::{Wake, Waker};

    struct Flag(AtomicBool);
    impl Wake for Flag {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.store(true, SeqCst);
        }
    }

    /// A full mailbox of one; a sender registers and tries again while the turn takes the queued
    /// message: either the retry gets the room or the sender is woken (never neither, which
    /// would leave it waiting with room free).
    #[test]
    fn loom_a_waiting_sender_is_never_forgotten() {
        loom::model(|| {
            let bound = Arc::new(Bound::new(1));
            assert!(bound.reserve());
            let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
            let waker = Waker::from(flag.clone());
            let sender = {
                let bound = bound.clone();
                loom::thread::spawn(move || {
                    if bound.reserve() {
                        return true;
                    }
                    bound.register(&waker);
                    bound.reserve()
                })
            };
            bound.took();
            let got_room = sender.join().unwrap();
            assert!(got_room || flag.0.load(SeqCst), "the sender was forgotten");
        });
    }
}
