//! The task kind of an actor and its turn: up to `batch` messages and signals, then yield, park
//! idle or stop.

use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

use motet_runtime::task::{Running, Task, Turn};
use motet_runtime::Runnable;

use super::detached::send_home;
use super::header::Header;
use super::state::{Inner, Local, Relations};
use crate::actor::{Actor, Context, Pending};
use crate::envelope::{Envelope, Signal};
use crate::exit::{panic_message, ExitReason};
use crate::mailbox::{MarkIdle, Pop};
use crate::receive_timeout::Check;

/// How often a turn re-checks a half-finished push before yielding.
const INCONSISTENT_SPINS: u32 = 64;

/// The kind of task an actor of type `A` is (see the module docs). `GATED` actors (bounded or
/// forwarding) have a gated mailbox, whose pushes leave the fast path; their turns count the
/// messages they take off a bounded mailbox's count; plain actors' turns do not have that code at
/// all. `DETACHED` actors run on a thread of their own: when a worker runs one (a
/// waking push scheduled it), it hands the runnable to that thread ([`send_home`]), which runs the
/// turn.
pub(crate) struct ActorTask<A, const GATED: bool = false, const DETACHED: bool = false>(
    PhantomData<fn() -> A>,
);

/// How a batch of messages ended.
enum TurnEnd {
    /// The runnable is parked and the mailbox marked idle: the turn has ended.
    Idle,
    Yield,
    Stop(ExitReason),
}

impl<A: Actor, const GATED: bool, const DETACHED: bool> Task for ActorTask<A, GATED, DETACHED> {
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
        if GATED {
            header.mailbox.set_gate();
        }
    }
}

impl<A: Actor, const GATED: bool, const DETACHED: bool> ActorTask<A, GATED, DETACHED> {
    /// One turn of the actor, on a worker or (detached) on its own thread.
    #[inline]
    pub(super) fn run_turn(task: Running<Self>) -> Turn<Header<A::Msg>> {
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
            if let Some((actor, local)) = inner.actor_and_local() {
                let mut ctx = Context::new(header, local);
                actor.started(&mut ctx);
                if let Some(reason) = Self::after(&mut ctx, actor) {
                    return TurnEnd::Stop(reason);
                }
            }
        }
        'turn: loop {
            if let Some((actor, local)) = inner.actor_and_local() {
                let mut ctx = Context::new(header, local);
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
                    if GATED {
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
                    if GATED {
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
                        if GATED {
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
    pub(super) fn resume(runnable: Runnable<Header<A::Msg>>) -> Running<Self> {
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
        let (actor, local) = inner.actor_and_local()?;
        let mut ctx = Context::new(header, local);
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
    pub(super) fn after(ctx: &mut Context<'_, A>, actor: &mut A) -> Option<ExitReason> {
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

    /// A receive-timeout timer fired (see
    /// [`ReceiveTimeout`](crate::receive_timeout::ReceiveTimeout)).
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
        let (actor, local) = inner.actor_and_local()?;
        let mut ctx = Context::new(header, local);
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
                    let (actor, local) = inner.actor_and_local()?;
                    let mut ctx = Context::new(header, local);
                    actor.on_exit(&mut ctx, exit);
                    return Self::after(&mut ctx, actor);
                }
                if !exit.reason.is_normal() {
                    return Some(exit.reason);
                }
            }
            Signal::Down(down) => {
                let (actor, local) = inner.actor_and_local()?;
                let mut ctx = Context::new(header, local);
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
}

fn relations<A: Actor>(inner: &mut Inner<A>) -> &mut Relations {
    &mut Local::get(&mut inner.local).relations
}
