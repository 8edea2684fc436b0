//! Scoped actors (CAF's `scoped_actor`): a plain thread (`main`, a test, a thread of another
//! library) that acts as an actor for messages of one type.
//!
//! A [`ScopedActor<M>`] is an actor cell like any other, so its [`Addr<M>`] is an ordinary
//! address; but no runtime worker runs it: the thread that owns the value takes its messages with
//! [`ScopedActor::recv`] and its variants, blocking on a condition variable while the mailbox is
//! empty (the push that finds it idle schedules the actor's runnable on the runtime, whose worker
//! hands it back to the thread: see [`crate::home`]).

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::{Duration, Instant};

use motet_runtime::task::{Running, Task, Turn};
use motet_runtime::{Handle, Runnable};

use crate::addr::{Addr, AnyAddr};
use crate::blocks::Blocks;
use crate::cell::{send_home, Extra, Header, Local, Relations};
use crate::envelope::{Envelope, Signal};
use crate::exit::{ActorId, Down, ExitReason, ExitSignal};
use crate::home::{Home, Taken};
use crate::lazy::Lazy;
use crate::mailbox::Pop;

/// What a scoped actor receives: a message, or news of an actor it links or monitors.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<M> {
    /// A message sent to its address.
    Msg(M),
    /// A monitored actor stopped ([`ScopedActor::monitor`]).
    Down(Down),
    /// A linked actor stopped ([`ScopedActor::link`]). A scoped actor always traps exits: an
    /// abnormal reason does not end its thread; it is reported here for the thread to act on.
    Exit(ExitSignal),
    /// Someone asked this scoped actor to stop ([`Addr::kill`]); the reason becomes its exit reason
    /// (see [`ScopedActor::set_exit_reason`]), reported to its links and monitors when it is dropped.
    Stop(ExitReason),
}

/// The task kind of a scoped actor's cell: a waking push schedules it on the runtime, whose
/// worker hands it to the owning thread.
struct ScopedTask<M>(PhantomData<fn() -> M>);

impl<M: Send + 'static> Task for ScopedTask<M> {
    type Shared = Header<M>;
    type Private = ();

    fn run(task: Running<Self>) -> Turn<Header<M>> {
        send_home(task.into_runnable());
        Turn::Idle
    }

    fn shutdown(task: Running<Self>) {
        // The runtime's shutdown does not end a scoped actor: its owner still receives.
        send_home(task.into_runnable());
    }

    fn placed(header: &mut Header<M>) {
        // Owned by its thread from the start: not idle.
        header.mailbox.link(false);
    }
}

/// A thread acting as an actor for messages of type `M` (CAF's `scoped_actor`).
///
/// It has an address ([`ScopedActor::addr`]), receives with or without a timeout, links and
/// monitors other actors (their exits and downs arrive as [`Event`]s), and asks with
/// [`Addr::ask`]`(..).wait()`. Dropping it is the actor's exit: with [`ExitReason::Normal`] unless
/// [`ScopedActor::set_exit_reason`] (or a kill) set another, seen by its links and monitors;
/// messages still queued are dropped.
///
/// ```
/// use std::time::Duration;
/// use motet_actor::{Event, ScopedActor};
///
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let mut me = ScopedActor::<u32>::new(rt.handle());
/// me.addr().tell(7).unwrap();
/// assert_eq!(me.recv_timeout(Duration::from_secs(5)), Some(Event::Msg(7)));
/// assert_eq!(me.try_recv(), None);
/// ```
pub struct ScopedActor<M: Send + 'static> {
    header: NonNull<Header<M>>,
    /// The actor's runnable, held by the owner except while it waits in a receive.
    runnable: Option<Runnable<Header<M>>>,
    home: Arc<Home<M>>,
    local: Option<Box<Local<M>>>,
    reason: ExitReason,
}

// SAFETY: the value may move to another thread with everything it owns (the runnable and the
// consumer end of the mailbox, used only through `&mut self`); messages are `Send`.
unsafe impl<M: Send + 'static> Send for ScopedActor<M> {}

