//! Select: wait on several channels at once and take the first value that arrives.
//!
//! ```
//! use motet_process::{channel, ProcessSystem, Select};
//!
//! let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
//! let system = ProcessSystem::new(rt.handle());
//! let (numbers_tx, numbers) = channel::unbounded::<u32>();
//! let (words_tx, words) = channel::unbounded::<&'static str>();
//! words_tx.send("hello").unwrap();
//! let got = system
//!     .block_on(async {
//!         Select::new()
//!             .recv(&numbers, |n| format!("number {n:?}"))
//!             .recv(&words, |w| format!("word {w:?}"))
//!             .await
//!     })
//!     .unwrap();
//! assert_eq!(got, "word Ok(\"hello\")");
//! # drop(numbers_tx);
//! ```
//!
//! # How it waits
//!
//! The select parks one wait-queue entry on each channel, all sharing one flag, the select's *group*.
//! A channel completes a select entry only after claiming the group (an atomic compare-and-swap), so
//! exactly one branch wins; a channel that finds an entry whose group is already claimed skips it
//! (and serves its next waiter). The winner's entry holds the value, the others are unlinked when the
//! select completes. Branches are tried in the order they were added: the first one ready wins.

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

#[cfg(not(loom))]
use std::time::Duration;

use crate::channel::waiter::{Waiter, CLOSED, DONE, UNLINKED, WAITING};
use crate::channel::{Chan, Receiver, RecvError, RecvPoll};
use crate::sync::atomic::{AtomicBool, Ordering};

/// What polling one branch gave.
enum BranchPoll<O> {
    Ready(O),
    Pending,
    /// The group was claimed by another branch.
    Lost,
}

/// One branch of a select, type-erased over the channel's value type.
trait Branch<O> {
    /// Tries to take a value (claiming the group), or parks the branch's entry.
    fn poll(&mut self, group: *const AtomicBool, cx: &Context<'_>) -> BranchPoll<O>;
    /// After the group was claimed by a channel: this branch's result, if it is the winner.
    fn settle(&mut self) -> Option<O>;
    /// Takes the entry out of its channel (a value it holds goes back).
    fn cancel(&mut self);
}

struct RecvBranch<'a, T, F> {
    chan: &'a Chan<T>,
    entry: Waiter<T>,
    map: Option<F>,
}

impl<T, O, F> RecvBranch<'_, T, F>
where
    F: FnOnce(Result<T, RecvError>) -> O,
{
    fn output(&mut self, value: Option<T>) -> O {
        let map = self.map.take().expect("a select branch completes once");
        map(value.ok_or(RecvError))
    }
}

impl<T, O, F> Branch<O> for RecvBranch<'_, T, F>
where
    F: FnOnce(Result<T, RecvError>) -> O,
{
    fn poll(&mut self, group: *const AtomicBool, cx: &Context<'_>) -> BranchPoll<O> {
        match self.chan.poll_recv(&self.entry, cx, group) {
            RecvPoll::Ready(value) => BranchPoll::Ready(self.output(value)),
            RecvPoll::Pending => BranchPoll::Pending,
            RecvPoll::Lost => BranchPoll::Lost,
        }
    }

    fn settle(&mut self) -> Option<O> {
        let mut state = self.entry.state();
        if state == WAITING {
            state = self.chan.settled_state(&self.entry);
        }
        match state {
            DONE => {
                self.entry.set_state(UNLINKED);
                // SAFETY: DONE (acquired): the channel moved the value in and let go of the entry.
                let value = unsafe { self.entry.take_value() };
                Some(self.output(Some(value)))
            }
            CLOSED => {
                self.entry.set_state(UNLINKED);
                Some(self.output(None))
            }
            _ => None,
        }
    }

    fn cancel(&mut self) {
        if self.entry.state() != UNLINKED {
            self.chan.cancel_recv(&self.entry);
        }
    }
}

impl<T, F> Drop for RecvBranch<'_, T, F> {
    fn drop(&mut self) {
        if self.entry.state() != UNLINKED {
            self.chan.cancel_recv(&self.entry);
        }
    }
}

#[cfg(not(loom))]
type OnTimeout<'a, O> = (crate::channel::Deadline, Box<dyn FnOnce() -> O + Send + 'a>);

