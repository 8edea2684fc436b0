//! Spawning actors.

use motet_runtime::Handle;

use crate::actor::Actor;
use crate::addr::{Addr, AnyAddr};
use crate::cell::{spawn_with, ActorTask, Forward, Options, Relations};
use crate::envelope::Signal;
use crate::exit::{ExitReason, ExitSignal};

/// Messages an actor processes per turn before it yields to others, unless configured otherwise.
pub const DEFAULT_BATCH: u32 = 128;

/// Spawns `actor` on `runtime` and returns its address. The actor's `started` runs promptly on a
/// worker, then its handler runs for each message.
///
/// ```
/// use std::time::Duration;
/// use motet_actor::{spawn, Actor, Context, Reply};
///
/// /// Sums what it is told; answers with the sum so far.
/// struct Sum(u64);
/// enum Msg {
///     Add(u64),
///     Total(Reply<u64>),
/// }
/// impl Actor for Sum {
///     type Msg = Msg;
///     fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: Msg) {
///         match msg {
///             Msg::Add(n) => self.0 += n,
///             Msg::Total(reply) => {
///                 let _ = reply.send(self.0);
///             }
///         }
///     }
/// }
///
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let sum = spawn(rt.handle(), Sum(0));
/// for n in 1..=4 {
///     sum.tell(Msg::Add(n)).unwrap();
/// }
/// // From outside the runtime, block on the answer; inside an actor or a process, `.await` it.
/// let total = sum.ask(Msg::Total, Duration::from_secs(5)).wait();
/// assert_eq!(total, Ok(10));
/// ```
pub fn spawn<A: Actor>(runtime: &Handle, actor: A) -> Addr<A::Msg> {
    ActorTask::<A>::spawn(runtime, actor, Options::default(), None, None, None)
}

/// Spawns with options: `Spawn::new(actor).batch(16).link(&other).spawn(&handle)`.
pub struct Spawn<A: Actor> {
    actor: A,
    options: Options,
    link: Vec<AnyAddr>,
    trap_exit: bool,
    forward: Option<Forward<A::Msg>>,
}

impl<A: Actor> Spawn<A> {
    /// Options for spawning `actor`.
    pub fn new(actor: A) -> Spawn<A> {
        Spawn {
            actor,
            options: Options::default(),
            link: Vec::new(),
            trap_exit: false,
            forward: None,
        }
    }

    /// Messages per turn (at least 1; default [`DEFAULT_BATCH`]).
    pub fn batch(mut self, n: u32) -> Spawn<A> {
        self.options.batch = n.max(1);
        self
    }

    /// Runs the actor on an OS thread of its own instead of the runtime's workers (CAF's
    /// `detached`), for handlers that block (see [`Actor`]'s docs on blocking). Its address, links,
    /// monitors, asks, watches and kills work as for any actor, and its messages to other actors
    /// go to the runtime as usual. The thread ends when the actor stops (for any reason, a panic
    /// included); the runtime's shutdown does not stop it.
    ///
    /// # Panics
    /// [`Spawn::spawn`] panics if the operating system refuses to start the thread.
    pub fn detached(mut self) -> Spawn<A> {
        self.options.detached = true;
        self
    }

    /// Gives the actor a bounded mailbox (Akka's `BoundedMailbox`) of `capacity` messages (at
    /// least 1): while it is full, [`Addr::tell`] and [`Addr::try_tell`] refuse a message (handing
    /// it back), [`Addr::send_async`] waits for room and [`Addr::tell_timeout`] blocks for room up
    /// to a timeout. System signals (links, monitors, exits, kills) are never refused; they count
    /// towards the capacity. Only for actors that need it: an unbounded actor's sends and turns do
    /// no counting at all.
    pub fn bounded(mut self, capacity: usize) -> Spawn<A> {
        self.options.bound = Some(capacity.max(1));
        self
    }

