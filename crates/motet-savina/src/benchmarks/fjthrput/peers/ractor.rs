//! Fork Join (throughput) on ractor: `A` workers on a tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};
use tokio::runtime::Runtime;

use crate::bench::{Iteration, Outcome};
use crate::benchmarks::fjthrput::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{reports, tokio_runtime, Reporter};

/// One unit of work.
struct Work;

struct Worker;

struct WorkerState {
    n: u64,
    processed: u64,
    done: Reporter<u64>,
}

impl Actor for Worker {
    type Msg = Work;
    type State = WorkerState;
    type Arguments = WorkerState;

    async fn pre_start(
        &self,
        _: ActorRef<Work>,
        state: WorkerState,
    ) -> Result<WorkerState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<Work>,
        _: Work,
        state: &mut WorkerState,
    ) -> Result<(), ActorProcessingErr> {
        perform_computation(FJ_THETA);
        state.processed += 1;
        if state.processed == state.n {
            state.done.report(state.processed);
            myself.stop(None);
        }
        Ok(())
    }
}

struct Program {
    runtime: Runtime,
    cfg: Config,
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    Ok(Box::new(Program {
        cfg: Config::from_params(params)?,
        runtime: tokio_runtime(threads)?,
    }))
}

impl Iteration for Program {
    fn run(&mut self) -> Outcome {
        let Config { n, a } = self.cfg;
        self.runtime.block_on(async move {
            let (reporter, reports) = reports();
            let mut workers = Vec::with_capacity(a);
            for _ in 0..a {
                let state = WorkerState {
                    n,
                    processed: 0,
                    done: reporter.clone(),
                };
                let (worker, _) = Actor::spawn(None, Worker, state)
                    .await
                    .expect("spawn Worker");
                workers.push(worker);
            }
            drop(reporter);
            for _ in 0..n {
                for worker in &workers {
                    worker.cast(Work).expect("the worker is running");
                }
            }
            drop(workers);
            super::outcome(n, a, &reports.all().await)
        })
    }
}