impl<M: Send + 'static> ScopedActor<M> {
    /// A scoped actor on `runtime` (which its asks' timers and the actors it talks to use).
    pub fn new(runtime: &Handle) -> ScopedActor<M> {
        let home = Home::new();
        let extra = Lazy::new(Extra::new(Some(home.clone()), false, None, None));
        let runnable =
            Runnable::new_in_with::<ScopedTask<M>, Blocks>(|| (Header::new(runtime, extra), ()));
        let header = NonNull::from(&*runnable);
        // The owner holds `LIFE` (and the runnable), not an address: the actor is unreachable
        // when no address to it is left.
        // SAFETY: the runnable keeps the cell alive.
        unsafe { header.as_ref() }.forget_first_address();
        ScopedActor {
            header,
            runnable: Some(runnable),
            home,
            local: None,
            reason: ExitReason::Normal,
        }
    }

    fn header(&self) -> &Header<M> {
        // SAFETY: the cell lives at least as long as `LIFE`, which this value holds until dropped.
        unsafe { self.header.as_ref() }
    }

    /// The actor's address.
    pub fn addr(&self) -> Addr<M> {
        self.header().retain();
        Addr::from_header(self.header)
    }

    /// The actor's identity.
    pub fn id(&self) -> ActorId {
        self.header().id
    }

    /// Sets the exit reason its links and monitors see when it is dropped.
    pub fn set_exit_reason(&mut self, reason: ExitReason) {
        self.reason = reason;
    }

    /// Waits for the next event. `None` once no address to this actor is left and nothing is
    /// queued: nobody can send to it any more.
    pub fn recv(&mut self) -> Option<Event<M>> {
        self.recv_until(None)
    }

    /// Waits at most `timeout` for the next event; `None` if none came (or, as for
    /// [`ScopedActor::recv`], none can come).
    pub fn recv_timeout(&mut self, timeout: Duration) -> Option<Event<M>> {
        self.recv_until(Some(Instant::now() + timeout))
    }

    /// The next event if one is queued.
    pub fn try_recv(&mut self) -> Option<Event<M>> {
        self.recv_until(Some(Instant::now()))
    }

    fn recv_until(&mut self, deadline: Option<Instant>) -> Option<Event<M>> {
        loop {
            // SAFETY: the owner is the mailbox's single consumer (`&mut self`).
            match unsafe { self.header().mailbox.pop() } {
                Pop::Item(env) => {
                    if let Some(event) = self.on_envelope(env) {
                        return Some(event);
                    }
                    continue;
                }
                Pop::Inconsistent => {
                    crate::sync::spin();
                    continue;
                }
                Pop::Empty => {}
            }
            if self.header().unreachable() {
                // The pop above may predate the last holder's final push: look once more.
                // SAFETY: single consumer.
                match unsafe { self.header().mailbox.pop() } {
                    Pop::Empty => return None,
                    Pop::Item(env) => {
                        if let Some(event) = self.on_envelope(env) {
                            return Some(event);
                        }
                    }
                    Pop::Inconsistent => crate::sync::spin(),
                }
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            let runnable = self.runnable.take().expect("the owner holds the runnable");
            // SAFETY: single consumer, holding the runnable, having found the mailbox empty.
            if let Err(runnable) = unsafe { self.header().park_idle(runnable) } {
                self.runnable = Some(runnable);
                continue;
            }
            match self.home.take(deadline) {
                Taken::Runnable(runnable) => self.runnable = Some(runnable),
                Taken::TimedOut => self.reclaim(),
                Taken::Done => unreachable!("only dropping the scoped actor stops it"),
            }
        }
    }

    /// Takes the runnable back after a wait that timed out: a push clears the idle mark and hands
    /// the runnable home (this one, or one that came meanwhile).
    fn reclaim(&mut self) {
        // The mailbox is open (only `drop` closes it), so the push succeeds.
        let _ = self.header().push(Envelope::System(Box::new(Signal::Wake)));
        match self.home.take(None) {
            Taken::Runnable(runnable) => self.runnable = Some(runnable),
            Taken::Done | Taken::TimedOut => {
                unreachable!("a wait without deadline on a live actor")
            }
        }
    }

    fn relations(&mut self) -> &mut Relations {
        &mut Local::get(&mut self.local).relations
    }

    fn on_envelope(&mut self, env: Envelope<M>) -> Option<Event<M>> {
        let signal = match env {
            Envelope::User(msg) => return Some(Event::Msg(msg)),
            Envelope::UserWithRef(msg) => {
                self.header().release_carried();
                return Some(Event::Msg(msg));
            }
            Envelope::System(signal) => *signal,
        };
        match signal {
            Signal::Link(other) => self.relations().links.push(other),
            Signal::Unlink(id) => self.relations().links.retain(|a| a.id() != id),
            Signal::Monitor(observer) => self.relations().monitors.push(observer),
            Signal::Demonitor(id) => self.relations().monitors.retain(|a| a.id() != id),
            Signal::Watch(slot) => self.relations().watchers.push(slot),
            Signal::Exit(exit) => {
                self.relations().links.retain(|a| a.id() != exit.from);
                return Some(Event::Exit(exit));
            }
            Signal::Down(down) => return Some(Event::Down(down)),
            Signal::Stop(reason) => {
                self.reason = reason.clone();
                return Some(Event::Stop(reason));
            }
            Signal::Restart | Signal::IdleCheck(_) | Signal::Urgent | Signal::Wake => {}
            // Everything queued before it has been received: dropping it runs its closure.
            Signal::Barrier(barrier) => drop(barrier),
        }
        None
    }

    /// Links with `other`: when `other` stops, an [`Event::Exit`] arrives; when this scoped actor is
    /// dropped with an abnormal reason, `other` stops too (unless it traps exits). Linking to a
    /// stopped actor delivers an exit with [`ExitReason::AlreadyExited`].
    pub fn link(&mut self, other: impl Into<AnyAddr>) {
        let other = other.into();
        let me = AnyAddr::from_header(self.header());
        if other.signal(Signal::Link(me)) {
            self.relations().links.push(other);
        } else {
            let id = other.id();
            let _ = self
                .header()
                .push(Envelope::System(Box::new(Signal::Exit(ExitSignal {
                    from: id,
                    reason: ExitReason::AlreadyExited,
                }))));
        }
    }

    /// Removes the link with `other` (both directions).
    pub fn unlink(&mut self, other: &AnyAddr) {
        let id = other.id();
        self.relations().links.retain(|a| a.id() != id);
        other.signal(Signal::Unlink(self.id()));
    }

    /// Monitors `other`: when it stops, an [`Event::Down`] arrives (at once, with
    /// [`ExitReason::AlreadyExited`], if it already has).
    pub fn monitor(&mut self, other: impl Into<AnyAddr>) {
        let other = other.into();
        let me = AnyAddr::from_header(self.header());
        if !other.signal(Signal::Monitor(me)) {
            let _ = self
                .header()
                .push(Envelope::System(Box::new(Signal::Down(Down {
                    id: other.id(),
                    reason: ExitReason::AlreadyExited,
                }))));
        }
    }

    /// Stops monitoring `other`.
    pub fn demonitor(&mut self, other: &AnyAddr) {
        other.signal(Signal::Demonitor(self.id()));
    }
}

impl<M: Send + 'static> Drop for ScopedActor<M> {
    fn drop(&mut self) {
        if self.runnable.is_none() {
            // A receive was left by a panic while the runnable was parked.
            self.reclaim();
        }
        let mut local = self.local.take();
        // SAFETY: the owner is the single consumer.
        unsafe { self.header().close_mailboxes(&mut local, true) };
        self.header().notify(local, &self.reason);
        let runnable = self.runnable.take().expect("the owner holds the runnable");
        // SAFETY: the mailbox is closed; the runnable is this cell's; `self` is not used again.
        unsafe { Header::retire(self.header, runnable) };
    }
}
