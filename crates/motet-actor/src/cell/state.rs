//! The parts of a cell that only the actor's turns touch, and the spawn options that reach them.

use crate::actor::Actor;
use crate::addr::AnyAddr;
use crate::exit::ExitReason;
use crate::lazy::Lazy;
use crate::receive_timeout::ReceiveTimeout;
use crate::stash::{Stash, DEFAULT_STASH_CAPACITY};
use crate::supervisor::Supervision;

/// Links, monitors and watchers of an actor: allocated only for actors that use them.
#[derive(Default)]
pub(crate) struct Relations {
    pub(crate) links: Vec<AnyAddr>,
    pub(crate) monitors: Vec<AnyAddr>,
    pub(crate) watchers: Vec<std::sync::Arc<crate::oneshot::Slot<ExitReason>>>,
    pub(crate) trap_exit: bool,
}

/// The per-actor state a [`Context`](crate::Context) reaches besides the actor: relations, stash,
/// receive timeout. One box, allocated on first use (a link, a monitor, a stash, a timeout, or a
/// stash capacity other than the default): a plain actor's cell holds one empty pointer for all of
/// it, which its spawn stores, its turns never read and its free tests once.
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
