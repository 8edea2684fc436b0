//! Delayed and periodic sends (CAF's `delayed_send`, Akka's timers), on the runtime's timer table.
//!
//! A [`Timers`] value belongs to one target actor. [`Timers::send_after`] sends one message after a
//! delay, [`Timers::send_every`] one per period until cancelled. Each timer is one entry in the
//! runtime's timer table ([`Handle::call_after`](motet_runtime::Handle::call_after)), the facility
//! ask timeouts use: no thread per timer.
//!
//! # Lifetime
//!
//! - Timers hold a [`WeakAddr`] of their target, never an [`Addr`]: a timer does not keep its
//!   target reachable, so an actor with a periodic timer still stops as
//!   [`ExitReason::Unreachable`](crate::ExitReason::Unreachable) once no address to it is left.
//! - When the target stops, for any reason, its exit hook cancels every timer of the `Timers` value.
//! - Dropping the `Timers` value cancels its timers. An actor that keeps its `Timers` in its state
//!   (Akka's pattern) therefore has its timers cancelled when it stops and when a supervisor
//!   restarts it (the old state is dropped).
//! - [`Timers::cancel`] cancels one timer by the [`TimerId`] it was started with.
//!
//! A pending timer keeps the runtime from being quiescent, as any runtime timer does.
//!
//! ```
//! use std::time::Duration;
//! use motet_actor::{spawn, Actor, Context, Timers};
//!
//! struct Ticker { timers: Option<Timers<Tick>>, ticks: u32 }
//! struct Tick;
//!
//! impl Actor for Ticker {
//!     type Msg = Tick;
//!     fn started(&mut self, ctx: &mut Context<'_, Self>) {
//!         let timers = Timers::new(&ctx.myself());
//!         timers.send_every(Duration::from_millis(1), || Tick);
//!         self.timers = Some(timers);
//!     }
//!     fn handle(&mut self, ctx: &mut Context<'_, Self>, _: Tick) {
//!         self.ticks += 1;
//!         if self.ticks == 3 {
//!             ctx.stop(); // dropping the state cancels the periodic timer
//!         }
//!     }
//! }
//!
//! let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
//! let ticker = spawn(rt.handle(), Ticker { timers: None, ticks: 0 });
//! assert!(ticker.watch().wait().is_normal());
//! rt.wait_quiescent(); // no timer is left pending
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use motet_runtime::{Handle, TimerKey};

use crate::addr::Addr;
use crate::weak::WeakAddr;

/// Identifies a timer of a [`Timers`] value, to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(u64);

type Make<M> = Box<dyn FnMut() -> M + Send>;

/// One live timer: the runtime key of its next firing and what it sends.
struct Entry<M> {
    key: Option<TimerKey>,
    /// Counts the entry's armings, so that a key recorded late cannot overwrite a newer one.
    armed: u64,
    kind: Kind<M>,
}

enum Kind<M> {
    /// Sends this message once.
    Once(M),
    /// Sends what `make` builds every `period`; fires next at `next`.
    Every {
        make: Make<M>,
        period: Duration,
        next: Instant,
    },
}

struct Table<M> {
    entries: HashMap<u64, Entry<M>>,
    next_id: u64,
    /// Set once the target stopped or the `Timers` value was dropped: no timer starts after that.
    closed: bool,
}

struct Shared<M: Send + 'static> {
    target: WeakAddr<M>,
    runtime: Handle,
    table: Mutex<Table<M>>,
}

impl<M: Send + 'static> Shared<M> {
    fn lock(&self) -> MutexGuard<'_, Table<M>> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Cancels every timer and refuses new ones. The runtime's timer table is told, and the pending
    /// messages are dropped, outside the lock.
    fn close(&self) {
        let entries = {
            let mut table = self.lock();
            table.closed = true;
            std::mem::take(&mut table.entries)
        };
        for entry in entries.into_values() {
            if let Some(key) = entry.key {
                self.runtime.cancel_timer(key);
            }
        }
    }

    /// Registers timer `id`'s next firing at `deadline`. The callback holds only a weak reference
    /// to this table, so that pending timers do not keep a dropped `Timers` value's state.
    fn arm(self: &Arc<Self>, id: u64, deadline: Instant) -> TimerKey {
        let shared = Arc::downgrade(self);
        let delay = deadline.saturating_duration_since(self.runtime.now());
        self.runtime.call_after(delay, move || fire(&shared, id))
    }

    /// Adds a timer and arms it; `None` if the table is closed.
    fn start(self: &Arc<Self>, kind: Kind<M>, deadline: Instant) -> Option<TimerId> {
        let id = {
            let mut table = self.lock();
            if table.closed {
                return None;
            }
            let id = table.next_id;
            table.next_id += 1;
            let entry = Entry {
                key: None,
                armed: 0,
                kind,
            };
            table.entries.insert(id, entry);
            id
        };
        self.rearm(id, deadline);
        Some(TimerId(id))
    }

    /// Arms timer `id`'s next firing at `deadline` and records its runtime key, or cancels that
    /// firing if the timer was cancelled meanwhile. The runtime is called outside the lock.
    fn rearm(self: &Arc<Self>, id: u64, deadline: Instant) {
        let armed = {
            let mut table = self.lock();
            let Some(entry) = table.entries.get_mut(&id) else {
                return;
            };
            entry.armed += 1;
            entry.armed
        };
        let key = self.arm(id, deadline);
        let mut table = self.lock();
        match table.entries.get_mut(&id) {
            Some(entry) if entry.armed == armed => entry.key = Some(key),
            // Armed again since: this firing already happened, the newer key is recorded.
            Some(_) => {}
            None => {
                drop(table);
                self.runtime.cancel_timer(key);
            }
        }
    }

    fn cancel(&self, id: u64) -> bool {
        let entry = self.lock().entries.remove(&id);
        match entry {
            Some(entry) => {
                if let Some(key) = entry.key {
                    self.runtime.cancel_timer(key);
                }
                true
            }
            None => false,
        }
    }
}

