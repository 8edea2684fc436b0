//! Making a new actor: its cell, written straight into its block, and its first scheduling.

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use motet_runtime::{Handle, Runnable};

use super::detached::start_detached;
use super::extra::{Extra, Forward};
use super::header::Header;
use super::state::{Inner, Local, Options, Relations};
use super::turn::ActorTask;
use crate::actor::Actor;
use crate::addr::Addr;
use crate::blocks::Blocks;
use crate::home::Home;
use crate::lazy::Lazy;
use crate::supervisor::Supervision;

impl<A: Actor, const GATED: bool, const DETACHED: bool> ActorTask<A, GATED, DETACHED> {
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
        forward: Option<Forward<A::Msg>>,
    ) -> Addr<A::Msg> {
        debug_assert_eq!(GATED, options.bound.is_some() || forward.is_some());
        debug_assert_eq!(DETACHED, options.detached);
        let home = if DETACHED { Some(Home::new()) } else { None };
        let extra = Lazy::new(Extra::new(
            home.clone(),
            A::PRIORITIES,
            options.bound,
            forward,
        ));
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
                let inner = Inner::new(actor, local, supervision, batch);
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
}

/// Spawns with `options`, as the task kind that its gate (a bound or a forward) and detachment
/// ask for.
pub(crate) fn spawn_with<A: Actor>(
    runtime: &Handle,
    actor: A,
    options: Options,
    supervision: Option<Box<Supervision<A>>>,
    relations: Option<Relations>,
    forward: Option<Forward<A::Msg>>,
) -> Addr<A::Msg> {
    let (sup, rel, fwd) = (supervision, relations, forward);
    match (options.bound.is_some() || fwd.is_some(), options.detached) {
        (false, false) => {
            ActorTask::<A, false, false>::spawn(runtime, actor, options, sup, rel, fwd)
        }
        (true, false) => ActorTask::<A, true, false>::spawn(runtime, actor, options, sup, rel, fwd),
        (false, true) => ActorTask::<A, false, true>::spawn(runtime, actor, options, sup, rel, fwd),
        (true, true) => ActorTask::<A, true, true>::spawn(runtime, actor, options, sup, rel, fwd),
    }
}
