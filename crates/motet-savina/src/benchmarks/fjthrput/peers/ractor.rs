//! Fork Join (throughput) on ractor: `A` workers to which the main thread sends the messages, on
//! a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::fjthrput::Config;
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

use super::Quota;

/// One unit of work.
struct Work;

/// A worker's state: its count of the messages handled.
struct WorkerState(Quota);

impl RactorState for WorkerState {
    type Msg = Work;

    async fn handle(&mut self, myself: ActorRef<Work>, _: Work) -> Result<(), ActorProcessingErr> {
        if self.0.work() {
            myself.stop(None);
        }
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the workers and sends them the `N` rounds, in index order, on the main thread
/// (Savina's driver).
async fn start(Config { n, a }: Config, reporter: Reporter<u64>) {
    let mut workers = Vec::with_capacity(a);
    for _ in 0..a {
        let state = WorkerState(Quota::new(n, reporter.clone()));
        let (worker, _) = ractor_spawn(state).await.expect("spawn Worker");
        workers.push(worker);
    }
    for _ in 0..n {
        for worker in &workers {
            worker.cast(Work).expect("the worker is running");
        }
    }
}
