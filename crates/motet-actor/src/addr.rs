//! Actor addresses: the typed [`Addr<M>`] and the type-erased [`AnyAddr`] used by links and monitors.

use std::fmt;
use std::ptr::NonNull;
use std::time::Duration;

use crate::ask::{Ask, AskError, Reply};
use crate::bounded::TrySendError;
use crate::cell::Header;
use crate::envelope::{Barrier, Envelope, Signal};
use crate::exit::{ActorId, ExitReason};
use crate::mailbox::{Node, Push};
use crate::oneshot::Slot;
use crate::watch::ExitWatch;

/// The address of an actor that accepts messages of type `M`.
///
/// Cloning an address is one atomic increment. An actor is freed when no address to it remains and
/// its mailbox is empty (it then stops with [`ExitReason::Unreachable`]); an actor that holds its own
/// address in its state keeps itself alive until it stops.
///
/// The message type is part of the address's type, so a message of another type is rejected at
/// compile time. This compiles:
///
/// ```
/// use motet_actor::{spawn, Actor, Context};
///
/// struct Counter(u64);
/// impl Actor for Counter {
///     type Msg = u64;
///     fn handle(&mut self, _ctx: &mut Context<'_, Self>, n: u64) {
///         self.0 += n;
///     }
/// }
///
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let counter = spawn(rt.handle(), Counter(0));
/// counter.tell(7).unwrap();
/// ```
///
/// and the same program sending a string to the `Addr<u64>` does not:
///
/// ```compile_fail,E0308
/// use motet_actor::{spawn, Actor, Context};
///
/// struct Counter(u64);
/// impl Actor for Counter {
///     type Msg = u64;
///     fn handle(&mut self, _ctx: &mut Context<'_, Self>, n: u64) {
///         self.0 += n;
///     }
/// }
///
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let counter = spawn(rt.handle(), Counter(0));
/// counter.tell("seven").unwrap(); // error[E0308]: mismatched types
/// ```
pub struct Addr<M: Send + 'static> {
    header: NonNull<Header<M>>,
}

// SAFETY: an address only pushes `M: Send` values into a lock-free mailbox and reads immutable header
// fields; the cell it points to is kept alive by the reference the address holds.
unsafe impl<M: Send + 'static> Send for Addr<M> {}
// SAFETY: as above; every operation through `&Addr` is thread-safe.
unsafe impl<M: Send + 'static> Sync for Addr<M> {}

/// A message that could not be delivered because the actor had stopped (or, from [`Addr::tell`],
/// because its bounded mailbox was full); holds the message.
#[derive(PartialEq, Eq)]
pub struct SendError<M>(pub M);

impl<M> fmt::Debug for SendError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SendError(..)")
    }
}

impl<M> fmt::Display for SendError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the actor has stopped or its bounded mailbox is full")
    }
}

impl<M> std::error::Error for SendError<M> {}

