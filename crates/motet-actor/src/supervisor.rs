//! Supervision: restarting failed actors in place, one-for-one or one-for-all, within a restart
//! intensity limit.
//!
//! A supervised child that panics is restarted *in place*, as Akka does: its address and mailbox stay
//! valid, its state is rebuilt by the factory it was spawned with, `started` runs again, and the message
//! whose handler panicked is dropped. Which children restart is the [`Strategy`]'s choice; how often is
//! bounded by the intensity (at most `max_restarts` restarts within `within`, as Erlang's MaxR/MaxT).
//! One failure beyond it makes the supervisor give up: the failing child stops with its panic as the
//! reason, the supervisor stops the other children (reason [`ExitReason::Shutdown`]) and stops itself
//! with [`ExitReason::RestartLimit`], which its own monitors and links see.
//!
//! The decision is taken by the failing child itself, in its own turn, under the supervisor's lock, so
//! a restart does not wait for a round trip through the supervisor's mailbox. A child that stops
//! without panicking is not restarted. A supervisor lives until it is stopped
//! ([`Supervisor::stop`]) or gives up; stopping it stops its children.
//!
//! ```
//! use std::time::Duration;
//! use motet_actor::{Actor, Context, Strategy, Supervisor};
//!
//! struct Fragile;
//! impl Actor for Fragile {
//!     type Msg = bool;
//!     fn handle(&mut self, _: &mut Context<'_, Self>, fail: bool) {
//!         if fail { panic!("asked to fail") }
//!     }
//! }
//!
//! let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
//! let sup = Supervisor::builder(Strategy::OneForOne)
//!     .intensity(3, Duration::from_secs(10))
//!     .spawn(rt.handle());
//! let child = sup.spawn_child(|| Fragile).unwrap();
//! child.tell(true).unwrap(); // panics, restarted in place
//! child.tell(false).unwrap(); // the same address still works
//! rt.wait_quiescent();
//! assert!(!child.is_stopped());
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use motet_runtime::Handle;

use crate::actor::{Actor, Context};
use crate::addr::{Addr, AnyAddr};
use crate::cell::{spawn_with, Options};
use crate::envelope::Signal;
use crate::exit::{ActorId, ExitReason};
use crate::watch::ExitWatch;

/// Which children restart when one fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Only the failed child.
    OneForOne,
    /// Every child: the failed one at once, the others when they process the restart signal (after
    /// the messages already in their mailboxes).
    OneForAll,
}

/// What the failing child does.
pub(crate) enum Decision {
    Restart,
    Stop,
}

struct State {
    restarts: VecDeque<Instant>,
    children: Vec<AnyAddr>,
    supervisor: Option<AnyAddr>,
    done: bool,
}

struct Shared {
    strategy: Strategy,
    max_restarts: u32,
    within: Duration,
    state: Mutex<State>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The supervision record of a child actor.
pub(crate) struct Supervision<A> {
    factory: Box<dyn FnMut() -> A + Send>,
    shared: Arc<Shared>,
}

impl<A: Actor> Supervision<A> {
    pub(crate) fn make(&mut self) -> A {
        (self.factory)()
    }

    /// A child failed: restart it (and, one-for-all, its siblings) or give up.
    pub(crate) fn on_failure(&self, me: ActorId, _reason: &ExitReason, rt: &Handle) -> Decision {
        let mut st = self.shared.lock();
        if st.done {
            return Decision::Stop;
        }
        let now = rt.now();
        while let Some(&t) = st.restarts.front() {
            if now.saturating_duration_since(t) > self.shared.within {
                st.restarts.pop_front();
            } else {
                break;
            }
        }
        if st.restarts.len() >= self.shared.max_restarts as usize {
            st.done = true;
            if let Some(sup) = st.supervisor.take() {
                drop(st);
                sup.signal(Signal::Stop(ExitReason::RestartLimit));
            }
            return Decision::Stop;
        }
        st.restarts.push_back(now);
        if self.shared.strategy == Strategy::OneForAll {
            let siblings: Vec<AnyAddr> = st
                .children
                .iter()
                .filter(|c| c.id() != me)
                .cloned()
                .collect();
            // Signalled outside the lock: a signal may shut a sibling down on the spot (on a runtime
            // that has shut down), and its `child_stopped` takes the lock.
            drop(st);
            for sibling in siblings {
                sibling.signal(Signal::Restart);
            }
        }
        Decision::Restart
    }

