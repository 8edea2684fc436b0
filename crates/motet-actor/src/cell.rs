//! The actor cell: one allocation holding the task header, the reference count, the mailbox and the
//! actor's state, and the protocol that runs it.
//!
//! # Layout
//!
//! An actor is a motet-runtime task of kind [`ActorTask<A>`]: its *shared* part is a [`Header<M>`]
//! (`M = A::Msg`: the reference count, the mailbox, the parked runnable), so an [`Addr<M>`] points
//! to the header without knowing `A`; its *private* part is the [`Inner<A>`] only turns touch. The
//! runtime allocates the cell (one allocation) and frees it when the actor's runnable is dropped.
//!
//! # References and lifetime
//!
//! `refs` holds `2 * addresses + LIFE`. `LIFE` (bit 0) is set while the actor has not stopped; it is
//! owned by the actor itself, so a scheduled or running actor never needs a reference per scheduling
//! (no atomic increment per message). Every [`Addr`] and [`AnyAddr`](crate::AnyAddr) owns 2.
//!
//! - The actor is *unreachable* when `refs == LIFE`: no address is left, so nobody can send to it
//!   again (only the actor itself could create an address, and only while running a handler). A turn
//!   checks this whenever it finds the mailbox empty, and then stops the actor with
//!   [`ExitReason::Unreachable`]. (Not earlier: messages already queued must still run.)
//! - Dropping an address when `refs == LIFE + 2` (perhaps the last one) must make sure the actor
//!   notices, without allocating and without touching the cell after the actor could have stopped.
//!   The dropper sets `BUSY` in the mailbox's head word (taking over the idle mark if the actor was
//!   idle), decrements, and replaces `BUSY` by `CHECK`; if it took over the idle mark it then
//!   schedules the actor. A consumer cannot mark its mailbox idle while `BUSY` or `CHECK` is set; on
//!   `CHECK` it clears the bit and re-reads `refs`. Stopping waits for `BUSY` to clear. So either the
//!   actor sees the decrement before it goes idle, or the dropper finds it idle and wakes it.
//! - Any other drop decrements with a CAS; the one that takes `refs` to 0 frees the cell.
//! - When the actor stops, it closes the mailbox, processes what is left (answering queued links and
//!   monitors), notifies its links, monitors and watchers, parks its runnable (dead: the mailbox is
//!   closed, so nobody schedules it again) and clears `LIFE`; if that takes `refs` to 0, it frees
//!   the cell itself.
//! - *Freeing* is dropping the parked runnable, which the runtime answers by dropping the cell's
//!   parts and its memory: the one that takes `refs` to 0 takes it out of the header.
//!
//! # Scheduling
//!
//! The mailbox's idle mark is the actor's scheduling state, and the header's `runnable` slot holds
//! the actor's [`Runnable`] while the mark is set: a turn parks the runnable there before it marks
//! the mailbox idle, and the push that clears the mark takes it out and schedules it (see
//! [`crate::mailbox`]). So the slot is written and read only by whoever owns the mark. A turn processes up to `batch` messages, then yields (the worker puts it
//! at the back of its deque); if it finds the mailbox empty, it marks it idle and the turn ends. A
//! newly spawned actor starts *not idle* and is scheduled once, so that `started` runs promptly.
//!
//! The push schedules on the runtime whatever the actor. A detached actor is of a kind
//! (`ActorTask<A, _, true>`) whose `run` on a worker hands the runnable to its own thread
//! ([`send_home`]), which runs the turn; a scoped actor's kind hands it to the owning thread. So
//! a pooled actor's wake tests nothing, and the detour costs only the actors that block.

use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use motet_runtime::task::{Running, Task, Turn};
use motet_runtime::{Handle, Runnable};

use crate::actor::{Actor, Context, Pending};
use crate::addr::{Addr, AnyAddr, AnyOps};
use crate::blocks::Blocks;
use crate::bounded::{Bound, TrySendError};
use crate::envelope::{Envelope, Signal};
use crate::exit::{panic_message, ActorId, Down, ExitReason, ExitSignal};
use crate::home::{run_detached, Home, HomeTurn};
use crate::ids::next_id;
use crate::lazy::Lazy;
use crate::mailbox::{Mailbox, MarkIdle, Node, Pop, Push, ReleaseStart};
use crate::receive_timeout::{Check, ReceiveTimeout};
use crate::stash::{Stash, DEFAULT_STASH_CAPACITY};
use crate::supervisor::{Decision, Supervision};
use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::UnsafeCell;

const LIFE: usize = 1;
const ONE_ADDR: usize = 2;
/// How often a turn re-checks a half-finished push before yielding.
const INCONSISTENT_SPINS: u32 = 64;

/// The part of a cell that addresses see: the task's shared part.
pub(crate) struct Header<M> {
    refs: AtomicUsize,
    pub(crate) id: ActorId,
    runtime: Handle,
    pub(crate) mailbox: Mailbox<Envelope<M>>,
    /// The actor's runnable while the mailbox is marked idle, or once the actor has stopped (see
    /// the module docs); empty (uninitialised) while the actor is scheduled or running. Never
    /// dropped with the header: a parked runnable is taken out by whoever frees the cell.
    runnable: UnsafeCell<MaybeUninit<Runnable<Header<M>>>>,
    /// What only detached, scoped, bounded and priority-taking actors have; `None` for a plain
    /// actor. Never read on a plain actor's wake or turn (the task kind and the `BOUNDED` and
    /// `PRIORITIES` constants say where it is needed).
    pub(crate) extra: Lazy<Extra<M>>,
}

/// The parts of a header that plain actors do without.
pub(crate) struct Extra<M> {
    /// Where a waking push hands the runnable (detached and scoped actors).
    pub(crate) home: Option<std::sync::Arc<Home<M>>>,
    /// Urgent messages ([`Addr::tell_urgent`]), for actors with [`Actor::PRIORITIES`]. A second
    /// mailbox that is never marked idle: an urgent send pushes here, then pushes
    /// [`Signal::Urgent`] into the main mailbox, which wakes the actor and is ignored by it.
    pub(crate) urgent: Option<Box<Mailbox<M>>>,
    /// The count of a bounded mailbox ([`Spawn::bounded`](crate::Spawn::bounded)).
    pub(crate) bound: Option<Bound>,
}