impl<M: Send + 'static> Addr<M> {
    /// Wraps a header pointer whose reference the caller transfers to the address.
    pub(crate) fn from_header(header: NonNull<Header<M>>) -> Addr<M> {
        Addr { header }
    }

    pub(crate) fn header(&self) -> &Header<M> {
        // SAFETY: the address holds a reference, so the cell is alive.
        unsafe { self.header.as_ref() }
    }

    /// Sends `msg`. Returns it back if the actor has stopped, or if its bounded mailbox
    /// ([`Spawn::bounded`](crate::Spawn::bounded)) is full ([`Addr::try_tell`] tells the two apart;
    /// [`Addr::send_async`] and [`Addr::tell_timeout`] wait for room).
    ///
    /// ```
    /// # use motet_actor::{Actor, Context, spawn};
    /// # struct Sink; impl Actor for Sink { type Msg = u32; fn handle(&mut self, _: &mut Context<'_, Self>, _: u32) {} }
    /// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
    /// let addr = spawn(rt.handle(), Sink);
    /// assert!(addr.tell(7).is_ok());
    /// ```
    // Always inlined, with `Header::push`: a handler's sends then cost no call, no saved
    // registers and no result written through memory (measured on threadring, count and sor;
    // see docs/measurements/2026-11-29-hot-path-choices.md).
    #[inline(always)]
    pub fn tell(&self, msg: M) -> Result<(), SendError<M>> {
        match self.header().push(Envelope::User(msg)) {
            Ok(()) => Ok(()),
            Err(Envelope::User(m)) => Err(SendError(m)),
            Err(_) => unreachable!("pushed a user message"),
        }
    }

    /// Sends `msg` as an urgent message: an actor that takes them ([`Actor::PRIORITIES`]) handles
    /// its queued urgent messages before its queued normal ones, and urgent messages from one sender
    /// in the order sent. System signals (links, monitors, exits, [`Addr::kill`]) travel with the
    /// normal messages, so an urgent message also overtakes the signals queued before it. To an
    /// actor that does not take urgent messages, this is a plain [`Addr::tell`].
    ///
    /// ```
    /// # use motet_actor::{Actor, Context, spawn};
    /// struct Worker;
    /// impl Actor for Worker {
    ///     type Msg = &'static str;
    ///     const PRIORITIES: bool = true;
    ///     fn handle(&mut self, _: &mut Context<'_, Self>, _: &'static str) {}
    /// }
    /// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
    /// let worker = spawn(rt.handle(), Worker);
    /// assert!(worker.tell_urgent("cancel").is_ok());
    /// ```
    ///
    /// [`Actor::PRIORITIES`]: crate::Actor::PRIORITIES
    pub fn tell_urgent(&self, msg: M) -> Result<(), SendError<M>> {
        let Some(urgent) = self.header().urgent() else {
            return self.tell(msg);
        };
        match urgent.push(Node::new(msg)) {
            Push::Closed(node) => Err(SendError(node.into_value())),
            Push::Pushed { .. } => {
                // Wakes the actor. If it stopped meanwhile, its stop drains the urgent queue: the
                // message was accepted and is dropped with it, as a normal one would be.
                let _ = self
                    .header()
                    .push(Envelope::System(Box::new(Signal::Urgent)));
                Ok(())
            }
        }
    }

    /// Sends `msg` and gives up this address in the same step (the reply-to pattern: answer the
    /// address a request carried, then drop it). Cheaper than `tell` followed by a drop: the address's
    /// reference travels with the message and the actor releases it when it handles the message, so
    /// dropping what may be an actor's last address costs no extra synchronisation.
    ///
    /// ```
    /// # use motet_actor::{Actor, Context, spawn};
    /// # struct Sink; impl Actor for Sink { type Msg = u32; fn handle(&mut self, _: &mut Context<'_, Self>, _: u32) {} }
    /// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
    /// let addr = spawn(rt.handle(), Sink);
    /// assert!(addr.send(7).is_ok()); // `addr` is gone; the actor, now unreachable, stops after it
    /// rt.wait_quiescent();
    /// ```
    #[inline]
    pub fn send(self, msg: M) -> Result<(), SendError<M>> {
        let header = self.header;
        // The reference is handed to the envelope (or released below if the push fails).
        std::mem::forget(self);
        // SAFETY: the reference we hold keeps the header alive.
        match unsafe { header.as_ref() }.push(Envelope::UserWithRef(msg)) {
            Ok(()) => Ok(()),
            Err(Envelope::UserWithRef(m)) => {
                // SAFETY: the push failed, so we still own the reference; it is given up here.
                unsafe { Header::release(header) };
                Err(SendError(m))
            }
            Err(_) => unreachable!("pushed a user message"),
        }
    }

    /// Sends a request built by `make` around a [`Reply`] handle, and returns an [`Ask`] that completes
    /// with the reply, or with an error after `timeout`, if the actor stopped, if its bounded
    /// mailbox was full ([`AskError::Full`]: not sent), or if it dropped the reply handle without
    /// answering. A reply arriving after the timeout is dropped.
    ///
    /// Await the [`Ask`] from async code or call [`Ask::wait`] from a plain thread; from inside an
    /// actor, use [`Context::ask`](crate::Context::ask), which does not block the worker.
    pub fn ask<R: Send + 'static>(
        &self,
        make: impl FnOnce(Reply<R>) -> M,
        timeout: Duration,
    ) -> Ask<R> {
        let runtime = self.header().runtime().clone();
        let (reply, ask) = crate::ask::pair(runtime, timeout);
        match self.try_tell(make(reply)) {
            Ok(()) => {}
            Err(TrySendError::Stopped(msg)) => {
                ask.fail_stopped();
                drop(msg);
            }
            Err(TrySendError::Full(msg)) => {
                ask.fail(AskError::Full);
                drop(msg);
            }
        }
        ask
    }

    /// Stops the actor with [`ExitReason::Killed`] once it has processed the messages sent before.
    /// Returns false if it had already stopped.
    pub fn kill(&self) -> bool {
        self.header()
            .push(Envelope::System(Box::new(Signal::Stop(ExitReason::Killed))))
            .is_ok()
    }

    /// A handle that completes with the actor's exit reason once it stops (with
    /// [`ExitReason::AlreadyExited`] if it already has).
    pub fn watch(&self) -> ExitWatch {
        let slot = Slot::new();
        let runtime = self.header().runtime().clone();
        if self
            .header()
            .push(Envelope::System(Box::new(Signal::Watch(slot.clone()))))
            .is_err()
        {
            let _ = slot.complete(ExitReason::AlreadyExited);
        }
        ExitWatch::new(slot, runtime)
    }

    /// The actor's identity.
    pub fn id(&self) -> ActorId {
        self.header().id
    }

    /// Whether the actor has stopped (its mailbox is closed).
    pub fn is_stopped(&self) -> bool {
        self.header().mailbox.is_closed()
    }

    /// A type-erased address of the same actor, for links and monitors.
    pub fn to_any(&self) -> AnyAddr {
        self.header().retain();
        AnyAddr {
            ptr: self.header.cast(),
            ops: Header::<M>::ANY_OPS,
        }
    }
}

