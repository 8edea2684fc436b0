//! The Master's ledger, which the actor and floor programs share: its workers and the next one
//! to get a Work item, the Work items sent and done, the solutions, and the stop of the workers.

use super::Counts;

/// What the Master counts, over workers addressed by `A`.
#[derive(Debug)]
pub(crate) struct Ledger<A> {
    workers: Vec<A>,
    next_worker: usize,
    sent: u64,
    done: u64,
    solutions: u64,
    /// Solutions after which the workers stop (`-s`).
    limit: u64,
    stopping: bool,
    stopped: usize,
}

impl<A> Ledger<A> {
    /// An empty ledger, stopping the workers after `limit` solutions.
    pub(crate) fn new(limit: u64) -> Ledger<A> {
        Ledger {
            workers: Vec::new(),
            next_worker: 0,
            sent: 0,
            done: 0,
            solutions: 0,
            limit,
            stopping: false,
            stopped: 0,
        }
    }

    /// Adds a worker, last in the round-robin order.
    pub(crate) fn add_worker(&mut self, worker: A) {
        self.workers.push(worker);
    }

    /// The workers, in round-robin order.
    pub(crate) fn workers(&self) -> &[A] {
        &self.workers
    }

    /// Drops the workers (their addresses), once they have all stopped.
    pub(crate) fn clear_workers(&mut self) {
        self.workers.clear();
    }

    /// Counts a Work item sent and returns the worker it goes to (round-robin).
    #[inline]
    pub(crate) fn send(&mut self) -> &A {
        let worker = &self.workers[self.next_worker];
        self.next_worker = (self.next_worker + 1) % self.workers.len();
        self.sent += 1;
        worker
    }

    /// Counts a solution; returns whether the workers are to be told to stop now (the limit is
    /// reached and they were not told yet).
    #[inline]
    pub(crate) fn solution(&mut self) -> bool {
        self.solutions += 1;
        self.solutions == self.limit && self.begin_stop()
    }

    /// Counts a Work item done; returns whether the workers are to be told to stop now (every
    /// item sent is done and they were not told yet).
    #[inline]
    pub(crate) fn done(&mut self) -> bool {
        self.done += 1;
        self.done == self.sent && self.begin_stop()
    }

    /// Marks the stop begun; returns whether it was not yet.
    #[inline]
    fn begin_stop(&mut self) -> bool {
        !std::mem::replace(&mut self.stopping, true)
    }

    /// Counts a worker's echo of `Stop`; once every worker has echoed, returns the counts.
    #[inline]
    pub(crate) fn stopped(&mut self) -> Option<Counts> {
        self.stopped += 1;
        (self.stopped == self.workers.len()).then_some(Counts {
            solutions: self.solutions,
            work_items: self.sent,
        })
    }
}
