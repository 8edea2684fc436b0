//! Fork Join (actor creation) on ractor: the main thread creates `N` workers and sends each its
//! message, on a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

/// The worker's one unit of work.
struct Work;

/// A worker: its reporter.
struct Worker(Reporter<()>);

impl RactorState for Worker {
    type Msg = Work;

    async fn handle(&mut self, myself: ActorRef<Work>, _: Work) -> Result<(), ActorProcessingErr> {
        perform_computation(FJ_THETA);
        self.0.report(());
        myself.stop(None);
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the `N` workers and sends each its message as it is created, on the main thread
/// (Savina's driver).
async fn start(Config { n }: Config, reporter: Reporter<()>) {
    for _ in 0..n {
        let (worker, _) = ractor_spawn(Worker(reporter.clone()))
            .await
            .expect("spawn Worker");
        worker.cast(Work).expect("the worker is running");
    }
}
