//! A handler that panicked, and restarts: in place under supervision, or a one-for-all restart.

use std::panic::{catch_unwind, AssertUnwindSafe};

use motet_runtime::task::{Running, Turn};

use super::header::Header;
use super::state::Inner;
use super::turn::ActorTask;
use crate::actor::{Actor, Context};
use crate::exit::{panic_message, ExitReason};
use crate::supervisor::Decision;

impl<A: Actor, const GATED: bool, const DETACHED: bool> ActorTask<A, GATED, DETACHED> {
    /// Replaces the state with a fresh one from the supervision factory (a one-for-all restart, or a
    /// restart after a panic); `started` runs before the next message. A factory that panics stops
    /// the actor with that panic as the reason (it is not retried).
    fn rebuild(inner: &mut Inner<A>) -> Result<(), ExitReason> {
        if inner.supervision.is_none() {
            return Ok(());
        }
        let old = inner.take_actor();
        let _ = catch_unwind(AssertUnwindSafe(move || drop(old)));
        let Some(sup) = inner.supervision.as_mut() else {
            return Ok(());
        };
        match catch_unwind(AssertUnwindSafe(|| sup.make())) {
            Ok(actor) => {
                inner.put_actor(actor);
                inner.started = false;
                Ok(())
            }
            Err(payload) => Err(ExitReason::Panicked(panic_message(&*payload))),
        }
    }

    /// A one-for-all sibling failed: rebuild, and run `started` now, before the messages queued
    /// behind the signal.
    pub(super) fn restart_now(header: &Header<A::Msg>, inner: &mut Inner<A>) -> Option<ExitReason> {
        if let Err(reason) = Self::rebuild(inner) {
            return Some(reason);
        }
        inner.started = true;
        let (actor, local) = inner.actor_and_local()?;
        let mut ctx = Context::new(header, local);
        actor.started(&mut ctx);
        Self::after(&mut ctx, actor)
    }

    /// A handler panicked: restart in place if supervised and within the intensity limit, otherwise
    /// stop with the panic as the reason.
    pub(super) fn fail(mut task: Running<Self>, reason: ExitReason) -> Turn<Header<A::Msg>> {
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
}
