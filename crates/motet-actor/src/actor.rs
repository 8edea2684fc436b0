//! The [`Actor`] trait and the [`Context`] its handlers get.

use std::time::Duration;

use motet_runtime::Handle;

use crate::addr::{Addr, AnyAddr};
use crate::ask::{AskError, Reply};
use crate::cell::{Header, Local, Relations};
use crate::envelope::Signal;
use crate::exit::{ActorId, Down, ExitReason, ExitSignal};
use crate::receive_timeout::ReceiveTimeout;
use crate::stash::StashFull;

/// An actor: state plus a handler for messages of one type.
///
/// ```
/// use motet_actor::{spawn, Actor, Context};
///
/// struct Counter(u64);
/// enum Msg { Add(u64), Done }
///
/// impl Actor for Counter {
///     type Msg = Msg;
///     fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
///         match msg {
///             Msg::Add(n) => self.0 += n,
///             Msg::Done => ctx.stop(),
///         }
///     }
/// }
///
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let counter = spawn(rt.handle(), Counter(0));
/// let exited = counter.watch();
/// counter.tell(Msg::Add(2)).unwrap();
/// counter.tell(Msg::Done).unwrap();
/// assert!(exited.wait().is_normal());
/// ```
///
/// # Blocking
///
/// A handler runs on one of the runtime's worker threads, which runs many actors in turn. A handler
/// that blocks (file or socket IO, a blocking library call, a lock held elsewhere, a sleep) stalls
/// that worker and every actor queued behind it; with as many blocked handlers as workers the whole
/// runtime stops. Spawn such an actor *detached* instead ([`Spawn::detached`](crate::Spawn::detached)):
/// it gets an OS thread of its own, with the same address type and the same trait.
pub trait Actor: Send + Sized + 'static {
    /// The messages this actor accepts (typically an enum).
    type Msg: Send + 'static;

    /// Whether this actor takes urgent messages ([`Addr::tell_urgent`]) ahead of normal ones. Off
    /// by default: an actor that does not opt in has no second queue and its turns do not look for
    /// one (an urgent send to it is a plain [`Addr::tell`]).
    const PRIORITIES: bool = false;

    /// Whether this actor may set a receive timeout ([`Context::set_receive_timeout`]). Off by
    /// default: an actor that does not opt in does not count the messages it handles. Calling
    /// `set_receive_timeout` on an actor without it fails to compile.
    const RECEIVE_TIMEOUT: bool = false;

    /// Handles one message.
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Self::Msg);

    /// Runs once, on a worker, before the first message (and again after a supervised restart).
    fn started(&mut self, _ctx: &mut Context<'_, Self>) {}

    /// Runs once when the actor stops for any reason other than a panic in this actor or the
    /// runtime's shutdown.
    fn stopped(&mut self, _ctx: &mut Context<'_, Self>, _reason: &ExitReason) {}

    /// A monitored actor stopped (see [`Context::monitor`]).
    fn on_down(&mut self, _ctx: &mut Context<'_, Self>, _down: Down) {}

    /// A linked actor stopped while this actor traps exits (see [`Context::trap_exit`]).
    fn on_exit(&mut self, _ctx: &mut Context<'_, Self>, _exit: ExitSignal) {}
}

/// What a handler can do besides changing its state: reach itself, stop, spawn, link, monitor, ask.
pub struct Context<'a, A: Actor> {
    header: &'a Header<A::Msg>,
    pub(crate) local: &'a mut Option<Box<Local<A::Msg>>>,
    pending: Pending,
}

/// What a handler asked for, done once it returns.
pub(crate) enum Pending {
    None,
    Stop(ExitReason),
    /// Run the stashed messages before the mailbox's next one.
    Unstash,
}

impl<'a, A: Actor> Context<'a, A> {
    pub(crate) fn new(
        header: &'a Header<A::Msg>,
        local: &'a mut Option<Box<Local<A::Msg>>>,
    ) -> Context<'a, A> {
        Context {
            header,
            local,
            pending: Pending::None,
        }
    }

    /// What the handler asked for, leaving nothing pending.
    pub(crate) fn take_pending(&mut self) -> Pending {
        std::mem::replace(&mut self.pending, Pending::None)
    }

    /// The stop reason, if a stop is what the handler asked for (leaving nothing pending then);
    /// otherwise `None`, leaving the request in place.
    #[inline(always)]
    pub(crate) fn take_stop(&mut self) -> Option<ExitReason> {
        if !matches!(self.pending, Pending::Stop(_)) {
            return None;
        }
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::Stop(reason) => Some(reason),
            _ => unreachable!("tested above"),
        }
    }

    /// Whether a handler asked for anything: a load, where [`Context::take_pending`] also writes.
    #[inline(always)]
    pub(crate) fn has_pending(&self) -> bool {
        !matches!(self.pending, Pending::None)
    }

    fn relations(&mut self) -> &mut Relations {
        &mut Local::get(self.local).relations
    }

    /// This actor's own address.
    pub fn myself(&self) -> Addr<A::Msg> {
        self.header.retain();
        Addr::from_header(std::ptr::NonNull::from(self.header))
    }

    /// This actor's identity.
    pub fn id(&self) -> ActorId {
        self.header.id
    }

    /// The runtime this actor runs on.
    pub fn runtime(&self) -> &Handle {
        self.header.runtime()
    }

    /// Stops the actor with [`ExitReason::Normal`] after the current handler returns. Messages still
    /// queued are dropped (requests in them fail with [`AskError::Dropped`]).
    pub fn stop(&mut self) {
        self.pending = Pending::Stop(ExitReason::Normal);
    }

    /// Stops the actor with `reason` after the current handler returns. An abnormal reason propagates
    /// to linked actors.
    pub fn stop_with(&mut self, reason: ExitReason) {
        self.pending = Pending::Stop(reason);
    }

    /// Sets `msg` aside, to be handled again after [`Context::unstash_all`] (Akka's stash, CAF's
    /// `skip`): for a message the actor cannot handle in its current state. The stash holds at most
    /// the capacity set with [`Spawn::stash_capacity`](crate::Spawn::stash_capacity) (default
    /// [`DEFAULT_STASH_CAPACITY`](crate::DEFAULT_STASH_CAPACITY)) messages.
    ///
    /// # Errors
    /// The stash is full: the message comes back in [`StashFull`].
    pub fn stash(&mut self, msg: A::Msg) -> Result<(), StashFull<A::Msg>> {
        let local = Local::get(self.local);
        local.stash.hold(msg, local.stash_capacity)
    }

    /// Makes the stashed messages run again, oldest first, once the current handler returns and
    /// before any message still in the mailbox. A message stashed again while they run waits for
    /// the next `unstash_all`. A stop request in the same handler wins: the stash is dropped with
    /// the actor.
    pub fn unstash_all(&mut self) {
        if matches!(self.pending, Pending::None) && self.stashed() > 0 {
            self.pending = Pending::Unstash;
        }
    }

    /// How many messages are stashed.
    pub fn stashed(&self) -> usize {
        self.local.as_ref().map_or(0, |l| l.stash.len())
    }

    /// Sets a receive timeout: once no message has arrived for `after`, `make` builds a message
    /// that this actor then handles; it repeats every `after` while the actor stays idle, until
    /// [`Context::clear_receive_timeout`] or the actor stops. The timeout is checked on a timer of
    /// the runtime: a message that arrives resets it, and it fires between `after` and about twice
    /// `after` after the last message (the timer is not reset per message, which would cost every
    /// message a timer operation). A pending timeout does not keep an unreachable actor alive: when
    /// it fires and no address to the actor is left, the actor stops as
    /// [`ExitReason::Unreachable`] instead. Setting it again replaces the previous one.
    ///
    /// Only for actors with [`Actor::RECEIVE_TIMEOUT`] set (a compile error otherwise).
    pub fn set_receive_timeout(
        &mut self,
        after: Duration,
        make: impl FnMut() -> A::Msg + Send + 'static,
    ) {
        const {
            assert!(
                A::RECEIVE_TIMEOUT,
                "set_receive_timeout needs `const RECEIVE_TIMEOUT: bool = true` in the Actor impl"
            )
        };
        let local = Local::get(self.local);
        let generation = match local.timeout.take() {
            Some(old) => old.cancel(self.header.runtime()),
            None => 0,
        };
        let mut timeout = ReceiveTimeout::new(after, Box::new(make), generation);
        timeout.arm(self.header);
        local.timeout = Some(timeout);
    }

    /// Clears the receive timeout (a pending one never fires).
    pub fn clear_receive_timeout(&mut self) {
        if let Some(timeout) = self.local.as_mut().and_then(|l| l.timeout.take()) {
            timeout.cancel(self.header.runtime());
        }
    }

    /// Spawns an actor on the same runtime.
    pub fn spawn<B: Actor>(&self, actor: B) -> Addr<B::Msg> {
        crate::spawn(self.runtime(), actor)
    }

    /// Links this actor with `other`: when either stops abnormally, the other stops with the same
    /// reason (unless it traps exits). Linking to a stopped actor delivers an exit signal with
    /// [`ExitReason::AlreadyExited`] at once.
    pub fn link(&mut self, other: impl Into<AnyAddr>) {
        let other = other.into();
        let me = AnyAddr::from(&self.myself());
        if other.signal(Signal::Link(me)) {
            self.relations().links.push(other);
        } else {
            let id = other.id();
            self.myself().to_any().signal(Signal::Exit(ExitSignal {
                from: id,
                reason: ExitReason::AlreadyExited,
            }));
        }
    }

    /// Removes the link with `other` (both directions).
    pub fn unlink(&mut self, other: &AnyAddr) {
        let id = other.id();
        self.relations().links.retain(|a| a.id() != id);
        other.signal(Signal::Unlink(self.id()));
    }

    /// Monitors `other`: when it stops, this actor's [`Actor::on_down`] gets a [`Down`] with the
    /// reason (at once, with [`ExitReason::AlreadyExited`], if it already has).
    pub fn monitor(&mut self, other: impl Into<AnyAddr>) {
        let other = other.into();
        let me = AnyAddr::from(&self.myself());
        if !other.signal(Signal::Monitor(me)) {
            self.myself().to_any().signal(Signal::Down(Down {
                id: other.id(),
                reason: ExitReason::AlreadyExited,
            }));
        }
    }

    /// Stops monitoring `other`.
    pub fn demonitor(&mut self, other: &AnyAddr) {
        other.signal(Signal::Demonitor(self.id()));
    }

    /// Whether exit signals from linked actors are delivered to [`Actor::on_exit`] (true) or stop
    /// this actor when abnormal (false, the default).
    pub fn trap_exit(&mut self, trap: bool) {
        self.relations().trap_exit = trap;
    }

    /// Asks `target` without blocking: `make` builds the request around a [`Reply`]; when the reply
    /// arrives (or the request fails or times out), `then` turns the outcome into a message to this
    /// actor.
    pub fn ask<M: Send + 'static, R: Send + 'static>(
        &self,
        target: &Addr<M>,
        make: impl FnOnce(Reply<R>) -> M,
        timeout: Duration,
        then: impl FnOnce(Result<R, AskError>) -> A::Msg + Send + 'static,
    ) {
        let me = self.myself();
        target.ask(make, timeout).then(move |result| {
            let _ = me.tell(then(result));
        });
    }
}