    /// Makes a *forwarding* actor: every user message sent to it ([`Addr::tell`], [`Addr::send`],
    /// [`Addr::try_tell`], [`Addr::ask`], ...) is handed to `forward` at once, on the sending
    /// thread, instead of entering the mailbox, and the actor's [`Actor::handle`] is never called.
    /// Its mailbox holds only system signals (links, monitors, exits, kills, watches), which its
    /// turns handle as for any actor. For actors that stand for something elsewhere, whose sends
    /// should cost a call rather than a turn on a worker: the proxy of a remote actor (CAF's actor
    /// proxies), an adapter into a channel or a socket's queue.
    ///
    /// - `forward` gives a message back to refuse it: the send then fails as a send to a stopped
    ///   actor does ([`SendError`](crate::SendError), [`AskError::Stopped`](crate::AskError)).
    /// - Once the actor has stopped, sends fail without calling `forward`. A send racing with the
    ///   stop may still be forwarded, as a message pushed just before a stop is accepted.
    /// - `forward` runs on whatever thread sends, a runtime worker included: it must not block,
    ///   and sends from one thread reach it in the order they were made. A panic in `forward`
    ///   reaches the sender (the message is dropped with it).
    /// - [`Spawn::bounded`] has no effect on a forwarding actor: nothing queues.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::sync::Mutex;
    /// use motet_actor::{Actor, Context, Spawn};
    ///
    /// /// Stands for the other end of a channel.
    /// struct Outlet;
    /// impl Actor for Outlet {
    ///     type Msg = String;
    ///     fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: String) {
    ///         unreachable!("a forwarding actor's messages go to its forward")
    ///     }
    /// }
    ///
    /// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// let tx = Mutex::new(tx);
    /// let outlet = Spawn::new(Outlet)
    ///     .forwarding(move |msg| tx.lock().unwrap().send(msg).map_err(|e| e.0))
    ///     .spawn(rt.handle());
    /// outlet.tell("hello".to_string()).unwrap();
    /// assert_eq!(rx.recv().unwrap(), "hello");
    /// ```
    pub fn forwarding(
        mut self,
        forward: impl Fn(A::Msg) -> Result<(), A::Msg> + Send + Sync + 'static,
    ) -> Spawn<A> {
        self.forward = Some(Box::new(forward));
        self
    }

    /// How many messages [`Context::stash`](crate::Context::stash) may hold (default
    /// [`DEFAULT_STASH_CAPACITY`](crate::DEFAULT_STASH_CAPACITY)).
    pub fn stash_capacity(mut self, n: usize) -> Spawn<A> {
        self.options.stash_capacity = n;
        self
    }

    /// Links the new actor with `other` from its first instant (no window in which one could stop
    /// unnoticed by the other).
    pub fn link(mut self, other: impl Into<AnyAddr>) -> Spawn<A> {
        self.link.push(other.into());
        self
    }

    /// Starts the actor trapping exits (see [`Context::trap_exit`](crate::Context::trap_exit)).
    pub fn trap_exit(mut self, trap: bool) -> Spawn<A> {
        self.trap_exit = trap;
        self
    }

    /// Spawns the actor.
    pub fn spawn(self, runtime: &Handle) -> Addr<A::Msg> {
        // The new actor holds its links before it can run: one that stops at once (in `started`, on
        // another worker, before the loop below has run) still tells the actors it is linked to.
        let relations = if self.link.is_empty() && !self.trap_exit {
            None
        } else {
            Some(Relations {
                links: self.link.clone(),
                trap_exit: self.trap_exit,
                ..Relations::default()
            })
        };
        let addr = spawn_with(
            runtime,
            self.actor,
            self.options,
            None,
            relations,
            self.forward,
        );
        for other in self.link {
            if !other.signal(Signal::Link(addr.to_any())) {
                // `other` had already stopped; this signal also drops it from the new actor's links.
                addr.to_any().signal(Signal::Exit(ExitSignal {
                    from: other.id(),
                    reason: ExitReason::AlreadyExited,
                }));
            }
        }
        addr
    }
}