impl<M: Send + 'static> Extra<M> {
    #[inline(always)]
    pub(crate) fn new(
        home: Option<std::sync::Arc<Home<M>>>,
        priorities: bool,
        bound: Option<usize>,
    ) -> Option<Box<Extra<M>>> {
        if home.is_none() && !priorities && bound.is_none() {
            return None;
        }
        Self::make(home, priorities, bound)
    }

    #[cold]
    #[inline(never)]
    fn make(
        home: Option<std::sync::Arc<Home<M>>>,
        priorities: bool,
        bound: Option<usize>,
    ) -> Option<Box<Extra<M>>> {
        let urgent = priorities.then(|| {
            // SAFETY: linked at once, in its box, where it stays.
            let mut queue = Box::new(unsafe { Mailbox::unlinked() });
            queue.link(false);
            queue
        });
        let bound = bound.map(Bound::new);
        Some(Box::new(Extra {
            home,
            urgent,
            bound,
        }))
    }

    /// Closes the urgent queue (dropping what it holds) and fails the senders waiting for room.
    /// Called by the mailboxes' single consumer, once, when the actor stops.
    #[cold]
    #[inline(never)]
    fn close(&self) {
        if let Some(home) = &self.home {
            // The thread ends once the stopping turn returns.
            home.finish();
        }
        if let Some(bound) = &self.bound {
            // Senders waiting for room find the actor stopped.
            bound.wake_all();
        }
        if let Some(urgent) = &self.urgent {
            // SAFETY: the urgent queue's consumer is the main mailbox's, which is calling.
            unsafe {
                urgent.close(|msg| {
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(msg)));
                })
            };
        }
    }
}

// SAFETY: the runnable slot is touched only by the owner of the mailbox's idle mark (or, once the
// actor stopped, by whoever takes `refs` to 0), which the mailbox's atomic head word makes one
// thread at a time; every other field is thread-safe.
unsafe impl<M: Send> Sync for Header<M> {}
// SAFETY: as above; messages are `Send`.
unsafe impl<M: Send> Send for Header<M> {}

