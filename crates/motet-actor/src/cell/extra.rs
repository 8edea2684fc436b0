//! The part of a header that only detached, scoped, bounded, forwarding and priority-taking actors
//! have.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::bounded::Bound;
use crate::home::Home;
use crate::mailbox::Mailbox;

/// Where a forwarding actor's user messages go, on the sending thread
/// ([`Spawn::forwarding`](crate::Spawn::forwarding)); gives a refused message back.
pub(crate) type Forward<M> = Box<dyn Fn(M) -> Result<(), M> + Send + Sync>;

/// The parts of a header that plain actors do without.
pub(crate) struct Extra<M> {
    /// Where a waking push hands the runnable (detached and scoped actors).
    pub(crate) home: Option<std::sync::Arc<Home<M>>>,
    /// Urgent messages ([`Addr::tell_urgent`](crate::Addr::tell_urgent)), for actors with
    /// [`Actor::PRIORITIES`](crate::Actor::PRIORITIES). A second mailbox that is never marked idle:
    /// an urgent send pushes here, then pushes [`Signal::Urgent`](crate::envelope::Signal::Urgent)
    /// into the main mailbox, which wakes the actor and is ignored by it.
    pub(crate) urgent: Option<Box<Mailbox<M>>>,
    /// The count of a bounded mailbox ([`Spawn::bounded`](crate::Spawn::bounded)).
    pub(crate) bound: Option<Bound>,
    /// A forwarding actor's user messages go here instead of into its (gated) mailbox.
    pub(crate) forward: Option<Forward<M>>,
}

impl<M: Send + 'static> Extra<M> {
    #[inline(always)]
    pub(crate) fn new(
        home: Option<std::sync::Arc<Home<M>>>,
        priorities: bool,
        bound: Option<usize>,
        forward: Option<Forward<M>>,
    ) -> Option<Box<Extra<M>>> {
        if home.is_none() && !priorities && bound.is_none() && forward.is_none() {
            return None;
        }
        Self::make(home, priorities, bound, forward)
    }

    #[cold]
    #[inline(never)]
    fn make(
        home: Option<std::sync::Arc<Home<M>>>,
        priorities: bool,
        bound: Option<usize>,
        forward: Option<Forward<M>>,
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
            forward,
        }))
    }

    /// Closes the urgent queue (dropping what it holds) and fails the senders waiting for room.
    /// Called by the mailboxes' single consumer, once, when the actor stops.
    #[cold]
    #[inline(never)]
    pub(super) fn close(&self) {
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
