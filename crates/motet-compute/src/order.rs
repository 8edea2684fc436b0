//! The reply order of a compute actor's requests: requests are numbered as they arrive, each
//! gets an entry here, and an entry's outcome is recorded when its launch completes (on OpenCL's
//! callback thread) or when the request is refused (on the actor's worker). Finished entries at
//! the front are answered; a request that finished early waits for the ones before it, so replies
//! leave in request order.
//!
//! A mutex guards the entries: the actor and the callbacks of its launches are its only users,
//! each holding it for a push or a few pops, and replies are sent after it is released.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use crate::error::ComputeError;

/// Where a request's outcome goes.
pub(crate) enum ReplyTo<O> {
    Ask(motet_actor::Reply<Result<O, ComputeError>>),
    Then(Box<dyn FnOnce(Result<O, ComputeError>) + Send>),
}

impl<O> ReplyTo<O> {
    fn send(self, result: Result<O, ComputeError>) {
        match self {
            ReplyTo::Ask(reply) => {
                let _ = reply.send(result);
            }
            ReplyTo::Then(f) => f(result),
        }
    }
}

struct Entry<O> {
    reply: ReplyTo<O>,
    outcome: Option<Result<O, ComputeError>>,
}

struct Queue<O> {
    entries: VecDeque<Entry<O>>,
    /// The number of the request at the front of `entries`.
    front: u64,
}

/// The in-flight requests of one compute actor, in arrival order.
pub(crate) struct ReplyOrder<O> {
    queue: Mutex<Queue<O>>,
}

impl<O> ReplyOrder<O> {
    pub(crate) fn new() -> Self {
        ReplyOrder {
            queue: Mutex::new(Queue {
                entries: VecDeque::new(),
                front: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue<O>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Enters a request; returns its number.
    pub(crate) fn push(&self, reply: ReplyTo<O>) -> u64 {
        let mut q = self.lock();
        q.entries.push_back(Entry {
            reply,
            outcome: None,
        });
        q.front + q.entries.len() as u64 - 1
    }

    /// Records request `seq`'s outcome and answers every finished request at the front (after
    /// releasing the lock).
    pub(crate) fn finish(&self, seq: u64, outcome: Result<O, ComputeError>) {
        let mut ready = Vec::new();
        {
            let mut q = self.lock();
            let Some(i) = seq.checked_sub(q.front) else {
                return;
            };
            let Some(entry) = q.entries.get_mut(i as usize) else {
                return;
            };
            entry.outcome = Some(outcome);
            while q.entries.front().is_some_and(|e| e.outcome.is_some()) {
                ready.extend(q.entries.pop_front());
                q.front += 1;
            }
        }
        for e in ready {
            if let Some(outcome) = e.outcome {
                e.reply.send(outcome);
            }
        }
    }

    /// How many requests are waiting for their reply.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    fn recorder(log: &Arc<Mutex<Vec<(u32, bool)>>>, id: u32) -> ReplyTo<u32> {
        let log = log.clone();
        ReplyTo::Then(Box::new(move |r| log.lock().unwrap().push((id, r.is_ok()))))
    }

    #[test]
    fn outcomes_in_any_order_are_answered_in_request_order() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let order = ReplyOrder::new();
        let seqs: Vec<u64> = (0..5).map(|i| order.push(recorder(&log, i))).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3, 4]);
        order.finish(2, Ok(2));
        order.finish(1, Err(ComputeError::Execution(-5)));
        assert!(log.lock().unwrap().is_empty(), "request 0 is not finished");
        order.finish(0, Ok(0));
        assert_eq!(*log.lock().unwrap(), vec![(0, true), (1, false), (2, true)]);
        order.finish(4, Ok(4));
        assert_eq!(order.len(), 2);
        order.finish(3, Ok(3));
        assert_eq!(log.lock().unwrap().len(), 5);
        assert_eq!(order.len(), 0);
        // Unknown or repeated numbers are ignored.
        order.finish(3, Ok(3));
        order.finish(99, Ok(99));
        assert_eq!(order.push(recorder(&log, 5)), 5);
    }

    #[test]
    fn finishing_from_many_threads_keeps_the_order() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let order = Arc::new(ReplyOrder::new());
        let n = 2000u32;
        let seqs: Vec<u64> = (0..n).map(|i| order.push(recorder(&log, i))).collect();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let order = order.clone();
                let mine: Vec<u64> = seqs.iter().copied().filter(|s| s % 4 == t).rev().collect();
                std::thread::spawn(move || {
                    for s in mine {
                        order.finish(s, Ok(s as u32));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let log = log.lock().unwrap();
        assert_eq!(log.len(), n as usize);
        assert!(log
            .iter()
            .enumerate()
            .all(|(i, (id, ok))| *id == i as u32 && *ok));
    }
}
