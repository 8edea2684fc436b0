//! Stopping an actor for good: closing its mailboxes, notifying its links, monitors and
//! watchers, and giving up `LIFE` (see [`header`](super::header)).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use motet_runtime::task::Running;
use motet_runtime::Runnable;

use super::header::{Header, LIFE, ONE_ADDR};
use super::state::Local;
use super::turn::ActorTask;
use crate::actor::{Actor, Context};
use crate::envelope::{Envelope, Signal};
use crate::exit::{Down, ExitReason, ExitSignal};
use crate::sync::atomic::Ordering;

impl<M: Send + 'static> Header<M> {
    /// Closes the mailboxes and hands what was queued to `local` (links, monitors and watchers
    /// still queued as signals) or drops it. `extra` says whether the cell may have an
    /// [`Extra`](super::Extra) part to close (a constant of the caller's kind: a plain actor's stop
    /// does not test it).
    ///
    /// # Safety
    /// The caller is the mailbox's single consumer, stopping the actor: once, on an open mailbox.
    #[inline(always)]
    pub(crate) unsafe fn close_mailboxes(&self, local: &mut Option<Box<Local<M>>>, extra: bool) {
        // SAFETY: single consumer, open mailbox (the caller's contract).
        unsafe {
            self.mailbox.close_open(|env| match env {
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
}

impl<A: Actor, const GATED: bool, const DETACHED: bool> ActorTask<A, GATED, DETACHED> {
    /// Stops the actor for good (see [`header`](super::header)), possibly freeing the cell.
    pub(super) fn finish(mut task: Running<Self>, reason: ExitReason, call_stopped: bool) {
        #[cfg(feature = "tracing")]
        tracing::debug!(target: "motet::actor", actor = std::any::type_name::<A>(), ?reason, "exit");
        let (header, inner) = task.split();
        if let Some(mut actor) = inner.take_actor() {
            if call_stopped {
                let mut ctx = Context::new(header, &mut inner.local);
                let _ = catch_unwind(AssertUnwindSafe(|| actor.stopped(&mut ctx, &reason)));
            }
            let _ = catch_unwind(AssertUnwindSafe(move || drop(actor)));
        }
        // Links, monitors and watchers: those the actor recorded, plus those still queued as signals.
        // Most actors have none, so nothing is allocated unless a signal turns up.
        let mut local = inner.local.take();
        // SAFETY: single consumer (this turn), stopping once: the runnable is consumed below.
        unsafe { header.close_mailboxes(&mut local, GATED || DETACHED || A::PRIORITIES) };
        header.notify(local, &reason);
        if let Some(sup) = inner.supervision.take() {
            sup.child_stopped(header.id, &reason);
        }
        let header = NonNull::from(header);
        // SAFETY: the mailbox is closed; the runnable is this cell's; nothing touches the cell after.
        unsafe { Header::retire(header, task.into_runnable()) };
    }
}
