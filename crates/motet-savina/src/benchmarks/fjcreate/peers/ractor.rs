//! Fork Join (actor creation) on ractor: a driver that creates `N` workers and sends each its
//! message, on a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

/// The worker's one unit of work.
struct Work;

/// Kicks off the driver.
struct Start;

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

struct DriverState {
    n: u64,
    done: Reporter<()>,
}

impl RactorState for DriverState {
    type Msg = Start;

    async fn handle(
        &mut self,
        myself: ActorRef<Start>,
        _: Start,
    ) -> Result<(), ActorProcessingErr> {
        for _ in 0..self.n {
            let (worker, _) = ractor_spawn(Worker(self.done.clone())).await?;
            worker.cast(Work)?;
        }
        myself.stop(None);
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n }: Config, reporter: Reporter<()>) {
    let state = DriverState { n, done: reporter };
    let (driver, _) = ractor_spawn(state).await.expect("spawn Driver");
    driver.cast(Start).expect("the driver is running");
    drop(driver);
}
