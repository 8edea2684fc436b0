//! One-shot timers: run a callback at a deadline, cancellable.
//!
//! On a thread pool, a single `motet-timer` thread (started on first use) sleeps until the earliest
//! deadline and runs the due callbacks there; a callback typically schedules a task (an ask's
//! timeout message, a reactor's timer event). On a deterministic runtime there is no thread: when no
//! task is runnable, the scheduler moves the virtual clock to the earliest deadline and runs that
//! callback itself. A pending timer counts as outstanding work for quiescence, until it fires or is
//! cancelled.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Instant;

use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::{lock, Condvar, Mutex};

/// A timer callback.
pub(crate) type Callback = Box<dyn FnOnce() + Send>;

/// Identifies a registered timer, to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey(u64);

#[derive(Default)]
struct TimerState {
    /// Deadlines; an entry whose key is no longer in `callbacks` was cancelled and is skipped.
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    callbacks: HashMap<u64, Callback>,
    next_key: u64,
    shutdown: bool,
    thread_started: bool,
}

/// The timer table of one runtime.
pub(crate) struct Timers {
    state: Mutex<TimerState>,
    cv: Condvar,
    /// Registered and neither fired nor cancelled (a firing timer counts until its callback returned).
    pending: AtomicUsize,
}

impl Timers {
    pub(crate) fn new() -> Timers {
        Timers {
            state: Mutex::new(TimerState::default()),
            cv: Condvar::new(),
            pending: AtomicUsize::new(0),
        }
    }

    /// Registers `f` to run at `deadline`. Returns the key and whether the caller must start the
    /// timer thread (pool mode, first registration).
    pub(crate) fn insert(&self, deadline: Instant, f: Callback) -> (TimerKey, bool) {
        let mut st = lock(&self.state);
        let key = st.next_key;
        st.next_key += 1;
        if st.shutdown {
            // The runtime is gone: the callback is dropped unrun (its captures are released).
            return (TimerKey(key), false);
        }
        // The timer thread sleeps until a deadline no later than the heap's top (it took the
        // earliest live one, and entries leave the heap only through it or a bulk drop of
        // cancelled ones, which cannot make the top earlier), and re-reads the heap when it wakes:
        // only a deadline before the top, or a first one, needs to wake it. (An ask registers its timeout here:
        // waking the thread for each would cost every ask a futex wake and a context switch.)
        let wake = st
            .heap
            .peek()
            .is_none_or(|Reverse((top, _))| deadline < *top);
        st.heap.push(Reverse((deadline, key)));
        st.callbacks.insert(key, f);
        self.pending.fetch_add(1, Ordering::SeqCst);
        let start = !st.thread_started;
        st.thread_started = true;
        drop(st);
        if wake {
            self.cv.notify_one();
        }
        (TimerKey(key), start)
    }

    /// Cancels a timer; returns whether it was still pending.
    pub(crate) fn cancel(&self, key: TimerKey) -> bool {
        let mut st = lock(&self.state);
        let removed = st.callbacks.remove(&key.0);
        // Cancelled entries stay in the heap until they reach its top; drop them in bulk when they
        // outnumber the live ones, so that many answered asks behind a long timer cannot pile up.
        if st.heap.len() > 64 && st.heap.len() > 2 * st.callbacks.len() {
            let TimerState {
                heap, callbacks, ..
            } = &mut *st;
            heap.retain(|Reverse((_, k))| callbacks.contains_key(k));
        }
        drop(st);
        match removed {
            Some(f) => {
                self.pending.fetch_sub(1, Ordering::SeqCst);
                drop(f);
                true
            }
            None => false,
        }
    }

    /// Timers registered and not yet fired or cancelled.
    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    /// The earliest live deadline, dropping cancelled heap entries on the way.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        let mut st = lock(&self.state);
        Self::peek_live(&mut st)
    }

    fn peek_live(st: &mut TimerState) -> Option<Instant> {
        while let Some(Reverse((t, key))) = st.heap.peek().copied() {
            if st.callbacks.contains_key(&key) {
                return Some(t);
            }
            st.heap.pop();
        }
        None
    }

    /// Removes and returns the callbacks due at `now`, in deadline order.
    pub(crate) fn take_due(&self, now: Instant) -> Vec<Callback> {
        let mut st = lock(&self.state);
        let mut due = Vec::new();
        while let Some(t) = Self::peek_live(&mut st) {
            if t > now {
                break;
            }
            let Reverse((_, key)) = st.heap.pop().expect("peeked");
            if let Some(f) = st.callbacks.remove(&key) {
                due.push(f);
            }
        }
        due
    }

    /// Runs due callbacks (catching panics); returns how many ran. Each one stops counting as pending
    /// only after it returned, so the work it scheduled is visible before quiescence can be seen.
    pub(crate) fn fire(&self, due: Vec<Callback>) -> usize {
        let n = due.len();
        for f in due {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
                eprintln!("motet-runtime: a timer callback panicked");
            }
            self.pending.fetch_sub(1, Ordering::SeqCst);
        }
        n
    }

    /// The timer thread's loop: sleep until the earliest deadline (or a new registration), fire, and
    /// call `after_fire` (the quiescence check). Returns at shutdown.
    pub(crate) fn run_thread(&self, after_fire: impl Fn()) {
        let mut st = lock(&self.state);
        loop {
            if st.shutdown {
                return;
            }
            let now = Instant::now();
            match Self::peek_live(&mut st) {
                Some(t) if t <= now => {
                    drop(st);
                    let due = self.take_due(now);
                    self.fire(due);
                    after_fire();
                    st = lock(&self.state);
                }
                Some(t) => {
                    st = self
                        .cv
                        .wait_timeout(st, t - now)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|e| e.into_inner().0);
                }
                None => {
                    st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }

    /// Stops the timer thread and drops every pending callback unrun.
    pub(crate) fn shutdown(&self) {
        let mut st = lock(&self.state);
        st.shutdown = true;
        let callbacks: Vec<Callback> = st.callbacks.drain().map(|(_, f)| f).collect();
        st.heap.clear();
        self.pending.fetch_sub(callbacks.len(), Ordering::SeqCst);
        drop(st);
        self.cv.notify_all();
        // Dropped outside the lock: a callback's captures may register or cancel timers when dropped.
        drop(callbacks);
    }
}