impl<M: Send + 'static> Header<M> {
    pub(crate) const ANY_OPS: &'static AnyOps = &AnyOps {
        push_signal: any_push_signal::<M>,
        retain: any_retain::<M>,
        release: any_release::<M>,
        id: any_id::<M>,
    };

    pub(crate) fn runtime(&self) -> &Handle {
        &self.runtime
    }

    /// Puts the actor's runnable in its slot, before the idle mark that gives it away is set (or
    /// before `LIFE` is cleared at the end).
    ///
    /// # Safety
    /// The caller holds the runnable, so the slot is empty, and no one else touches the slot until
    /// the caller publishes the park.
    #[inline(always)]
    unsafe fn park(&self, runnable: Runnable<Header<M>>) {
        // SAFETY: the caller's contract: the slot is empty and ours (a plain write, no drop).
        self.runnable
            .with_mut(|slot| unsafe { (*slot).write(runnable) });
    }

    /// Takes the actor's runnable out of its slot, leaving it empty.
    ///
    /// # Safety
    /// The caller owns the slot, which holds the runnable: it cleared the idle mark (or took over
    /// the mark in the release protocol), or took `refs` to 0.
    #[inline(always)]
    unsafe fn unpark(&self) -> Runnable<Header<M>> {
        // SAFETY: the caller's contract; whoever parked it published the park with the release
        // ordering of the idle mark (or of the `LIFE` decrement), which the caller acquired.
        self.runnable
            .with_mut(|slot| unsafe { (*slot).assume_init_read() })
    }

    /// Schedules the actor, whose idle mark the caller just cleared. On the runtime, whatever
    /// the actor: the task kind of a detached or scoped actor hands the runnable to its home
    /// thread when a worker runs it ([`send_home`]), so that a pooled actor's wake tests nothing.
    ///
    /// # Safety
    /// As for [`Header::unpark`].
    #[inline(always)]
    unsafe fn schedule(&self) {
        // SAFETY: the caller's contract.
        let runnable = unsafe { self.unpark() };
        self.runtime.schedule(runnable);
    }

    /// The home thread of a detached or scoped actor.
    pub(crate) fn home(&self) -> Option<&std::sync::Arc<Home<M>>> {
        self.extra.as_ref()?.home.as_ref()
    }

    /// Gives up the first address reference, for a cell whose owner holds none (a scoped actor).
    pub(crate) fn forget_first_address(&self) {
        self.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
    }

    /// Releases the address reference an [`Envelope::UserWithRef`] carried, before its message is
    /// handled (so that a panicking handler cannot leak it): LIFE is set, so this cannot free the
    /// cell, and whether the actor became unreachable is only decided on an empty mailbox.
    #[inline(always)]
    pub(crate) fn release_carried(&self) {
        self.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
    }

    /// The urgent queue, for actors that take urgent messages.
    #[inline(always)]
    pub(crate) fn urgent(&self) -> Option<&Mailbox<M>> {
        self.extra.as_ref()?.urgent.as_deref()
    }

    /// Whether no address is left (only the actor itself holds the cell).
    pub(crate) fn unreachable(&self) -> bool {
        self.refs.load(Ordering::Acquire) == LIFE
    }

    /// A new cell's header, with one address reference. Inlined into the closure that makes the
    /// cell's parts, so that it is written straight into the block.
    #[inline(always)]
    pub(crate) fn new(runtime: &Handle, extra: Lazy<Extra<M>>) -> Header<M> {
        Header {
            refs: AtomicUsize::new(LIFE + ONE_ADDR),
            id: next_id(),
            runtime: runtime.clone(),
            // SAFETY: linked by `placed` once the header is in its cell, before any use.
            mailbox: unsafe { Mailbox::unlinked() },
            runnable: UnsafeCell::new(MaybeUninit::uninit()),
            extra,
        }
    }

    /// Closes the mailboxes and hands what was queued to `local` (links, monitors and watchers
    /// still queued as signals) or drops it. `extra` says whether the cell may have an [`Extra`]
    /// part to close (a constant of the caller's kind: a plain actor's stop does not test it).
    ///
    /// # Safety
    /// The caller is the mailbox's single consumer.
    #[inline(always)]
    pub(crate) unsafe fn close_mailboxes(&self, local: &mut Option<Box<Local<M>>>, extra: bool) {
        // SAFETY: single consumer (the caller's contract).
        unsafe {
            self.mailbox.close(|env| match env {
                Envelope::User(msg) => {
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(msg)));
                }
                Envelope::UserWithRef(msg) => {
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(msg)));
                    // LIFE is still set: this cannot reach zero.
                    self.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
                }
                Envelope::System(signal) => {
                    let rel = &mut Local::get(local).relations;
                    match *signal {
                        Signal::Link(other) => rel.links.push(other),
                        Signal::Monitor(observer) => rel.monitors.push(observer),
                        Signal::Watch(slot) => rel.watchers.push(slot),
                        _ => {}
                    }
                }
            });
        }
        if extra {
            if let Some(extra) = &*self.extra {
                extra.close();
            }
        }
    }

    /// Tells links, monitors and watchers that the actor stopped with `reason`, having cancelled
    /// its receive timeout and dropped its stash.
    #[inline(always)]
    pub(crate) fn notify(&self, local: Option<Box<Local<M>>>, reason: &ExitReason) {
        if let Some(local) = local {
            self.notify_slow(local, reason);
        }
    }

    #[cold]
    #[inline(never)]
    fn notify_slow(&self, local: Box<Local<M>>, reason: &ExitReason) {
        let me = self.id;
        let Local {
            relations: mut rel,
            stash,
            timeout,
            ..
        } = *local;
        // After the mailbox's close: the timer's address, dropped by the cancel, then takes the
        // plain release path.
        if let Some(timeout) = timeout {
            timeout.cancel(self.runtime());
        }
        let _ = catch_unwind(AssertUnwindSafe(move || drop(stash)));
        for observer in rel.monitors.drain(..) {
            observer.signal(Signal::Down(Down {
                id: me,
                reason: reason.clone(),
            }));
        }
        for link in rel.links.drain(..) {
            link.signal(Signal::Exit(ExitSignal {
                from: me,
                reason: reason.clone(),
            }));
        }
        for slot in rel.watchers.drain(..) {
            let _ = slot.complete(reason.clone());
        }
    }

    /// The last step of stopping: parks the runnable and gives up `LIFE`, freeing the cell if no
    /// address is left.
    ///
    /// # Safety
    /// The mailbox is closed (nobody schedules the actor again), `runnable` is this cell's, and
    /// the caller does not touch the cell afterwards.
    #[inline(always)]
    pub(crate) unsafe fn retire(header: NonNull<Header<M>>, runnable: Runnable<Header<M>>) {
        // SAFETY: the caller holds the runnable; with the mailbox closed nobody schedules the actor
        // again, and the slot is next read by whoever takes `refs` to 0, after the decrement below.
        unsafe { header.as_ref().park(runnable) };
        // AcqRel: Release publishes the park (and this turn's uses of the cell) to the one that
        // frees; Acquire, for this thread if it is that one, sees the other holders' uses.
        // SAFETY: the parked runnable keeps the cell alive until the count reaches 0.
        let prev = unsafe { header.as_ref() }
            .refs
            .fetch_sub(LIFE, Ordering::AcqRel);
        if prev == LIFE {
            // SAFETY: no address is left and LIFE is gone: this thread takes the count to 0.
            drop(unsafe { header.as_ref().unpark() });
        }
    }

    /// Parks the runnable of a scoped actor's owner and marks the mailbox idle.
    ///
    /// # Safety
    /// The caller is the single consumer, holds `runnable` (of this cell) and found the mailbox
    /// empty; after [`MarkIdle::Idle`] it must not touch the slot until the runnable comes back
    /// through its home.
    pub(crate) unsafe fn park_idle(
        &self,
        runnable: Runnable<Header<M>>,
    ) -> Result<(), Runnable<Header<M>>> {
        // SAFETY: the caller's contract.
        unsafe { self.park(runnable) };
        // SAFETY: single consumer.
        match unsafe { self.mailbox.try_mark_idle() } {
            MarkIdle::Idle => Ok(()),
            // SAFETY: the mark was not set: the slot is still the caller's.
            MarkIdle::Recheck | MarkIdle::Retry => Err(unsafe { self.unpark() }),
        }
    }

    /// Pushes an envelope and schedules the actor if it was idle; gives the envelope back if the
    /// actor has stopped. Always inlined (see [`Addr::tell`]).
    #[inline(always)]
    pub(crate) fn push(&self, env: Envelope<M>) -> Result<(), Envelope<M>> {
        match self.mailbox.push(Node::new(env)) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: clearing the idle mark gave this thread the slot, where the turn
                    // that set the mark parked the runnable.
                    unsafe { self.schedule() };
                }
                Ok(())
            }
            Push::Closed(node) => self.refused(node),
        }
    }

    /// The fast path refused a push: the actor stopped, or its mailbox is gated (bounded).
    #[cold]
    #[inline(never)]
    fn refused(&self, node: Box<Node<Envelope<M>>>) -> Result<(), Envelope<M>> {
        if self.bound().is_some() {
            self.push_through_gate(node).map_err(Refused::into_envelope)
        } else {
            Err(node.into_value())
        }
    }

    /// A push into a gated (bounded) mailbox: counted, refused when full (user messages only).
    #[inline(never)]
    fn push_through_gate(&self, node: Box<Node<Envelope<M>>>) -> Result<(), Refused<M>> {
        let Some(bound) = self.bound() else {
            unreachable!("only bounded mailboxes are gated")
        };
        if self.mailbox.is_closed() {
            return Err(Refused::Stopped(node.into_value()));
        }
        if matches!(node.value(), Envelope::System(_)) {
            bound.count_signal();
        } else if !bound.reserve() {
            return Err(Refused::Full(node.into_value()));
        }
        match self.mailbox.push_gated(node) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: as in `push`.
                    unsafe { self.schedule() };
                }
                Ok(())
            }
            Push::Closed(node) => {
                bound.unreserve();
                Err(Refused::Stopped(node.into_value()))
            }
        }
    }

    /// Pushes a user message, telling a full mailbox from a stopped actor.
    pub(crate) fn try_push_user(&self, msg: M) -> Result<(), TrySendError<M>> {
        let refused = match self.mailbox.push(Node::new(Envelope::User(msg))) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: as in `push`.
                    unsafe { self.schedule() };
                }
                return Ok(());
            }
            Push::Closed(node) if self.bound().is_none() => Refused::Stopped(node.into_value()),
            Push::Closed(node) => match self.push_through_gate(node) {
                Ok(()) => return Ok(()),
                Err(refused) => refused,
            },
        };
        Err(match refused {
            Refused::Full(Envelope::User(m)) => TrySendError::Full(m),
            Refused::Stopped(Envelope::User(m)) => TrySendError::Stopped(m),
            _ => unreachable!("pushed a user message"),
        })
    }

    /// The count of a bounded mailbox.
    #[inline(always)]
    pub(crate) fn bound(&self) -> Option<&Bound> {
        self.extra.as_ref()?.bound.as_ref()
    }

    #[inline]
    pub(crate) fn retain(&self) {
        // Relaxed: the caller already holds a reference, which keeps the cell alive.
        self.refs.fetch_add(ONE_ADDR, Ordering::Relaxed);
    }

    /// Gives up one address reference (see the module docs).
    ///
    /// # Safety
    /// The caller owns one reference to the live cell at `this` and does not use it afterwards.
    pub(crate) unsafe fn release(this: NonNull<Header<M>>) {
        // SAFETY: the caller's reference keeps the header alive until it is given up below.
        let header = unsafe { this.as_ref() };
        let mut refs = header.refs.load(Ordering::Acquire);
        loop {
            if refs == LIFE + ONE_ADDR {
                // Perhaps the last address of a live actor: release it under BUSY, so that the actor
                // notices (see the module docs).
                match header.mailbox.begin_release() {
                    ReleaseStart::Acquired { was_idle } => {
                        header.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
                        header.mailbox.end_release(was_idle);
                        if was_idle {
                            // SAFETY: taking over the idle mark gave this thread the slot; LIFE is
                            // set and only the actor's own turn clears it.
                            unsafe { header.schedule() };
                        }
                        return;
                    }
                    ReleaseStart::Busy => {
                        crate::sync::spin();
                        refs = header.refs.load(Ordering::Acquire);
                        continue;
                    }
                    // The actor is stopping: a plain decrement (it waits for no one).
                    ReleaseStart::Closed => {}
                }
            }
            // AcqRel: Release orders our uses of the cell before its freeing; Acquire (for the one
            // that frees) sees every other holder's uses.
            match header.refs.compare_exchange_weak(
                refs,
                refs - ONE_ADDR,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    if refs == ONE_ADDR {
                        // SAFETY: no address and no LIFE remain: the stopped actor parked its
                        // runnable before clearing LIFE, and nobody else can reach the slot.
                        drop(unsafe { header.unpark() });
                    }
                    return;
                }
                Err(actual) => refs = actual,
            }
        }
    }
}