/// A timer fired: send its message, and re-arm it if it is periodic. The send happens outside the
/// table's lock: on a runtime that has shut down it stops the target on this thread, whose exit hook
/// takes the lock.
fn fire<M: Send + 'static>(shared: &Weak<Shared<M>>, id: u64) {
    let Some(shared) = shared.upgrade() else {
        return;
    };
    let (msg, next) = {
        let mut table = shared.lock();
        let Some(entry) = table.entries.get_mut(&id) else {
            return; // cancelled meanwhile
        };
        entry.key = None;
        match &mut entry.kind {
            Kind::Every { make, period, next } => {
                // The next deadline follows the previous one, not the firing time, so that periods
                // do not drift; a firing that is late skips what it missed rather than bursting.
                *next += *period;
                let now = shared.runtime.now();
                if *next < now {
                    *next = now;
                }
                (make(), Some(*next))
            }
            Kind::Once(_) => match table.entries.remove(&id).map(|e| e.kind) {
                Some(Kind::Once(msg)) => (msg, None),
                _ => unreachable!("the entry was just found one-shot"),
            },
        }
    };
    if shared.target.tell(msg).is_err() {
        // The target stopped; its exit hook cancels (or has cancelled) the rest.
        return;
    }
    if let Some(next) = next {
        shared.rearm(id, next);
    }
}

/// The delayed and periodic sends to one actor (see the module docs).
pub struct Timers<M: Send + 'static> {
    shared: Arc<Shared<M>>,
}

impl<M: Send + 'static> Timers<M> {
    /// Timers that send to the actor behind `target`, from inside it (`Timers::new(&ctx.myself())`)
    /// or from anywhere else. Each `Timers` value costs the target one exit watch until it stops:
    /// keep one per actor rather than one per timer.
    pub fn new(target: &Addr<M>) -> Timers<M> {
        let runtime = target.header().runtime().clone();
        Self::with_runtime(target, runtime)
    }

    fn with_runtime(target: &Addr<M>, runtime: Handle) -> Timers<M> {
        Timers {
            shared: Arc::new_cyclic(|me: &Weak<Shared<M>>| {
                let me = me.clone();
                let weak = WeakAddr::with_exit_hook(target, move |_| {
                    if let Some(shared) = me.upgrade() {
                        shared.close();
                    }
                });
                Shared {
                    target: weak,
                    runtime,
                    table: Mutex::new(Table {
                        entries: HashMap::new(),
                        next_id: 0,
                        closed: false,
                    }),
                }
            }),
        }
    }

    /// Sends `msg` to the target after `delay`. Returns `None` (and drops `msg`) if the target has
    /// stopped.
    pub fn send_after(&self, delay: Duration, msg: M) -> Option<TimerId> {
        let deadline = self.shared.runtime.now() + delay;
        self.shared.start(Kind::Once(msg), deadline)
    }

    /// Sends what `make` builds to the target every `period` (the first after one period), until
    /// the timer is cancelled, this value is dropped, or the target stops. Returns `None` if the
    /// target has stopped. A zero period is taken as one millisecond.
    pub fn send_every(
        &self,
        period: Duration,
        make: impl FnMut() -> M + Send + 'static,
    ) -> Option<TimerId> {
        let period = period.max(Duration::from_millis(1));
        let next = self.shared.runtime.now() + period;
        let kind = Kind::Every {
            make: Box::new(make),
            period,
            next,
        };
        self.shared.start(kind, next)
    }

    /// Cancels a timer; returns whether it was still pending (a one-shot timer that has fired, or
    /// any timer of a stopped target, is no longer).
    pub fn cancel(&self, id: TimerId) -> bool {
        self.shared.cancel(id.0)
    }

    /// Timers started and neither fired (one-shot) nor cancelled.
    pub fn pending(&self) -> usize {
        self.shared.lock().entries.len()
    }

    /// Whether the target is known to have stopped (then every timer was cancelled).
    pub fn target_stopped(&self) -> bool {
        self.shared.target.is_stopped()
    }
}

impl<M: Send + 'static> Drop for Timers<M> {
    fn drop(&mut self) {
        self.shared.close();
    }
}

impl<M: Send + 'static> fmt::Debug for Timers<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Timers({}, {} pending)",
            self.shared.target.id(),
            self.pending()
        )
    }
}
