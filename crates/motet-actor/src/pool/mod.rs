//! Worker pools (CAF's `actor_pool`): one [`Addr<M>`] in front of several workers.
//!
//! [`Pool::builder`] takes a factory for the workers' state; [`PoolBuilder::spawn`] starts the
//! workers and a *dispatcher*, an actor whose address is the pool's. Every message told to the pool
//! goes through the dispatcher to one worker (round robin or random) or to all of them
//! (broadcast): exactly one hop more than telling a worker directly. [`Pool::split_join`] scatters
//! a request to every worker and gathers the replies into one answer.
//!
//! # Failing workers
//!
//! The dispatcher learns when a worker stops (as a monitor would, without the monitor's hold on
//! the pool). By default a worker that stops is removed, and the messages
//! still queued in its mailbox are dropped with it (requests among them fail with
//! [`AskError::Dropped`]). With [`PoolBuilder::restart`], workers run under a one-for-one
//! [`Supervisor`](crate::Supervisor): a worker whose handler panics is rebuilt in place by the
//! factory, keeps its address and its mailbox, and only the message whose handler panicked is lost;
//! beyond the restart intensity the supervisor gives up, which stops every worker.
//!
//! A message the dispatcher finds no live worker for is never handed to a stopped one: the
//! dispatcher tries the next worker, and when none is left the pool stops with
//! [`ExitReason::Error`] (`"pool: no worker left"`). The message in hand and those still queued at
//! the dispatcher are then dropped (requests among them fail with [`AskError::Dropped`]), the
//! pool's watchers and monitors see the reason, and `tell` to the pool fails from then on.
//!
//! # Resizing
//!
//! [`Pool::resize`], [`Pool::grow`] and [`Pool::shrink`] queue a command and wake the dispatcher,
//! which applies it between two messages: new workers get messages from the next dispatch on; a
//! removed worker gets a stop signal behind the messages already sent to it, so it handles them
//! all before it stops. [`Pool::size`] reads the size the dispatcher last published.
//!
//! # Stopping
//!
//! The pool stops when its last address is gone (unreachable), when it is killed, or when no worker
//! is left; it then stops its workers the same way as a shrink does, behind their queued messages.
//!
//! ```
//! use std::time::Duration;
//! use motet_actor::{Actor, Context, Pool, Reply};
//!
//! struct Square;
//! enum Msg { Square(u64, Reply<u64>) }
//! impl Actor for Square {
//!     type Msg = Msg;
//!     fn handle(&mut self, _: &mut Context<'_, Self>, msg: Msg) {
//!         let Msg::Square(n, reply) = msg;
//!         let _ = reply.send(n * n);
//!     }
//! }
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let pool = Pool::builder(|| Square).size(4).spawn(rt.handle()).unwrap();
//! let nine = pool.addr().ask(|r| Msg::Square(3, r), Duration::from_secs(5)).wait();
//! assert_eq!(nine, Ok(9));
//! let sum = pool
//!     .split_join(|r| Msg::Square(2, r), Duration::from_secs(5), |parts| {
//!         parts.into_iter().map(|p| p.unwrap()).sum::<u64>()
//!     })
//!     .wait();
//! assert_eq!(sum, Ok(16)); // four workers, 2 * 2 each
//! ```

mod dispatcher;
mod split_join;

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use motet_runtime::Handle;

use crate::actor::Actor;
use crate::addr::{Addr, SendError};
use crate::envelope::Signal;
use crate::exit::{Down, ExitReason};
use crate::supervisor::{Strategy, Supervisor};
use crate::watch::ExitWatch;
#[cfg(doc)]
use crate::AskError;

use dispatcher::{Dispatcher, Route};

/// Why a pool could not be made or resized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolError {
    /// A pool needs at least one worker.
    ZeroSize,
    /// The pool has stopped.
    Stopped,
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PoolError::ZeroSize => "a pool needs at least one worker",
            PoolError::Stopped => "the pool has stopped",
        })
    }
}