/// A future that completes with the first of several channel operations to complete (see the
/// [module docs](crate::select)). Build it with [`Select::new`], [`recv`](Select::recv) per channel
/// and optionally a [`timeout`](Select::timeout), then `.await` it.
///
/// A branch on a closed, empty channel is ready at once (its closure gets `Err(RecvError)`). A select
/// with no branch and no timeout never completes.
///
/// # Cancel safety
/// Dropping the select loses nothing: a value a channel had handed to it goes back to the front of
/// that channel.
#[must_use = "futures do nothing unless awaited"]
pub struct Select<'a, O> {
    branches: Vec<Box<dyn Branch<O> + Send + 'a>>,
    #[cfg(not(loom))]
    timeout: Option<OnTimeout<'a, O>>,
    /// Claimed by the branch (or the timeout) that wins. Entries point here while linked, so it is
    /// declared after `branches` and dropped after them.
    group: AtomicBool,
    _pin: PhantomPinned,
}

impl<O> Default for Select<'_, O> {
    fn default() -> Self {
        Select::new()
    }
}

impl<'a, O> Select<'a, O> {
    /// A select with no branch yet.
    pub fn new() -> Select<'a, O> {
        Select {
            branches: Vec::new(),
            #[cfg(not(loom))]
            timeout: None,
            group: AtomicBool::new(false),
            _pin: PhantomPinned,
        }
    }

    /// Adds a branch receiving from `rx`; if it wins, the select completes with `map` of what it
    /// received (`Err(RecvError)` if the channel is closed and empty).
    pub fn recv<T: Send + 'a>(
        mut self,
        rx: &'a Receiver<T>,
        map: impl FnOnce(Result<T, RecvError>) -> O + Send + 'a,
    ) -> Select<'a, O> {
        self.branches.push(Box::new(RecvBranch {
            chan: rx.chan_ref(),
            entry: Waiter::new(),
            map: Some(map),
        }));
        self
    }

    /// Completes the select with `on_timeout()` if no branch is ready within `after` (on the
    /// runtime's clock). With `Duration::ZERO` the select only takes what is ready now.
    ///
    /// # Panics
    /// The select then panics when polled outside a process and outside
    /// [`ProcessSystem::block_on`](crate::ProcessSystem::block_on) (no runtime to keep the time).
    #[cfg(not(loom))]
    pub fn timeout(
        mut self,
        after: Duration,
        on_timeout: impl FnOnce() -> O + Send + 'a,
    ) -> Select<'a, O> {
        self.timeout = Some((crate::channel::Deadline::new(after), Box::new(on_timeout)));
        self
    }

    /// The winner after the group was claimed by a channel; cancels the other branches.
    fn finish_claimed(&mut self) -> O {
        let mut winner = None;
        for branch in self.branches.iter_mut() {
            if winner.is_none() {
                if let Some(out) = branch.settle() {
                    winner = Some(out);
                    continue;
                }
            }
            branch.cancel();
        }
        winner.expect("a claimed select has a completed branch")
    }

    fn cancel_all_but(&mut self, keep: usize) {
        for (i, branch) in self.branches.iter_mut().enumerate() {
            if i != keep {
                branch.cancel();
            }
        }
    }
}

impl<O> Future for Select<'_, O> {
    type Output = O;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<O> {
        // SAFETY: nothing is moved out of the pinned select (the group must stay where the entries
        // point).
        let this = unsafe { self.get_unchecked_mut() };
        if crate::channel::yield_if_spent(cx) {
            return Poll::Pending;
        }
        let group: *const AtomicBool = &this.group;
        if this.group.load(Ordering::Acquire) {
            return Poll::Ready(this.finish_claimed());
        }
        for i in 0..this.branches.len() {
            match this.branches[i].poll(group, cx) {
                BranchPoll::Ready(out) => {
                    this.cancel_all_but(i);
                    return Poll::Ready(out);
                }
                BranchPoll::Pending => {}
                BranchPoll::Lost => return Poll::Ready(this.finish_claimed()),
            }
        }
        #[cfg(not(loom))]
        if let Some((deadline, _)) = this.timeout.as_mut() {
            if deadline.passed("Select::timeout") {
                if this
                    .group
                    .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
                {
                    return Poll::Ready(this.finish_claimed());
                }
                this.cancel_all_but(usize::MAX);
                let (_, on_timeout) = this.timeout.take().expect("checked above");
                return Poll::Ready(on_timeout());
            }
            deadline.arm(cx.waker());
        }
        Poll::Pending
    }
}
