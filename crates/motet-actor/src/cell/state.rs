//! The parts of a cell that only the actor's turns touch, and the spawn options that reach them.

use std::mem::MaybeUninit;

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
///
/// The actor's state is a `MaybeUninit` whose presence `has_actor` records, in the word that
/// `batch` and `started` leave partly empty, rather than an `Option`: for an actor type without a
/// niche (most: a struct of integers), an `Option` spends a whole word of the cell on its tag,
/// and a cell one word larger costs short-lived actors (fjcreate's forty thousand) measurably in
/// cache misses.
pub(crate) struct Inner<A: Actor> {
    /// Initialised exactly while `has_actor` is true (see [`Inner::actor_and_local`]).
    actor: MaybeUninit<A>,
    pub(crate) local: Lazy<Local<A::Msg>>,
    /// A [`Lazy`]: a stopped actor's cell is freed with it empty, at the cost of a test.
    pub(crate) supervision: Lazy<Supervision<A>>,
    pub(crate) batch: u32,
    pub(crate) started: bool,
    has_actor: bool,
}

impl<A: Actor> Inner<A> {
    /// A new actor's part: `started` not yet run.
    #[inline(always)]
    pub(crate) fn new(
        actor: A,
        local: Lazy<Local<A::Msg>>,
        supervision: Lazy<Supervision<A>>,
        batch: u32,
    ) -> Inner<A> {
        Inner {
            actor: MaybeUninit::new(actor),
            local,
            supervision,
            batch,
            started: false,
            has_actor: true,
        }
    }

    /// The actor and its per-actor state, or `None` once the actor has been taken out (stopped,
    /// or between the two steps of a restart).
    #[inline(always)]
    pub(crate) fn actor_and_local(&mut self) -> Option<(&mut A, &mut Lazy<Local<A::Msg>>)> {
        if self.has_actor {
            // SAFETY: `has_actor` is true exactly while `actor` holds a value (set with the
            // value in `new` and `put_actor`, cleared as `take_actor` moves it out).
            Some((unsafe { self.actor.assume_init_mut() }, &mut self.local))
        } else {
            None
        }
    }

    /// Moves the actor out, leaving none.
    #[inline]
    pub(crate) fn take_actor(&mut self) -> Option<A> {
        if !self.has_actor {
            return None;
        }
        self.has_actor = false;
        // SAFETY: `has_actor` was true, so `actor` held a value; the flag, now false, says it no
        // longer does, so it is read once.
        Some(unsafe { self.actor.assume_init_read() })
    }

    /// Puts a fresh actor in (a restart, after [`Inner::take_actor`]), dropping any still there.
    #[inline]
    pub(crate) fn put_actor(&mut self, actor: A) {
        drop(self.take_actor());
        self.actor.write(actor);
        self.has_actor = true;
    }
}

impl<A: Actor> Drop for Inner<A> {
    fn drop(&mut self) {
        // The actor first, as the field order did when it was an `Option`.
        drop(self.take_actor());
    }
}

#[cfg(test)]
mod tests {
    use super::Inner;
    use crate::lazy::Lazy;
    use crate::{Actor, Context};

    /// An actor type without a niche: an `Option` of it would need a word for its tag.
    struct Counter(u64);

    impl Actor for Counter {
        type Msg = ();
        fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: ()) {
            self.0 += 1;
        }
    }

    #[test]
    fn the_actor_takes_no_word_for_its_presence() {
        // The actor, the two lazily allocated parts, and one word for `batch`, `started` and
        // `has_actor` together.
        assert_eq!(
            std::mem::size_of::<Inner<Counter>>(),
            std::mem::size_of::<Counter>() + 3 * std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn an_actor_taken_out_is_not_dropped_again() {
        let mut inner = Inner::new(Counter(7), Lazy::new(None), Lazy::new(None), 1);
        assert_eq!(inner.actor_and_local().map(|(a, _)| a.0), Some(7));
        assert_eq!(inner.take_actor().map(|a| a.0), Some(7));
        assert!(inner.actor_and_local().is_none());
        assert!(inner.take_actor().is_none());
        inner.put_actor(Counter(8));
        assert_eq!(inner.actor_and_local().map(|(a, _)| a.0), Some(8));
    }
}
