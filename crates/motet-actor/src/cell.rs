//! The actor cell: one allocation holding the task header, the reference count, the mailbox and the
//! actor's state, and the protocol that runs it.
//!
//! # Layout
//!
//! `Cell<A>` is `#[repr(C)]` with a [`Header<M>`] first (`M = A::Msg`), so an [`Addr<M>`] can point to
//! the header without knowing `A`, and the runtime can point to the [`TaskHeader`] at offset 0.
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
//!   monitors), notifies its links, monitors and watchers, and clears `LIFE`; if that takes `refs` to
//!   0, it frees the cell itself.
//!
//! # Scheduling
//!
//! The mailbox's idle mark is the actor's scheduling state: a push that clears it schedules the actor
//! (see [`crate::mailbox`]). A turn processes up to `batch` messages, then yields (the worker puts it
//! at the back of its deque); if it finds the mailbox empty, it marks it idle and the turn ends. A
//! newly spawned actor starts *not idle* and is scheduled once, so that `started` runs promptly.

#[cfg(not(loom))]
use std::alloc::Layout;
#[cfg(loom)]
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

#[cfg(not(loom))]
use motet_runtime::alloc::BlockCache;
use motet_runtime::{Handle, RunOutcome, TaskHeader, TaskRef, TaskVTable};

use crate::actor::{Actor, Context};
use crate::addr::{Addr, AnyAddr, AnyOps};
#[cfg(not(loom))]
use crate::blocks::Blocks;
use crate::envelope::{Envelope, Signal};
use crate::exit::{panic_message, ActorId, Down, ExitReason, ExitSignal};
use crate::ids::next_id;
use crate::mailbox::{Mailbox, MarkIdle, Node, Pop, Push, ReleaseStart};
use crate::supervisor::{Decision, Supervision};
use crate::sync::atomic::{AtomicUsize, Ordering};

const LIFE: usize = 1;
const ONE_ADDR: usize = 2;
/// How often a turn re-checks a half-finished push before yielding.
const INCONSISTENT_SPINS: u32 = 64;