    /// The child stopped for good: forget it.
    pub(crate) fn child_stopped(&self, me: ActorId, _reason: &ExitReason) {
        let removed = {
            let mut st = self.shared.lock();
            st.children
                .iter()
                .position(|c| c.id() == me)
                .map(|i| st.children.swap_remove(i))
        };
        drop(removed);
    }
}

/// Configures a supervisor.
#[derive(Clone, Debug)]
pub struct SupervisorBuilder {
    strategy: Strategy,
    max_restarts: u32,
    within: Duration,
}

impl SupervisorBuilder {
    /// At most `max_restarts` restarts within `within` (default: 3 in 5 seconds).
    pub fn intensity(mut self, max_restarts: u32, within: Duration) -> SupervisorBuilder {
        self.max_restarts = max_restarts;
        self.within = within;
        self
    }

    /// Starts the supervisor actor.
    pub fn spawn(self, runtime: &Handle) -> Supervisor {
        let shared = Arc::new(Shared {
            strategy: self.strategy,
            max_restarts: self.max_restarts,
            within: self.within,
            state: Mutex::new(State {
                restarts: VecDeque::new(),
                children: Vec::new(),
                supervisor: None,
                done: false,
            }),
        });
        let addr = crate::spawn(
            runtime,
            SupervisorActor {
                shared: shared.clone(),
            },
        );
        shared.lock().supervisor = Some(addr.to_any());
        Supervisor {
            addr,
            shared,
            runtime: runtime.clone(),
        }
    }
}

/// A supervisor and the means to add children to it.
pub struct Supervisor {
    addr: Addr<SupervisorMsg>,
    shared: Arc<Shared>,
    runtime: Handle,
}

/// The supervisor actor's messages.
#[derive(Debug)]
pub enum SupervisorMsg {
    /// Stop the supervisor and its children.
    Stop,
}

/// Returned when adding a child to a supervisor that has stopped.
#[derive(Debug, PartialEq, Eq)]
pub struct SupervisorStopped;

impl fmt::Display for SupervisorStopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the supervisor has stopped")
    }
}

impl std::error::Error for SupervisorStopped {}

impl Supervisor {
    /// A builder for a supervisor with `strategy`.
    pub fn builder(strategy: Strategy) -> SupervisorBuilder {
        SupervisorBuilder {
            strategy,
            max_restarts: 3,
            within: Duration::from_secs(5),
        }
    }

    /// Spawns a supervised child whose state `factory` builds (again at every restart), with the
    /// default spawn options; [`Supervisor::child`] takes options.
    ///
    /// # Errors
    /// The supervisor has stopped.
    pub fn spawn_child<A: Actor>(
        &self,
        factory: impl FnMut() -> A + Send + 'static,
    ) -> Result<Addr<A::Msg>, SupervisorStopped> {
        self.child(factory).spawn()
    }