unsafe fn any_push_signal<M: Send + 'static>(ptr: NonNull<u8>, signal: Box<Signal>) -> bool {
    // SAFETY: `AnyAddr` pairs this function with pointers to `Header<M>` and holds a reference.
    let header = unsafe { ptr.cast::<Header<M>>().as_ref() };
    header.push(Envelope::System(signal)).is_ok()
}

unsafe fn any_retain<M: Send + 'static>(ptr: NonNull<u8>) {
    // SAFETY: as above.
    unsafe { ptr.cast::<Header<M>>().as_ref() }.retain();
}

unsafe fn any_release<M: Send + 'static>(ptr: NonNull<u8>) {
    // SAFETY: as above; the caller gives up its reference.
    unsafe { Header::<M>::release(ptr.cast()) }
}

unsafe fn any_id<M: Send + 'static>(ptr: NonNull<u8>) -> ActorId {
    // SAFETY: as above.
    unsafe { ptr.cast::<Header<M>>().as_ref() }.id
}

/// Why a push was refused; holds the envelope.
enum Refused<M> {
    Stopped(Envelope<M>),
    Full(Envelope<M>),
}

impl<M> Refused<M> {
    fn into_envelope(self) -> Envelope<M> {
        match self {
            Refused::Stopped(env) | Refused::Full(env) => env,
        }
    }
}

/// Links, monitors and watchers of an actor: allocated only for actors that use them.
#[derive(Default)]
pub(crate) struct Relations {
    pub(crate) links: Vec<AnyAddr>,
    pub(crate) monitors: Vec<AnyAddr>,
    pub(crate) watchers: Vec<std::sync::Arc<crate::oneshot::Slot<ExitReason>>>,
    pub(crate) trap_exit: bool,
}

/// The per-actor state a [`Context`] reaches besides the actor: relations, stash, receive
/// timeout. One box, allocated on first use (a link, a monitor, a stash, a timeout, or a stash
/// capacity other than the default): a plain actor's cell holds one empty pointer for all of it,
/// which its spawn stores, its turns never read and its free tests once.
pub(crate) struct Local<M> {
    pub(crate) relations: Relations,
    pub(crate) stash: Stash<M>,
    pub(crate) timeout: Option<ReceiveTimeout<M>>,
    pub(crate) stash_capacity: usize,
}

impl<M> Default for Local<M> {
    fn default() -> Local<M> {
        Local {
            relations: Relations::default(),
            stash: Stash::default(),
            timeout: None,
            stash_capacity: DEFAULT_STASH_CAPACITY,
        }
    }
}

impl<M> Local<M> {
    /// The box of `local`, made if needed.
    #[inline]
    pub(crate) fn get(local: &mut Option<Box<Local<M>>>) -> &mut Local<M> {
        local.get_or_insert_with(Self::boxed)
    }

    #[cold]
    #[inline(never)]
    fn boxed() -> Box<Local<M>> {
        Box::default()
    }

    /// The spawn-time box: `relations` (links or exit trapping given at spawn) and a stash
    /// capacity other than the default; `None` when neither is there.
    #[inline(always)]
    pub(crate) fn at_spawn(
        relations: Option<Relations>,
        stash_capacity: usize,
    ) -> Option<Box<Local<M>>> {
        if relations.is_none() && stash_capacity == DEFAULT_STASH_CAPACITY {
            return None;
        }
        Self::at_spawn_slow(relations, stash_capacity)
    }

