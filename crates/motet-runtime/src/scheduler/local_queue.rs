//! One of a worker's own queues (its wake queue or its spawn stack): crossbeam's deque where other
//! workers can steal from it, a plain ring buffer in a pool of one worker, where nobody can.
//!
//! A crossbeam deque pays for its thieves on the owner's side too: popping from a FIFO deque is a
//! locked `fetch_add` on the front index, popping from a LIFO deque a sequentially consistent
//! fence, and every push reads the shared indices. A pool of one worker has no thief, so its
//! queues are `VecDeque`s that only the worker's thread touches: no atomics at all. Measured on
//! Savina's sor at one worker, where many tasks go through the wake queue because a cell wakes up
//! to four neighbours per turn (see docs/measurements/2026-11-29-hot-path-choices.md).
//!
//! Nothing else changes for a pool of one worker: its slot, injector and parking are the same, and
//! only its own thread ever pushes onto these queues (work from other threads goes through the
//! injector).

use std::cell::UnsafeCell;
use std::collections::VecDeque;

use crossbeam_deque::{Steal, Stealer, Worker};

use crate::task::raw::TaskRef;

/// Which end the owner pops from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// Oldest first: the wake queue.
    Fifo,
    /// Newest first: the spawn stack.
    Lifo,
}

/// A worker's queue (see the module docs).
pub(crate) enum LocalQueue {
    /// A crossbeam deque; its stealer is in the pool's shared part.
    Shared(Worker<TaskRef>),
    /// The ring of the only worker of its pool.
    Private(Ring),
}

/// A queue that only its worker's thread uses.
pub(crate) struct Ring {
    tasks: UnsafeCell<VecDeque<TaskRef>>,
    order: Order,
}

impl Ring {
    /// The deque, for one call of a method below.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    fn tasks(&self) -> &mut VecDeque<TaskRef> {
        // SAFETY: a `Ring` lives in its worker's context on that worker's stack and is not `Sync`
        // (`UnsafeCell`), so only that thread reaches it; each method below takes this reference
        // for one `VecDeque` call that does not call back into the ring, so no two overlap.
        unsafe { &mut *self.tasks.get() }
    }
}

impl LocalQueue {
    /// A deque that other workers steal from, with its stealer for the pool.
    pub(crate) fn shared(order: Order) -> (LocalQueue, Stealer<TaskRef>) {
        let worker = match order {
            Order::Fifo => Worker::new_fifo(),
            Order::Lifo => Worker::new_lifo(),
        };
        let stealer = worker.stealer();
        (LocalQueue::Shared(worker), stealer)
    }

    /// A ring for the only worker of a pool.
    pub(crate) fn private(order: Order) -> LocalQueue {
        LocalQueue::Private(Ring {
            tasks: UnsafeCell::new(VecDeque::with_capacity(64)),
            order,
        })
    }

    /// Pushes a task (at the back: the owner pops it last from a FIFO queue, first from a LIFO one).
    #[inline]
    pub(crate) fn push(&self, task: TaskRef) {
        match self {
            LocalQueue::Shared(worker) => worker.push(task),
            LocalQueue::Private(ring) => ring.tasks().push_back(task),
        }
    }

    /// [`LocalQueue::push`] where the queue is known to be a ring (the only worker of its pool):
    /// the ring's push inline, the deque's out of line.
    #[inline]
    pub(crate) fn push_private(&self, task: TaskRef) {
        match self {
            LocalQueue::Private(ring) => ring.tasks().push_back(task),
            LocalQueue::Shared(_) => self.push_out_of_line(task),
        }
    }

    /// [`LocalQueue::push`], kept out of [`LocalQueue::push_private`].
    #[inline(never)]
    fn push_out_of_line(&self, task: TaskRef) {
        self.push(task);
    }

    /// The owner's next task: the oldest of a FIFO queue, the newest of a LIFO one.
    #[inline]
    pub(crate) fn pop(&self) -> Option<TaskRef> {
        match self {
            LocalQueue::Shared(worker) => worker.pop(),
            LocalQueue::Private(ring) => match ring.order {
                Order::Fifo => ring.tasks().pop_front(),
                Order::Lifo => ring.tasks().pop_back(),
            },
        }
    }

    /// The oldest task, the one thieves would take (`stealer` is this queue's own stealer).
    pub(crate) fn pop_oldest(&self, stealer: &Stealer<TaskRef>) -> Option<TaskRef> {
        match self {
            LocalQueue::Shared(_) => loop {
                match stealer.steal() {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => continue,
                    Steal::Empty => return None,
                }
            },
            LocalQueue::Private(ring) => ring.tasks().pop_front(),
        }
    }

    /// Whether the queue is empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            LocalQueue::Shared(worker) => worker.is_empty(),
            LocalQueue::Private(ring) => ring.tasks().is_empty(),
        }
    }

    /// The crossbeam deque, for batch steals into it; `None` for a ring.
    #[inline]
    pub(crate) fn worker(&self) -> Option<&Worker<TaskRef>> {
        match self {
            LocalQueue::Shared(worker) => Some(worker),
            LocalQueue::Private(_) => None,
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{LocalQueue, Order};
    use crate::task::raw::TaskRef;
    use std::ptr::NonNull;

    /// A second queued form of `task`, for queues that are only pushed and popped, never run.
    fn alias(task: &TaskRef) -> TaskRef {
        // SAFETY: the aliases are never run nor shut down; the originals are freed at the end.
        unsafe { TaskRef::from_raw(task.as_ptr()) }
    }

    /// Both kinds hand out tasks in the same order: FIFO and LIFO from the owner's end, oldest
    /// first from the thieves' end.
    #[test]
    fn rings_pop_in_the_order_of_crossbeams_deques() {
        let all: Vec<TaskRef> = (0..5)
            .map(|_| crate::testing::once(|| {}, || {}).into_task_ref())
            .collect();
        let ptrs: Vec<NonNull<_>> = all.iter().map(TaskRef::as_ptr).collect();
        for order in [Order::Fifo, Order::Lifo] {
            let (shared, stealer) = LocalQueue::shared(order);
            let private = LocalQueue::private(order);
            for queue in [&shared, &private] {
                assert!(queue.is_empty());
                for t in &all {
                    queue.push(alias(t));
                }
                assert!(!queue.is_empty());
            }
            let drain = |q: &LocalQueue| {
                let mut out = vec![q.pop_oldest(&stealer).unwrap().as_ptr()];
                while let Some(t) = q.pop() {
                    out.push(t.as_ptr());
                }
                out
            };
            let (a, b) = (drain(&shared), drain(&private));
            assert_eq!(a, b);
            assert_eq!(a[0], ptrs[0], "the oldest first");
            let expected_second = if order == Order::Fifo {
                ptrs[1]
            } else {
                ptrs[4]
            };
            assert_eq!(a[1], expected_second);
            assert_eq!(a.len(), ptrs.len());
            assert!(shared.is_empty() && private.is_empty());
        }
        for t in all {
            // SAFETY: each original holds its task's runnable count; a `()` shared part.
            drop(unsafe { crate::task::Runnable::<()>::from_task_ref(t) });
        }
    }
}
