//! The [`Actor`] trait and the [`Context`] its handlers get.

use std::time::Duration;

use motet_runtime::Handle;

use crate::addr::{Addr, AnyAddr};
use crate::ask::{AskError, Reply};
use crate::cell::{Header, Relations};
use crate::envelope::Signal;
use crate::exit::{ActorId, Down, ExitReason, ExitSignal};

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
pub trait Actor: Send + Sized + 'static {
    /// The messages this actor accepts (typically an enum).
    type Msg: Send + 'static;

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
    relations: &'a mut Option<Box<Relations>>,
    stop: Option<ExitReason>,
}

impl<'a, A: Actor> Context<'a, A> {
    pub(crate) fn new(
        header: &'a Header<A::Msg>,
        relations: &'a mut Option<Box<Relations>>,
    ) -> Context<'a, A> {
        Context {
            header,
            relations,
            stop: None,
        }
    }

    pub(crate) fn take_stop(&mut self) -> Option<ExitReason> {
        self.stop.take()
    }

    /// Whether a handler asked to stop: a load, where [`Context::take_stop`] also writes.
    #[inline(always)]
    pub(crate) fn stop_requested(&self) -> bool {
        self.stop.is_some()
    }

    fn relations(&mut self) -> &mut Relations {
        self.relations.get_or_insert_with(Default::default)
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
        self.stop = Some(ExitReason::Normal);
    }

    /// Stops the actor with `reason` after the current handler returns. An abnormal reason propagates
    /// to linked actors.
    pub fn stop_with(&mut self, reason: ExitReason) {
        self.stop = Some(reason);
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
