//! Split-join: scatter one request to every worker of a pool and gather the replies into one
//! answer (CAF's `split_join` policy).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::Pool;
use crate::ask::{Ask, AskError, Reply};

type Join<R, T> = Box<dyn FnOnce(Vec<Result<R, AskError>>) -> T + Send>;

/// The replies gathered so far; the last part to arrive joins them and answers.
struct Gather<R, T> {
    state: Mutex<State<R, T>>,
}

struct State<R, T> {
    parts: Vec<Option<Result<R, AskError>>>,
    missing: usize,
    join: Option<Join<R, T>>,
    reply: Option<Reply<T>>,
}

impl<R, T> Gather<R, T> {
    fn put(&self, i: usize, part: Result<R, AskError>) {
        let done = {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            st.parts[i] = Some(part);
            st.missing -= 1;
            if st.missing > 0 {
                return;
            }
            let parts = std::mem::take(&mut st.parts);
            (parts, st.join.take(), st.reply.take())
        };
        let (parts, Some(join), Some(reply)) = done else {
            return;
        };
        let parts = parts
            .into_iter()
            .map(|p| p.unwrap_or(Err(AskError::Dropped)))
            .collect();
        let _ = reply.send(join(parts));
    }
}

impl<M: Send + 'static> Pool<M> {
    /// Sends the request `make` builds to every worker and, once each has answered, failed or timed
    /// out (after `timeout`), answers with what `join` makes of the parts (in worker order; a
    /// worker that stopped with the request queued gives [`AskError::Dropped`]). The returned
    /// [`Ask`] fails with [`AskError::Stopped`] if the pool has no worker, and with
    /// [`AskError::Timeout`] only if `join` has not answered within twice `timeout`. `join` runs on
    /// the thread that completes the last part: keep it short.
    pub fn split_join<R: Send + 'static, T: Send + 'static>(
        &self,
        make: impl Fn(Reply<R>) -> M,
        timeout: Duration,
        join: impl FnOnce(Vec<Result<R, AskError>>) -> T + Send + 'static,
    ) -> Ask<T> {
        let workers = self.shared.snapshot();
        let runtime = self.addr.header().runtime().clone();
        let (reply, ask) = crate::ask::pair(runtime, timeout.saturating_mul(2));
        if workers.is_empty() {
            ask.fail_stopped();
            return ask;
        }
        let gather = Arc::new(Gather {
            state: Mutex::new(State {
                parts: (0..workers.len()).map(|_| None).collect(),
                missing: workers.len(),
                join: Some(Box::new(join)),
                reply: Some(reply),
            }),
        });
        for (i, worker) in workers.iter().enumerate() {
            let gather = gather.clone();
            worker
                .ask(&make, timeout)
                .then(move |part| gather.put(i, part));
        }
        ask
    }
}