impl<M: Send + 'static> Clone for Addr<M> {
    #[inline]
    fn clone(&self) -> Addr<M> {
        self.header().retain();
        Addr {
            header: self.header,
        }
    }
}

impl<M: Send + 'static> Drop for Addr<M> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: this address owns one reference, given up here and never used again.
        unsafe { Header::release(self.header) };
    }
}

impl<M: Send + 'static> PartialEq for Addr<M> {
    fn eq(&self, other: &Addr<M>) -> bool {
        self.header == other.header
    }
}

impl<M: Send + 'static> Eq for Addr<M> {}

impl<M: Send + 'static> fmt::Debug for Addr<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Addr({})", self.id())
    }
}

/// The operations of an erased address, one static table per message type.
pub(crate) struct AnyOps {
    pub(crate) push_signal: unsafe fn(NonNull<u8>, Box<Signal>) -> bool,
    pub(crate) retain: unsafe fn(NonNull<u8>),
    pub(crate) release: unsafe fn(NonNull<u8>),
    pub(crate) id: unsafe fn(NonNull<u8>) -> ActorId,
}

/// An address of an actor of any message type; it can only carry system signals (links, monitors,
/// exits). Obtained from [`Addr::to_any`].
pub struct AnyAddr {
    ptr: NonNull<u8>,
    ops: &'static AnyOps,
}

// SAFETY: as for `Addr`: the erased operations are the thread-safe ones of `Addr<M>`.
unsafe impl Send for AnyAddr {}
// SAFETY: as above.
unsafe impl Sync for AnyAddr {}

impl AnyAddr {
    /// A new address of the actor whose header this is.
    pub(crate) fn from_header<M: Send + 'static>(header: &Header<M>) -> AnyAddr {
        header.retain();
        AnyAddr {
            ptr: NonNull::from(header).cast(),
            ops: Header::<M>::ANY_OPS,
        }
    }

    /// The actor's identity.
    pub fn id(&self) -> ActorId {
        // SAFETY: the address holds a reference; `ops` matches the pointee's message type.
        unsafe { (self.ops.id)(self.ptr) }
    }

    /// Stops the actor with [`ExitReason::Killed`]; false if it had already stopped.
    pub fn kill(&self) -> bool {
        self.signal(Signal::Stop(ExitReason::Killed))
    }

    /// Runs `f` once the actor has handled every message queued to it before this call, or has
    /// dropped them by stopping: a barrier in its mailbox. It runs on the actor's thread when the
    /// actor reaches it, on the thread that stops the actor if it stops first, or here at once if
    /// it has already stopped; exactly once in every case. A panic in `f` goes no further than
    /// the panic hook.
    ///
    /// For code that must act only after what was sent before has gone through an actor: a
    /// forwarding actor flushed before a report that must not overtake what it forwarded.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use motet_actor::{spawn, Actor, Context};
    ///
    /// struct Log(mpsc::Sender<u32>);
    /// impl Actor for Log {
    ///     type Msg = u32;
    ///     fn handle(&mut self, _: &mut Context<'_, Self>, n: u32) {
    ///         let _ = self.0.send(n);
    ///     }
    /// }
    ///
    /// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// let log = spawn(rt.handle(), Log(tx.clone()));
    /// for n in 0..3 {
    ///     log.tell(n).unwrap();
    /// }
    /// log.to_any().after_pending(move || {
    ///     let _ = tx.send(99);
    /// });
    /// let seen: Vec<u32> = rx.iter().take(4).collect();
    /// assert_eq!(seen, [0, 1, 2, 99]);
    /// ```
    pub fn after_pending(&self, f: impl FnOnce() + Send + 'static) {
        // A push to a stopped actor drops the signal, and with it the barrier, which runs `f`.
        self.signal(Signal::Barrier(Barrier::new(f)));
    }

    /// Pushes a system signal; false if the actor had stopped.
    pub(crate) fn signal(&self, signal: Signal) -> bool {
        // SAFETY: as in `id`.
        unsafe { (self.ops.push_signal)(self.ptr, Box::new(signal)) }
    }
}

impl Clone for AnyAddr {
    fn clone(&self) -> AnyAddr {
        // SAFETY: as in `id`.
        unsafe { (self.ops.retain)(self.ptr) };
        AnyAddr {
            ptr: self.ptr,
            ops: self.ops,
        }
    }
}

impl Drop for AnyAddr {
    fn drop(&mut self) {
        // SAFETY: this address owns one reference, given up here.
        unsafe { (self.ops.release)(self.ptr) }
    }
}

impl fmt::Debug for AnyAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AnyAddr({})", self.id())
    }
}

impl<M: Send + 'static> From<&Addr<M>> for AnyAddr {
    fn from(addr: &Addr<M>) -> AnyAddr {
        addr.to_any()
    }
}