    #[cold]
    #[inline(never)]
    fn at_spawn_slow(relations: Option<Relations>, stash_capacity: usize) -> Option<Box<Local<M>>> {
        Some(Box::new(Local {
            relations: relations.unwrap_or_default(),
            stash_capacity,
            ..Local::default()
        }))
    }

    /// Counts a handled message for the receive timeout (actors with
    /// [`Actor::RECEIVE_TIMEOUT`] only).
    #[inline(always)]
    pub(crate) fn count_message(local: &mut Option<Box<Local<M>>>) {
        if let Some(timeout) = local.as_mut().and_then(|l| l.timeout.as_mut()) {
            timeout.count_message();
        }
    }
}

/// Spawn options that reach the cell.
pub(crate) struct Options {
    pub(crate) batch: u32,
    pub(crate) detached: bool,
    pub(crate) stash_capacity: usize,
    /// The capacity of a bounded mailbox; spawn with `ActorTask<A, true>` then.
    pub(crate) bound: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            batch: crate::spawn::DEFAULT_BATCH,
            detached: false,
            stash_capacity: DEFAULT_STASH_CAPACITY,
            bound: None,
        }
    }
}

/// The actor-owned part of a cell, touched only during the actor's turns.
pub(crate) struct Inner<A: Actor> {
    pub(crate) actor: Option<A>,
    pub(crate) local: Lazy<Local<A::Msg>>,
    /// A [`Lazy`]: a stopped actor's cell is freed with it empty, at the cost of a test.
    pub(crate) supervision: Lazy<Supervision<A>>,
    pub(crate) batch: u32,
    pub(crate) started: bool,
}

/// The kind of task an actor of type `A` is (see the module docs). `BOUNDED` actors' turns count
/// the messages they take off their bounded mailbox's count; plain actors' turns do not have
/// that code at all. `DETACHED` actors run on a thread of their own: when a worker runs one (a
/// waking push scheduled it), it hands the runnable to that thread ([`send_home`]), which runs the
/// turn.
pub(crate) struct ActorTask<A, const BOUNDED: bool = false, const DETACHED: bool = false>(
    PhantomData<fn() -> A>,
);

/// How a batch of messages ended.
enum TurnEnd {
    /// The runnable is parked and the mailbox marked idle: the turn has ended.
    Idle,
    Yield,
    Stop(ExitReason),
}

impl<A: Actor, const BOUNDED: bool, const DETACHED: bool> Task for ActorTask<A, BOUNDED, DETACHED> {
    type Shared = Header<A::Msg>;
    type Private = Inner<A>;

    #[inline]
    fn run(task: Running<Self>) -> Turn<Header<A::Msg>> {
        if DETACHED {
            send_home(task.into_runnable());
            return Turn::Idle;
        }
        Self::run_turn(task)
    }

    fn shutdown(task: Running<Self>) {
        if DETACHED {
            // The runtime's shutdown does not stop a detached actor: its thread runs the turn.
            send_home(task.into_runnable());
            return;
        }
        Self::finish(task, ExitReason::Shutdown, false);
    }

    fn placed(header: &mut Header<A::Msg>) {
        // A new actor starts *not idle*: it is scheduled once, so that `started` runs promptly.
        header.mailbox.link(false);
        if BOUNDED {
            header.mailbox.set_gate();
        }
    }
}

impl<A: Actor, const BOUNDED: bool, const DETACHED: bool> ActorTask<A, BOUNDED, DETACHED> {
    /// One turn of the actor, on a worker or (detached) on its own thread.
    #[inline]
    fn run_turn(task: Running<Self>) -> Turn<Header<A::Msg>> {
        // The turn holds the runnable here while it runs; it leaves `None` once it parked it and
        // marked the mailbox idle.
        let mut task = Some(task);
        let end = catch_unwind(AssertUnwindSafe(|| Self::turn(&mut task)));
        if let Ok(TurnEnd::Idle) = end {
            return Turn::Idle;
        }
        let Some(task) = task else {
            unreachable!("only an idle turn parks its runnable")
        };
        match end {
            Ok(TurnEnd::Idle) => unreachable!("handled above"),
            Ok(TurnEnd::Yield) => Turn::Yield(task.into_runnable()),
            Ok(TurnEnd::Stop(reason)) => {
                Self::finish(task, reason, true);
                Turn::Idle
            }
            Err(payload) => {
                let reason = ExitReason::Panicked(panic_message(&*payload));
                drop(payload);
                #[cfg(feature = "tracing")]
                tracing::warn!(target: "motet::actor", actor = std::any::type_name::<A>(), ?reason, "panic");
                Self::fail(task, reason)
            }
        }
    }

    /// A detached actor's turn on its own thread: the runnable back if the turn yielded.
    fn turn_at_home(runnable: Runnable<Header<A::Msg>>) -> Option<Runnable<Header<A::Msg>>> {
        match Self::run_turn(Self::resume(runnable)) {
            Turn::Idle => None,
            Turn::Yield(runnable) => Some(runnable),
        }
    }

    /// Makes and schedules a new actor; returns its first address. Always inlined, so that the
    /// options of a plain spawn fold away and a handler that spawns makes no call but the
    /// allocation's (left to the compiler, it stopped inlining this once the options grew).
    #[inline(always)]
    pub(crate) fn spawn(
        runtime: &Handle,
        actor: A,
        options: Options,
        supervision: Option<Box<Supervision<A>>>,
        relations: Option<Relations>,
    ) -> Addr<A::Msg> {
        debug_assert_eq!(BOUNDED, options.bound.is_some());
        debug_assert_eq!(DETACHED, options.detached);
        let home = if DETACHED { Some(Home::new()) } else { None };
        let extra = Lazy::new(Extra::new(home.clone(), A::PRIORITIES, options.bound));
        let local = Lazy::new(Local::at_spawn(relations, options.stash_capacity));
        // The closure below owns the parts without drop glue. With it, the allocation's unwind
        // path would drop the closure through an out-of-line call, which keeps every capture on
        // the stack (a store and a reload each, on every spawn). Only a failed allocation could
        // take that path, and the block cache then calls `handle_alloc_error`, which aborts.
        let parts = ManuallyDrop::new((actor, extra, local, Lazy::new(supervision)));
        // A scalar for the closure below, which would otherwise keep the options in memory.
        let batch = options.batch.max(1);
        // The parts are made once the cell's block is there, so that they are written into it
        // directly (see `Runnable::new_in_with`).
        // Inlined too: a closure left out of line builds the parts on the stack and copies them.
        // `move`: the batch is captured by value, not as a reference to a stack slot.
        let runnable = Runnable::new_in_with::<Self, Blocks>(
            #[inline(always)]
            move || {
                let (actor, extra, local, supervision) = ManuallyDrop::into_inner(parts);
                let header = Header::new(runtime, extra);
                let inner = Inner {
                    actor: Some(actor),
                    local,
                    supervision,
                    batch,
                    started: false,
                };
                (header, inner)
            },
        );
        // The address's reference (counted in `refs`) keeps the cell: LIFE keeps the runnable, and
        // the last of the two to go drops it (see the module docs).
        let header = NonNull::from(&*runnable);
        #[cfg(feature = "tracing")]
        tracing::trace!(target: "motet::actor", actor = std::any::type_name::<A>(), "spawn");
        match home {
            // A new task: children spawned in one turn run depth first.
            None => runtime.schedule_new(runnable),
            Some(home) => start_detached(home, runnable, Self::turn_at_home),
        }
        Addr::from_header(header)
    }

