//! The home thread of a detached or scoped actor: where its runnable goes when a message wakes it,
//! instead of the runtime's queues.
//!
//! A push that finds an actor idle schedules it on the runtime, whatever the actor, so that a
//! pooled actor's wake tests nothing. A detached or scoped actor is of a task kind whose turn on a
//! worker only hands the runnable on ([`send_home`](crate::cell::send_home)): a detached actor's to
//! the OS thread that runs only that actor ([`run_detached`]), a scoped actor's to the thread that
//! owns the [`ScopedActor`](crate::ScopedActor), blocked in a receive. Either way the hand-over is
//! a mutex-protected slot and a condition variable: these actors block by design, so the wake is a
//! thread wake-up (after a hop through a worker), not a queue push.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use motet_runtime::Runnable;

use crate::cell::Header;

/// What [`Home::take`] got.
pub(crate) enum Taken<M> {
    Runnable(Runnable<Header<M>>),
    /// The actor has stopped: its thread can end.
    Done,
    TimedOut,
}

struct State<M> {
    runnable: Option<Runnable<Header<M>>>,
    done: bool,
}

/// The slot a detached or scoped actor's runnable is handed over in.
pub(crate) struct Home<M> {
    state: Mutex<State<M>>,
    wake: Condvar,
}

impl<M: Send + 'static> Home<M> {
    pub(crate) fn new() -> Arc<Home<M>> {
        Arc::new(Home {
            state: Mutex::new(State {
                runnable: None,
                done: false,
            }),
            wake: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State<M>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands the actor's runnable (taken out of its slot by a waking push) to its thread.
    #[cold]
    pub(crate) fn give(&self, runnable: Runnable<Header<M>>) {
        self.lock().runnable = Some(runnable);
        self.wake.notify_one();
    }

    /// Waits for the runnable until `deadline` (forever with `None`).
    pub(crate) fn take(&self, deadline: Option<Instant>) -> Taken<M> {
        let mut state = self.lock();
        loop {
            if let Some(runnable) = state.runnable.take() {
                return Taken::Runnable(runnable);
            }
            if state.done {
                return Taken::Done;
            }
            state = match deadline {
                None => self.wake.wait(state).unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Taken::TimedOut;
                    }
                    self.wake
                        .wait_timeout(state, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }

    /// The actor stopped: its thread ends once it has its turn back.
    pub(crate) fn finish(&self) {
        self.lock().done = true;
        self.wake.notify_all();
    }
}

/// One turn of a detached actor on its own thread: the runnable back if the turn yielded.
pub(crate) type HomeTurn<M> = fn(Runnable<Header<M>>) -> Option<Runnable<Header<M>>>;

/// The body of a detached actor's thread: runs the actor's turns (`turn`, which gives the runnable
/// back if the turn yielded) as they come, until it stops.
pub(crate) fn run_detached<M: Send + 'static>(
    home: Arc<Home<M>>,
    first: Runnable<Header<M>>,
    turn: HomeTurn<M>,
) {
    let mut next = Some(first);
    loop {
        let runnable = match next.take() {
            Some(runnable) => runnable,
            None => match home.take(None) {
                Taken::Runnable(runnable) => runnable,
                Taken::Done | Taken::TimedOut => return,
            },
        };
        // A turn catches its handler's panics; a stopped actor's turn returns `None` after
        // `Home::finish`, so the next `take` ends the thread.
        next = turn(runnable);
    }
}