/// The part of a cell that addresses see.
#[repr(C)]
pub(crate) struct Header<M> {
    task: TaskHeader,
    free: unsafe fn(NonNull<Header<M>>),
    refs: AtomicUsize,
    pub(crate) id: ActorId,
    runtime: Handle,
    pub(crate) mailbox: Mailbox<Envelope<M>>,
}

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

    fn task_ref(&self) -> TaskRef {
        // SAFETY: the header is the first field of a live cell; the cell stays alive while it is
        // scheduled because only a live actor (LIFE set) clears the idle mark's schedule, and LIFE is
        // cleared only by the actor's own final turn.
        unsafe { TaskRef::from_raw(NonNull::from(&self.task)) }
    }

    /// Pushes an envelope and schedules the actor if it was idle; gives the envelope back if the
    /// actor has stopped. Always inlined (see [`Addr::tell`]).
    #[inline(always)]
    pub(crate) fn push(&self, env: Envelope<M>) -> Result<(), Envelope<M>> {
        match self.mailbox.push(Node::new(env)) {
            Push::Pushed { was_idle } => {
                if was_idle {
                    // SAFETY: clearing the idle mark gave this thread the right to schedule the actor
                    // once; the cell is alive (LIFE is set while the mailbox is open and can be
                    // cleared only by the actor's final turn, which this scheduling precedes).
                    unsafe { self.runtime.schedule(self.task_ref()) };
                }
                Ok(())
            }
            Push::Closed(node) => Err(node.into_value()),
        }
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
                            // SAFETY: taking over the idle mark gave this thread the right to schedule
                            // the actor once; LIFE is set and only the actor's own turn clears it.
                            unsafe { header.runtime.schedule(header.task_ref()) };
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
                        // SAFETY: no address and no LIFE remain: nobody else can reach the cell.
                        unsafe { (header.free)(this) };
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

/// Links, monitors and watchers of an actor: allocated only for actors that use them.
#[derive(Default)]
pub(crate) struct Relations {
    pub(crate) links: Vec<AnyAddr>,
    pub(crate) monitors: Vec<AnyAddr>,
    pub(crate) watchers: Vec<std::sync::Arc<crate::oneshot::Slot<ExitReason>>>,
    pub(crate) trap_exit: bool,
}

/// The actor-owned part of a cell, touched only during the actor's turns.
pub(crate) struct Inner<A: Actor> {
    pub(crate) actor: Option<A>,
    pub(crate) relations: Option<Box<Relations>>,
    pub(crate) supervision: Option<Box<Supervision<A>>>,
    pub(crate) batch: u32,
    pub(crate) started: bool,
}

#[repr(C)]
pub(crate) struct Cell<A: Actor> {
    header: Header<A::Msg>,
    inner: std::cell::UnsafeCell<Inner<A>>,
}

/// How a batch of messages ended.
enum TurnEnd {
    Idle,
    Yield,
    Stop(ExitReason),
}

impl<A: Actor> Cell<A> {
    const VTABLE: &'static TaskVTable = &TaskVTable {
        run: Self::run,
        shutdown: Self::shutdown,
    };

    /// Allocates and schedules a new actor; returns its first address.
    pub(crate) fn spawn(
        runtime: &Handle,
        actor: A,
        batch: u32,
        supervision: Option<Box<Supervision<A>>>,
        relations: Option<Box<Relations>>,
    ) -> Addr<A::Msg> {
        let cell = Self::allocate();
        // SAFETY: `cell` points to uninitialised memory we own; every field is written exactly once
        // before the cell is used, and the mailbox is initialised in place (it points to its own stub,
        // and the cell never moves).
        let header = unsafe {
            let h = std::ptr::addr_of_mut!((*cell).header);
            std::ptr::addr_of_mut!((*h).task).write(TaskHeader::new(Self::VTABLE));
            std::ptr::addr_of_mut!((*h).free).write(Self::free);
            std::ptr::addr_of_mut!((*h).refs).write(AtomicUsize::new(LIFE + ONE_ADDR));
            std::ptr::addr_of_mut!((*h).id).write(next_id());
            std::ptr::addr_of_mut!((*h).runtime).write(runtime.clone());
            Mailbox::init(std::ptr::addr_of_mut!((*h).mailbox), false);
            std::ptr::addr_of_mut!((*cell).inner).write(std::cell::UnsafeCell::new(Inner {
                actor: Some(actor),
                relations,
                supervision,
                batch: batch.max(1),
                started: false,
            }));
            NonNull::new_unchecked(h)
        };
        // SAFETY: the cell was created not idle, so this thread holds the right to schedule it once;
        // it is alive (LIFE set). A new task: children spawned in one turn run depth first.
        unsafe { runtime.schedule_new(header.as_ref().task_ref()) };
        Addr::from_header(header)
    }

    /// Uninitialised memory for a cell: from this thread's block cache (cells of short-lived actors
    /// are freed and reused at the rate they are spawned), or a Box under loom.
    fn allocate() -> *mut Cell<A> {
        #[cfg(not(loom))]
        {
            Blocks::allocate(Layout::new::<Cell<A>>())
                .cast::<Cell<A>>()
                .as_ptr()
        }
        #[cfg(loom)]
        {
            Box::into_raw(Box::<MaybeUninit<Cell<A>>>::new(MaybeUninit::uninit())).cast()
        }
    }

    unsafe fn free(header: NonNull<Header<A::Msg>>) {
        let cell = header.cast::<Cell<A>>().as_ptr();
        // SAFETY: the header is the first field of a `Cell<A>` initialised by `spawn` in memory from
        // `allocate`; the caller owns the last reference, so nothing else uses it.
        unsafe {
            std::ptr::drop_in_place(cell);
            #[cfg(not(loom))]
            Blocks::release(
                NonNull::new_unchecked(cell.cast()),
                Layout::new::<Cell<A>>(),
            );
            #[cfg(loom)]
            drop(Box::from_raw(cell.cast::<MaybeUninit<Cell<A>>>()));
        }
    }

    unsafe fn run(task: NonNull<TaskHeader>) -> RunOutcome {
        // SAFETY: the task header is the first field of a live `Cell<A>` (see `task_ref`).
        let cell = unsafe { task.cast::<Cell<A>>().as_ref() };
        // SAFETY: the runtime runs a task on one thread at a time, and only turns touch `inner`.
        let inner = unsafe { &mut *cell.inner.get() };
        let header = &cell.header;
        match catch_unwind(AssertUnwindSafe(|| Self::turn(header, inner))) {
            Ok(TurnEnd::Idle) => RunOutcome::Idle,
            Ok(TurnEnd::Yield) => RunOutcome::Yield,
            Ok(TurnEnd::Stop(reason)) => {
                // SAFETY: the cell is alive and ours for this turn; `finish` ends it.
                unsafe { Self::finish(NonNull::from(cell), reason, true) };
                RunOutcome::Idle
            }
            Err(payload) => {
                let reason = ExitReason::Panicked(panic_message(&*payload));
                drop(payload);
                // SAFETY: as above.
                unsafe { Self::fail(NonNull::from(cell), reason) }
            }
        }
    }

    unsafe fn shutdown(task: NonNull<TaskHeader>) {
        // SAFETY: as in `run`.
        unsafe { Self::finish(task.cast::<Cell<A>>(), ExitReason::Shutdown, false) };
    }

    /// One turn: up to `batch` messages.
    ///
    /// User messages take a hot loop that borrows the actor and its [`Context`] once for as
    /// long as they come, instead of once per message; a signal, an absent actor (never seen
    /// within a turn, but not assumed), an empty mailbox or a stop request leaves it. Measured
    /// with callgrind (sor, threadring), this saves the context's set-up, the actor's presence
    /// check and the copy of the stop request out of the handler's frame on every message.
    #[inline]
    fn turn(header: &Header<A::Msg>, inner: &mut Inner<A>) -> TurnEnd {
        if !inner.started {
            inner.started = true;
            let mut ctx = Context::new(header, &mut inner.relations);
            if let Some(actor) = inner.actor.as_mut() {
                actor.started(&mut ctx);
            }
            if let Some(reason) = ctx.take_stop() {
                return TurnEnd::Stop(reason);
            }
        }
        let mut spins = 0;
        let mut budget = inner.batch;
        'turn: loop {
            if let Some(actor) = inner.actor.as_mut() {
                let mut ctx = Context::new(header, &mut inner.relations);
                loop {
                    if budget == 0 {
                        return TurnEnd::Yield;
                    }
                    // SAFETY: turns are the mailbox's single consumer.
                    let Some(slot) = (unsafe { header.mailbox.try_pop_in_place() }) else {
                        break;
                    };
                    budget -= 1;
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
                    actor.handle(&mut ctx, msg);
                    if ctx.stop_requested() {
                        if let Some(reason) = ctx.take_stop() {
                            return TurnEnd::Stop(reason);
                        }
                    }
                }
            } else {
                if budget == 0 {
                    return TurnEnd::Yield;
                }
                // SAFETY: turns are the mailbox's single consumer.
                if let Some(env) = unsafe { header.mailbox.try_pop() } {
                    budget -= 1;
                    if let Some(reason) = Self::dispatch(header, inner, env) {
                        return TurnEnd::Stop(reason);
                    }
                    continue 'turn;
                }
            }
            // Nothing completely pushed. No address left: nobody can send to this actor again.
            // Reading LIFE synchronises with every holder's last decrement, which followed its last
            // push; the pop that found nothing may predate those pushes, so look once more first.
            if header.refs.load(Ordering::Acquire) == LIFE {
                // SAFETY: single consumer.
                match unsafe { header.mailbox.pop() } {
                    Pop::Empty => return TurnEnd::Stop(ExitReason::Unreachable),
                    Pop::Item(env) => {
                        budget -= 1;
                        if let Some(reason) = Self::dispatch(header, inner, env) {
                            return TurnEnd::Stop(reason);
                        }
                        continue 'turn;
                    }
                    Pop::Inconsistent => {}
                }
            }
            // Empty, or a push halfway (then the head has moved and marking fails: retry).
            // SAFETY: single consumer.
            match unsafe { header.mailbox.try_mark_idle() } {
                // From here on another thread may run this actor: touch nothing.
                MarkIdle::Idle => return TurnEnd::Idle,
                MarkIdle::Recheck => {}
                MarkIdle::Retry => {
                    spins += 1;
                    if spins > INCONSISTENT_SPINS {
                        return TurnEnd::Yield;
                    }
                    crate::sync::spin();
                }
            }
        }
    }

    /// Releases the address reference an [`Envelope::UserWithRef`] carried, before its message is
    /// handled (so that a panicking handler cannot leak it): LIFE is set, so this cannot free the
    /// cell, and whether the actor became unreachable is only decided on an empty mailbox.
    #[inline(always)]
    fn release_carried(header: &Header<A::Msg>) {
        header.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
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
        let mut ctx = Context::new(header, &mut inner.relations);
        actor.handle(&mut ctx, msg);
        ctx.take_stop()
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
                    let mut ctx = Context::new(header, &mut inner.relations);
                    if let Some(actor) = inner.actor.as_mut() {
                        actor.on_exit(&mut ctx, exit);
                    }
                    return ctx.take_stop();
                }
                if !exit.reason.is_normal() {
                    return Some(exit.reason);
                }
            }
            Signal::Down(down) => {
                let mut ctx = Context::new(header, &mut inner.relations);
                if let Some(actor) = inner.actor.as_mut() {
                    actor.on_down(&mut ctx, down);
                }
                return ctx.take_stop();
            }
            Signal::Stop(reason) => return Some(reason),
            Signal::Restart => return Self::restart_now(header, inner),
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
        let mut ctx = Context::new(header, &mut inner.relations);
        if let Some(actor) = inner.actor.as_mut() {
            actor.started(&mut ctx);
        }
        ctx.take_stop()
    }

    /// A handler panicked: restart in place if supervised and within the intensity limit, otherwise
    /// stop with the panic as the reason.
    unsafe fn fail(cell: NonNull<Cell<A>>, reason: ExitReason) -> RunOutcome {
        // SAFETY: the caller's turn owns the cell.
        let (header, inner) = unsafe { (&cell.as_ref().header, &mut *cell.as_ref().inner.get()) };
        let decision = match inner.supervision.as_ref() {
            Some(sup) => sup.on_failure(header.id, &reason, header.runtime()),
            None => Decision::Stop,
        };
        match decision {
            Decision::Restart => match Self::rebuild(inner) {
                Ok(()) => RunOutcome::Yield,
                Err(reason) => {
                    // SAFETY: as above.
                    unsafe { Self::finish(cell, reason, false) };
                    RunOutcome::Idle
                }
            },
            Decision::Stop => {
                // SAFETY: as above.
                unsafe { Self::finish(cell, reason, false) };
                RunOutcome::Idle
            }
        }
    }

    /// Stops the actor for good (see the module docs), possibly freeing the cell.
    unsafe fn finish(cell: NonNull<Cell<A>>, reason: ExitReason, call_stopped: bool) {
        // SAFETY: the caller's turn owns the cell until LIFE is cleared at the end.
        let (header, inner) = unsafe { (&cell.as_ref().header, &mut *cell.as_ref().inner.get()) };
        if let Some(mut actor) = inner.actor.take() {
            if call_stopped {
                let mut ctx = Context::new(header, &mut inner.relations);
                let _ = catch_unwind(AssertUnwindSafe(|| actor.stopped(&mut ctx, &reason)));
            }
            let _ = catch_unwind(AssertUnwindSafe(move || drop(actor)));
        }
        // Links, monitors and watchers: those the actor recorded, plus those still queued as signals.
        // Most actors have none, so nothing is allocated unless a signal turns up.
        let mut rel = inner.relations.take();
        let me = header.id;
        // SAFETY: single consumer (this turn).
        unsafe {
            header.mailbox.close(|env| match env {
                Envelope::User(msg) => {
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(msg)));
                }
                Envelope::UserWithRef(msg) => {
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(msg)));
                    // LIFE is still set: this cannot reach zero.
                    header.refs.fetch_sub(ONE_ADDR, Ordering::AcqRel);
                }
                Envelope::System(signal) => {
                    let rel = rel.get_or_insert_with(Default::default);
                    match *signal {
                        Signal::Link(other) => rel.links.push(other),
                        Signal::Monitor(observer) => rel.monitors.push(observer),
                        Signal::Watch(slot) => rel.watchers.push(slot),
                        _ => {}
                    }
                }
            });
        }
        if let Some(mut rel) = rel {
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
        if let Some(sup) = inner.supervision.take() {
            sup.child_stopped(me, &reason);
        }
        let prev = header.refs.fetch_sub(LIFE, Ordering::AcqRel);
        if prev == LIFE {
            // SAFETY: no address is left and LIFE is gone: this turn holds the last claim.
            unsafe { Self::free(NonNull::from(header)) };
        }
    }
}

fn relations<A: Actor>(inner: &mut Inner<A>) -> &mut Relations {
    inner.relations.get_or_insert_with(Default::default)
}