    /// One turn: up to `batch` messages.
    ///
    /// User messages take a hot loop that borrows the actor and its [`Context`] once for as
    /// long as they come, instead of once per message; a signal, an absent actor (never seen
    /// within a turn, but not assumed), an empty mailbox or a stop request leaves it. Measured
    /// with callgrind (sor, threadring), this saves the context's set-up, the actor's presence
    /// check and the copy of the stop request out of the handler's frame on every message.
    #[inline]
    fn turn(task: &mut Option<Running<Self>>) -> TurnEnd {
        let Some(running) = task.as_mut() else {
            unreachable!("a turn starts with the runnable")
        };
        let mut budget = running.private().batch;
        let (header, inner) = running.split();
        // SAFETY: detached from `task`'s borrow so that the idle mark below can park the runnable
        // while they are in scope. The cell stays alive until this turn returns (its runnable is
        // held or parked, and only this turn can drop it), and `inner` is touched by this turn
        // alone: after a successful mark the turn returns without touching either.
        let (header, inner) = unsafe {
            (
                &*(header as *const Header<A::Msg>),
                &mut *(inner as *mut Inner<A>),
            )
        };
        let mut spins = 0;
        if !inner.started {
            inner.started = true;
            let mut ctx = Context::new(header, &mut inner.local);
            if let Some(actor) = inner.actor.as_mut() {
                actor.started(&mut ctx);
                if let Some(reason) = Self::after(&mut ctx, actor) {
                    return TurnEnd::Stop(reason);
                }
            }
        }
        'turn: loop {
            if let Some(actor) = inner.actor.as_mut() {
                let mut ctx = Context::new(header, &mut inner.local);
                loop {
                    if budget == 0 {
                        return TurnEnd::Yield;
                    }
                    // Compiled out for actors that do not take urgent messages.
                    if A::PRIORITIES {
                        if let Some(msg) = Self::pop_urgent(header) {
                            budget -= 1;
                            if A::RECEIVE_TIMEOUT {
                                Local::count_message(ctx.local);
                            }
                            actor.handle(&mut ctx, msg);
                            if let Some(reason) = Self::after(&mut ctx, actor) {
                                return TurnEnd::Stop(reason);
                            }
                            continue;
                        }
                    }
                    // SAFETY: turns are the mailbox's single consumer.
                    let Some(slot) = (unsafe { header.mailbox.try_pop_in_place() }) else {
                        break;
                    };
                    budget -= 1;
                    if BOUNDED {
                        Self::took(header);
                    }
                    // SAFETY: the value is moved out once, here, before the next pop.
                    let msg = match unsafe { slot.read() } {
                        Envelope::User(msg) => msg,
                        Envelope::UserWithRef(msg) => {
                            Self::release_carried(header);
                            msg
                        }
                        Envelope::System(signal) => {
                            if let Some(reason) = Self::on_signal(header, inner, *signal) {
                                return TurnEnd::Stop(reason);
                            }
                            continue 'turn;
                        }
                    };
                    if A::RECEIVE_TIMEOUT {
                        Local::count_message(ctx.local);
                    }
                    actor.handle(&mut ctx, msg);
                    if let Some(reason) = Self::after(&mut ctx, actor) {
                        return TurnEnd::Stop(reason);
                    }
                }
            } else {
                if budget == 0 {
                    return TurnEnd::Yield;
                }
                // SAFETY: turns are the mailbox's single consumer.
                if let Some(env) = unsafe { header.mailbox.try_pop() } {
                    budget -= 1;
                    if BOUNDED {
                        Self::took(header);
                    }
                    if let Some(reason) = Self::dispatch(header, inner, env) {
                        return TurnEnd::Stop(reason);
                    }
                    continue 'turn;
                }
            }
            // Nothing completely pushed. No address left: nobody can send to this actor again.
            // Reading LIFE synchronises with every holder's last decrement, which followed its last
            // push; the pop that found nothing may predate those pushes, so look once more first.
            if header.unreachable() {
                // SAFETY: single consumer.
                match unsafe { header.mailbox.pop() } {
                    Pop::Empty => return TurnEnd::Stop(ExitReason::Unreachable),
                    Pop::Item(env) => {
                        budget -= 1;
                        if BOUNDED {
                            Self::took(header);
                        }
                        if let Some(reason) = Self::dispatch(header, inner, env) {
                            return TurnEnd::Stop(reason);
                        }
                        continue 'turn;
                    }
                    Pop::Inconsistent => {}
                }
            }
            // The mailbox looks empty: park the runnable, then mark the mailbox idle.
            let Some(running) = task.take() else {
                unreachable!("a turn holds its runnable until it parks it")
            };
            // SAFETY: this turn holds the runnable, and the slot is published only by the mark.
            unsafe { header.park(running.into_runnable()) };
            // SAFETY: single consumer; the parked runnable keeps the cell alive until the mark.
            match unsafe { header.mailbox.try_mark_idle() } {
                // From here on another thread may run this actor: touch nothing.
                MarkIdle::Idle => return TurnEnd::Idle,
                MarkIdle::Recheck => {}
                // Empty, or a push halfway (then the head has moved and marking fails: retry).
                MarkIdle::Retry => {
                    spins += 1;
                    if spins > INCONSISTENT_SPINS {
                        // SAFETY: the mark was not set: the slot is still this turn's.
                        *task = Some(Self::resume(unsafe { header.unpark() }));
                        return TurnEnd::Yield;
                    }
                    crate::sync::spin();
                }
            }
            // SAFETY: as above.
            *task = Some(Self::resume(unsafe { header.unpark() }));
        }
    }

    /// The actor's runnable, taken back from its slot, typed again to go on with the turn.
    #[cold]
    fn resume(runnable: Runnable<Header<A::Msg>>) -> Running<Self> {
        match runnable.into_running::<Self>() {
            Ok(task) => task,
            Err(_) => unreachable!("an actor's runnable is of its own kind"),
        }
    }

    #[inline(always)]
    fn release_carried(header: &Header<A::Msg>) {
        header.release_carried();
    }

    /// Handles one mailbox entry; returns a reason to stop.
    #[inline(always)]
    fn dispatch(
        header: &Header<A::Msg>,
        inner: &mut Inner<A>,
        env: Envelope<A::Msg>,
    ) -> Option<ExitReason> {
        match env {
            Envelope::User(msg) => Self::handle(header, inner, msg),
            Envelope::UserWithRef(msg) => {
                Self::release_carried(header);
                Self::handle(header, inner, msg)
            }
            Envelope::System(signal) => Self::on_signal(header, inner, *signal),
        }
    }

    #[inline(always)]
    fn handle(header: &Header<A::Msg>, inner: &mut Inner<A>, msg: A::Msg) -> Option<ExitReason> {
        let actor = inner.actor.as_mut()?;
        let mut ctx = Context::new(header, &mut inner.local);
        if A::RECEIVE_TIMEOUT {
            Local::count_message(ctx.local);
        }
        actor.handle(&mut ctx, msg);
        Self::after(&mut ctx, actor)
    }

    /// Takes one off a bounded mailbox's count.
    #[inline(always)]
    fn took(header: &Header<A::Msg>) {
        if let Some(bound) = header.bound() {
            bound.took();
        }
    }

    /// The next urgent message, for an actor that takes them.
    #[inline(always)]
    fn pop_urgent(header: &Header<A::Msg>) -> Option<A::Msg> {
        // SAFETY: turns are the urgent queue's single consumer too.
        unsafe { header.urgent()?.try_pop() }
    }

    /// Does what a handler asked for once it returned: returns a stop reason, or runs the messages
    /// it took back from the stash.
    #[inline(always)]
    fn after(ctx: &mut Context<'_, A>, actor: &mut A) -> Option<ExitReason> {
        if !ctx.has_pending() {
            return None;
        }
        // A stop first, by itself: an actor that stops after one message asks for it on every
        // spawn, and its reason then reaches the caller without a match over every request.
        if let Some(reason) = ctx.take_stop() {
            return Some(reason);
        }
        Self::after_other(ctx, actor)
    }

    /// [`Self::after`] for the requests other than a stop.
    #[cold]
    #[inline(never)]
    fn after_other(ctx: &mut Context<'_, A>, actor: &mut A) -> Option<ExitReason> {
        match ctx.take_pending() {
            Pending::None => None,
            Pending::Stop(reason) => Some(reason),
            Pending::Unstash => Self::replay(ctx, actor),
        }
    }

    /// Runs the stashed messages taken back by `unstash_all` (each of which may stash, unstash or
    /// stop in turn); returns a stop reason.
    #[cold]
    #[inline(never)]
    fn replay(ctx: &mut Context<'_, A>, actor: &mut A) -> Option<ExitReason> {
        if let Some(local) = ctx.local.as_mut() {
            local.stash.unstash_all();
        }
        loop {
            while let Some(msg) = ctx.local.as_mut().and_then(|l| l.stash.next_replay()) {
                actor.handle(ctx, msg);
                if ctx.has_pending() {
                    break;
                }
            }
            match ctx.take_pending() {
                Pending::None => return None,
                Pending::Stop(reason) => return Some(reason),
                Pending::Unstash => {
                    if let Some(local) = ctx.local.as_mut() {
                        local.stash.unstash_all();
                    }
                }
            }
        }
    }

    /// A receive-timeout timer fired (see [`ReceiveTimeout`]).
    fn idle_check(
        header: &Header<A::Msg>,
        inner: &mut Inner<A>,
        generation: u64,
    ) -> Option<ExitReason> {
        let timeout = inner.local.as_mut()?.timeout.as_mut()?;
        let check = timeout.check(generation);
        if matches!(check, Check::Stale) || header.unreachable() {
            // No address left: let the actor stop as unreachable rather than keep it alive.
            return None;
        }
        if matches!(check, Check::Busy) {
            timeout.arm(header);
            return None;
        }
        let msg = timeout.message();
        let actor = inner.actor.as_mut()?;
        let mut ctx = Context::new(header, &mut inner.local);
        actor.handle(&mut ctx, msg);
        let stop = Self::after(&mut ctx, actor);
        // Armed again unless the handler cleared or replaced it.
        if let Some(timeout) = inner.local.as_mut().and_then(|l| l.timeout.as_mut()) {
            if !timeout.is_armed() {
                timeout.arm(header);
            }
        }
        stop
    }

    fn on_signal(
        header: &Header<A::Msg>,
        inner: &mut Inner<A>,
        signal: Signal,
    ) -> Option<ExitReason> {
        match signal {
            Signal::Link(other) => relations(inner).links.push(other),
            Signal::Unlink(id) => relations(inner).links.retain(|a| a.id() != id),
            Signal::Monitor(observer) => relations(inner).monitors.push(observer),
            Signal::Demonitor(id) => relations(inner).monitors.retain(|a| a.id() != id),
            Signal::Watch(slot) => relations(inner).watchers.push(slot),
            Signal::Exit(exit) => {
                let rel = relations(inner);
                rel.links.retain(|a| a.id() != exit.from);
                if rel.trap_exit {
                    let mut ctx = Context::new(header, &mut inner.local);
                    let actor = inner.actor.as_mut()?;
                    actor.on_exit(&mut ctx, exit);
                    return Self::after(&mut ctx, actor);
                }
                if !exit.reason.is_normal() {
                    return Some(exit.reason);
                }
            }
            Signal::Down(down) => {
                let mut ctx = Context::new(header, &mut inner.local);
                let actor = inner.actor.as_mut()?;
                actor.on_down(&mut ctx, down);
                return Self::after(&mut ctx, actor);
            }
            Signal::Stop(reason) => return Some(reason),
            Signal::Restart => return Self::restart_now(header, inner),
            Signal::IdleCheck(generation) => return Self::idle_check(header, inner, generation),
            // The turn loop looks at the urgent queue before the next message anyway.
            Signal::Urgent | Signal::Wake => {}
            // Everything queued before it has been handled: dropping it runs its closure.
            Signal::Barrier(barrier) => drop(barrier),
        }
        None
    }

    /// Replaces the state with a fresh one from the supervision factory (a one-for-all restart, or a
    /// restart after a panic); `started` runs before the next message. A factory that panics stops
    /// the actor with that panic as the reason (it is not retried).
    fn rebuild(inner: &mut Inner<A>) -> Result<(), ExitReason> {
        let Some(sup) = inner.supervision.as_mut() else {
            return Ok(());
        };
        let old = inner.actor.take();
        let _ = catch_unwind(AssertUnwindSafe(move || drop(old)));
        match catch_unwind(AssertUnwindSafe(|| sup.make())) {
            Ok(actor) => {
                inner.actor = Some(actor);
                inner.started = false;
                Ok(())
            }
            Err(payload) => Err(ExitReason::Panicked(panic_message(&*payload))),
        }
    }

    /// A one-for-all sibling failed: rebuild, and run `started` now, before the messages queued
    /// behind the signal.
    fn restart_now(header: &Header<A::Msg>, inner: &mut Inner<A>) -> Option<ExitReason> {
        if let Err(reason) = Self::rebuild(inner) {
            return Some(reason);
        }
        inner.started = true;
        let mut ctx = Context::new(header, &mut inner.local);
        let actor = inner.actor.as_mut()?;
        actor.started(&mut ctx);
        Self::after(&mut ctx, actor)
    }

    /// A handler panicked: restart in place if supervised and within the intensity limit, otherwise
    /// stop with the panic as the reason.
    fn fail(mut task: Running<Self>, reason: ExitReason) -> Turn<Header<A::Msg>> {
        let (header, inner) = task.split();
        let decision = match inner.supervision.as_ref() {
            Some(sup) => sup.on_failure(header.id, &reason, header.runtime()),
            None => Decision::Stop,
        };
        match decision {
            Decision::Restart => match Self::rebuild(inner) {
                Ok(()) => Turn::Yield(task.into_runnable()),
                Err(reason) => {
                    Self::finish(task, reason, false);
                    Turn::Idle
                }
            },
            Decision::Stop => {
                Self::finish(task, reason, false);
                Turn::Idle
            }
        }
    }

    /// Stops the actor for good (see the module docs), possibly freeing the cell.
    fn finish(mut task: Running<Self>, reason: ExitReason, call_stopped: bool) {
        #[cfg(feature = "tracing")]
        tracing::debug!(target: "motet::actor", actor = std::any::type_name::<A>(), ?reason, "exit");
        let (header, inner) = task.split();
        if let Some(mut actor) = inner.actor.take() {
            if call_stopped {
                let mut ctx = Context::new(header, &mut inner.local);
                let _ = catch_unwind(AssertUnwindSafe(|| actor.stopped(&mut ctx, &reason)));
            }
            let _ = catch_unwind(AssertUnwindSafe(move || drop(actor)));
        }
        // Links, monitors and watchers: those the actor recorded, plus those still queued as signals.
        // Most actors have none, so nothing is allocated unless a signal turns up.
        let mut local = inner.local.take();
        // SAFETY: single consumer (this turn).
        unsafe { header.close_mailboxes(&mut local, BOUNDED || DETACHED || A::PRIORITIES) };
        header.notify(local, &reason);
        if let Some(sup) = inner.supervision.take() {
            sup.child_stopped(header.id, &reason);
        }
        let header = NonNull::from(header);
        // SAFETY: the mailbox is closed; the runnable is this cell's; nothing touches the cell after.
        unsafe { Header::retire(header, task.into_runnable()) };
    }
}

