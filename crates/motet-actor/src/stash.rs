//! Stashing ([`Context::stash`](crate::Context::stash)): messages an actor set aside, and those
//! it took back and runs before its mailbox.

use std::collections::VecDeque;
use std::fmt;

/// How many messages an actor's stash holds unless [`Spawn::stash_capacity`](crate::Spawn::stash_capacity)
/// says otherwise.
pub const DEFAULT_STASH_CAPACITY: usize = 1024;

/// [`Context::stash`](crate::Context::stash) found the stash full; holds the message.
#[derive(PartialEq, Eq)]
pub struct StashFull<M>(pub M);

impl<M> fmt::Debug for StashFull<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StashFull(..)")
    }
}

impl<M> fmt::Display for StashFull<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the actor's stash is full")
    }
}

impl<M> std::error::Error for StashFull<M> {}

/// An actor's stash, allocated on its first use.
pub(crate) struct Stash<M> {
    /// Set aside, oldest first.
    held: VecDeque<M>,
    /// Taken back by `unstash_all`, to run before the mailbox, oldest first.
    replay: VecDeque<M>,
}

impl<M> Default for Stash<M> {
    fn default() -> Stash<M> {
        Stash {
            held: VecDeque::new(),
            replay: VecDeque::new(),
        }
    }
}

impl<M> Stash<M> {
    pub(crate) fn hold(&mut self, msg: M, capacity: usize) -> Result<(), StashFull<M>> {
        if self.held.len() >= capacity {
            return Err(StashFull(msg));
        }
        self.held.push_back(msg);
        Ok(())
    }

    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }

    /// Moves the held messages in front of those still waiting to run again.
    pub(crate) fn unstash_all(&mut self) {
        let mut held = std::mem::take(&mut self.held);
        held.append(&mut self.replay);
        self.replay = held;
    }

    /// The next message to run again.
    pub(crate) fn next_replay(&mut self) -> Option<M> {
        self.replay.pop_front()
    }
}