impl std::error::Error for PoolError {}

/// A resize request, applied by the dispatcher.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Command {
    Resize(usize),
    Grow(usize),
    Shrink(usize),
}

/// What the pool's handles and its dispatcher share.
pub(crate) struct Shared<M: Send + 'static> {
    commands: Mutex<Vec<Command>>,
    /// The workers as the dispatcher last published them (for `split_join` and `size`).
    workers: Mutex<Vec<Addr<M>>>,
    size: AtomicUsize,
}

impl<M: Send + 'static> Shared<M> {
    fn commands(&self) -> MutexGuard<'_, Vec<Command>> {
        self.commands.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes the dispatcher's worker list; the old one is dropped after the lock is released.
    pub(crate) fn publish(&self, workers: &[Addr<M>]) {
        let old = {
            let mut list = self.workers.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::replace(&mut *list, workers.to_vec())
        };
        self.size.store(workers.len(), Ordering::Release);
        drop(old);
    }

    pub(crate) fn take_commands(&self) -> Vec<Command> {
        std::mem::take(&mut *self.commands())
    }

    pub(crate) fn snapshot(&self) -> Vec<Addr<M>> {
        self.workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Messages the dispatcher routes per turn. Routing one is a short handler (a send), so a longer
/// turn than an ordinary actor's holds its worker thread no longer, and it hands each worker more
/// messages per turn: under a flood, a pool of `w` workers gets about `DISPATCH_BATCH / w` messages
/// to each worker per dispatcher turn, and the workers' turns cost less per message.
const DISPATCH_BATCH: u32 = 1024;

/// The factory of a pool's workers, shared by the dispatcher and (with restarts) the supervisor.
pub(crate) type Factory<A> = Arc<dyn Fn() -> A + Send + Sync>;

/// Configures a pool of workers of type `A` (see the module docs).
pub struct PoolBuilder<A: Actor> {
    factory: Factory<A>,
    size: usize,
    route: Route<A::Msg>,
    restart: Option<(u32, Duration)>,
}

impl<A: Actor> PoolBuilder<A> {
    /// The number of workers to start with (default 1).
    pub fn size(mut self, n: usize) -> PoolBuilder<A> {
        self.size = n;
        self
    }

    /// Routes each message to the next worker in turn (the default).
    pub fn round_robin(mut self) -> PoolBuilder<A> {
        self.route = Route::RoundRobin;
        self
    }

    /// Routes each message to a worker drawn at random.
    pub fn random(mut self) -> PoolBuilder<A> {
        self.route = Route::Random;
        self
    }

    /// Restarts a worker whose handler panics in place (it keeps its mailbox), at most
    /// `max_restarts` times within `within` over all workers; beyond that every worker stops and
    /// so does the pool. Without it, a failed worker is removed.
    pub fn restart(mut self, max_restarts: u32, within: Duration) -> PoolBuilder<A> {
        self.restart = Some((max_restarts, within));
        self
    }

    /// Starts the workers and the dispatcher.
    ///
    /// # Errors
    /// [`PoolError::ZeroSize`] for a size of 0.
    pub fn spawn(self, runtime: &Handle) -> Result<Pool<A::Msg>, PoolError> {
        if self.size == 0 {
            return Err(PoolError::ZeroSize);
        }
        let supervisor = self.restart.map(|(max, within)| {
            Supervisor::builder(Strategy::OneForOne)
                .intensity(max, within)
                .spawn(runtime)
        });
        let shared = Arc::new(Shared {
            commands: Mutex::new(Vec::new()),
            workers: Mutex::new(Vec::new()),
            size: AtomicUsize::new(0),
        });
        let mut dispatcher = Dispatcher::new(
            self.factory,
            self.route,
            supervisor,
            shared.clone(),
            runtime.clone(),
        );
        dispatcher.grow_by(self.size);
        shared.publish(dispatcher.workers());
        let addr = crate::Spawn::new(dispatcher)
            .batch(DISPATCH_BATCH)
            .spawn(runtime);
        Ok(Pool { addr, shared })
    }
}

impl<A: Actor> PoolBuilder<A>
where
    A::Msg: Clone,
{
    /// Routes each message to every worker (a clone each; the last gets the original).
    pub fn broadcast(mut self) -> PoolBuilder<A> {
        self.route = Route::Broadcast(<A::Msg as Clone>::clone);
        self
    }
}

/// A pool of workers behind one address (see the module docs). Cloning gives another handle.
pub struct Pool<M: Send + 'static> {
    addr: Addr<M>,
    shared: Arc<Shared<M>>,
}