/// Starts a detached actor's thread with its first turn; `turn` runs one turn there.
#[cold]
#[inline(never)]
fn start_detached<M: Send + 'static>(
    home: std::sync::Arc<Home<M>>,
    runnable: Runnable<Header<M>>,
    turn: HomeTurn<M>,
) {
    let id = runnable.id;
    std::thread::Builder::new()
        .name(format!("motet-detached-{}", id.as_u64()))
        .spawn(move || run_detached(home, runnable, turn))
        .expect("could not start a detached actor's thread");
}

/// Hands the runnable of a detached or scoped actor, which a worker got from a waking push (or a
/// runtime's shutdown), to the actor's home thread.
#[cold]
#[inline(never)]
pub(crate) fn send_home<M: Send + 'static>(runnable: Runnable<Header<M>>) {
    let Some(home) = runnable.home() else {
        unreachable!("only detached and scoped actors are of a kind that sends them home")
    };
    // Its own reference: once the runnable is handed over, the actor may stop and free its cell
    // (and the header's reference) before `give` returns.
    let home = std::sync::Arc::clone(home);
    home.give(runnable);
}

/// Spawns with `options`, as the task kind that its bound and detachment ask for.
pub(crate) fn spawn_with<A: Actor>(
    runtime: &Handle,
    actor: A,
    options: Options,
    supervision: Option<Box<Supervision<A>>>,
    relations: Option<Relations>,
) -> Addr<A::Msg> {
    match (options.bound.is_some(), options.detached) {
        (false, false) => {
            ActorTask::<A, false, false>::spawn(runtime, actor, options, supervision, relations)
        }
        (true, false) => {
            ActorTask::<A, true, false>::spawn(runtime, actor, options, supervision, relations)
        }
        (false, true) => {
            ActorTask::<A, false, true>::spawn(runtime, actor, options, supervision, relations)
        }
        (true, true) => {
            ActorTask::<A, true, true>::spawn(runtime, actor, options, supervision, relations)
        }
    }
}

fn relations<A: Actor>(inner: &mut Inner<A>) -> &mut Relations {
    &mut Local::get(&mut inner.local).relations
}