    /// Options for a supervised child whose state `factory` builds (again at every restart):
    /// `sup.child(factory).detached().bounded(64).spawn()`. The options are those of
    /// [`Spawn`](crate::Spawn) that a restart in place keeps: the child keeps its address, its
    /// mailbox (bounded or not) and, if detached, its thread across restarts.
    ///
    /// ```
    /// use std::time::Duration;
    /// use motet_actor::{Actor, Context, Strategy, Supervisor};
    ///
    /// struct Blocking;
    /// impl Actor for Blocking {
    ///     type Msg = u64;
    ///     fn handle(&mut self, _: &mut Context<'_, Self>, ms: u64) {
    ///         if ms == 0 { panic!("no work") }
    ///         std::thread::sleep(Duration::from_millis(ms)); // blocks its own thread only
    ///     }
    /// }
    ///
    /// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
    /// let sup = Supervisor::builder(Strategy::OneForOne).spawn(rt.handle());
    /// let child = sup.child(|| Blocking).detached().bounded(16).spawn().unwrap();
    /// child.tell(0).unwrap(); // panics, restarted in place on its own thread
    /// child.tell(1).unwrap();
    /// sup.stop();
    /// sup.watch().wait();
    /// ```
    pub fn child<A: Actor, F: FnMut() -> A + Send + 'static>(
        &self,
        factory: F,
    ) -> ChildSpawn<'_, A, F> {
        ChildSpawn {
            supervisor: self,
            factory,
            options: Options::default(),
            _actor: std::marker::PhantomData,
        }
    }

    fn spawn_with<A: Actor>(
        &self,
        mut factory: impl FnMut() -> A + Send + 'static,
        options: Options,
    ) -> Result<Addr<A::Msg>, SupervisorStopped> {
        if self.shared.lock().done {
            return Err(SupervisorStopped);
        }
        let actor = factory();
        let supervision = Supervision {
            factory: Box::new(factory),
            shared: self.shared.clone(),
        };
        // Spawned without the lock: on a runtime that has shut down, the child is shut down inside
        // `spawn`, and its `child_stopped` takes the lock.
        let supervision = Some(Box::new(supervision));
        let addr = spawn_with(&self.runtime, actor, options, supervision, None, None);
        let mut st = self.shared.lock();
        if st.done {
            // The supervisor stopped meanwhile, without this child among those it stopped.
            drop(st);
            addr.to_any().signal(Signal::Stop(ExitReason::Shutdown));
            return Err(SupervisorStopped);
        }
        // A child that already stopped (its `child_stopped` found nothing to remove) is not kept.
        if !addr.is_stopped() {
            st.children.push(addr.to_any());
        }
        drop(st);
        Ok(addr)
    }

    /// The supervisor actor's address (to link to it or monitor it).
    pub fn addr(&self) -> &Addr<SupervisorMsg> {
        &self.addr
    }

    /// Completes when the supervisor stops.
    pub fn watch(&self) -> ExitWatch {
        self.addr.watch()
    }

    /// Stops the supervisor and, with it, its children.
    pub fn stop(&self) {
        let _ = self.addr.tell(SupervisorMsg::Stop);
    }
}

/// A supervised child about to be spawned, with its options: see [`Supervisor::child`].
#[must_use = "the child is spawned by `spawn()`"]
pub struct ChildSpawn<'s, A: Actor, F> {
    supervisor: &'s Supervisor,
    factory: F,
    options: Options,
    _actor: std::marker::PhantomData<fn() -> A>,
}

impl<A: Actor, F: FnMut() -> A + Send + 'static> ChildSpawn<'_, A, F> {
    /// Messages per turn (at least 1), as [`Spawn::batch`](crate::Spawn::batch).
    pub fn batch(mut self, n: u32) -> Self {
        self.options.batch = n.max(1);
        self
    }

    /// Runs the child on an OS thread of its own, as [`Spawn::detached`](crate::Spawn::detached);
    /// a restart keeps the thread. The thread ends when the child stops for good (the supervisor
    /// gave up or stopped).
    pub fn detached(mut self) -> Self {
        self.options.detached = true;
        self
    }

    /// A bounded mailbox of `capacity` messages (at least 1), as
    /// [`Spawn::bounded`](crate::Spawn::bounded); a restart keeps the mailbox and what is in it.
    pub fn bounded(mut self, capacity: usize) -> Self {
        self.options.bound = Some(capacity.max(1));
        self
    }

    /// How many messages the child may stash, as
    /// [`Spawn::stash_capacity`](crate::Spawn::stash_capacity).
    pub fn stash_capacity(mut self, n: usize) -> Self {
        self.options.stash_capacity = n;
        self
    }

    /// Spawns the child under the supervisor.
    ///
    /// # Errors
    /// The supervisor has stopped.
    pub fn spawn(self) -> Result<Addr<A::Msg>, SupervisorStopped> {
        self.supervisor.spawn_with(self.factory, self.options)
    }
}

struct SupervisorActor {
    shared: Arc<Shared>,
}

impl Actor for SupervisorActor {
    type Msg = SupervisorMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SupervisorMsg) {
        match msg {
            SupervisorMsg::Stop => ctx.stop(),
        }
    }

    fn stopped(&mut self, _ctx: &mut Context<'_, Self>, _reason: &ExitReason) {
        let (children, me) = {
            let mut st = self.shared.lock();
            st.done = true;
            (std::mem::take(&mut st.children), st.supervisor.take())
        };
        for child in &children {
            child.signal(Signal::Stop(ExitReason::Shutdown));
        }
        drop(children);
        drop(me);
    }
}