impl Pool<()> {
    /// A builder for a pool whose workers `factory` makes (at start, when growing, and, with
    /// [`PoolBuilder::restart`], when a worker restarts).
    pub fn builder<A: Actor>(factory: impl Fn() -> A + Send + Sync + 'static) -> PoolBuilder<A> {
        PoolBuilder {
            factory: Arc::new(factory),
            size: 1,
            route: Route::RoundRobin,
            restart: None,
        }
    }
}

impl<M: Send + 'static> Pool<M> {
    /// The pool's address: what is told to it goes to its workers.
    pub fn addr(&self) -> &Addr<M> {
        &self.addr
    }

    /// Tells the pool (see [`Addr::tell`]).
    pub fn tell(&self, msg: M) -> Result<(), SendError<M>> {
        self.addr.tell(msg)
    }

    /// The number of workers, as the dispatcher last published it (0 once the pool stopped).
    pub fn size(&self) -> usize {
        self.shared.size.load(Ordering::Acquire)
    }

    /// Asks for `n` workers.
    ///
    /// # Errors
    /// [`PoolError::ZeroSize`] for 0; [`PoolError::Stopped`] if the pool has stopped.
    pub fn resize(&self, n: usize) -> Result<(), PoolError> {
        if n == 0 {
            return Err(PoolError::ZeroSize);
        }
        self.command(Command::Resize(n))
    }

    /// Asks for `k` more workers.
    ///
    /// # Errors
    /// [`PoolError::Stopped`] if the pool has stopped.
    pub fn grow(&self, k: usize) -> Result<(), PoolError> {
        self.command(Command::Grow(k))
    }

    /// Asks for `k` fewer workers, keeping at least one.
    ///
    /// # Errors
    /// [`PoolError::Stopped`] if the pool has stopped.
    pub fn shrink(&self, k: usize) -> Result<(), PoolError> {
        self.command(Command::Shrink(k))
    }

    /// Queues `cmd` and wakes the dispatcher with a [`Down`] naming itself, the one signal it
    /// never gets otherwise (no actor monitors itself): it takes the signal as "apply the queued
    /// commands", in mailbox order with the messages told before.
    fn command(&self, cmd: Command) -> Result<(), PoolError> {
        if self.addr.is_stopped() {
            return Err(PoolError::Stopped);
        }
        self.shared.commands().push(cmd);
        let wake = Signal::Down(Down {
            id: self.addr.id(),
            reason: ExitReason::Normal,
        });
        if self.addr.to_any().signal(wake) {
            Ok(())
        } else {
            self.shared.commands().clear();
            Err(PoolError::Stopped)
        }
    }

    /// Completes when the pool stops, with its reason.
    pub fn watch(&self) -> ExitWatch {
        self.addr.watch()
    }

    /// Stops the pool (and its workers, after the messages already sent to them).
    pub fn kill(&self) -> bool {
        self.addr.kill()
    }
}

impl<M: Send + 'static> Clone for Pool<M> {
    fn clone(&self) -> Pool<M> {
        Pool {
            addr: self.addr.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl<M: Send + 'static> fmt::Debug for Pool<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pool({}, {} workers)", self.addr.id(), self.size())
    }
}
