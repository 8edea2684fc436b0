//! Fork Join (actor creation) on ractor: a driver that creates `N` workers and sends each its
//! message, on a tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

/// The worker's one unit of work.
struct Work;

/// Kicks off the driver.
struct Start;

struct Worker;

impl Actor for Worker {
    type Msg = Work;
    type State = Reporter<()>;
    type Arguments = Reporter<()>;

    async fn pre_start(
        &self,
        _: ActorRef<Work>,
        done: Reporter<()>,
    ) -> Result<Reporter<()>, ActorProcessingErr> {
        Ok(done)
    }

    async fn handle(
        &self,
        myself: ActorRef<Work>,
        _: Work,
        done: &mut Reporter<()>,
    ) -> Result<(), ActorProcessingErr> {
        perform_computation(FJ_THETA);
        done.report(());
        myself.stop(None);
        Ok(())
    }
}

/// Creates `N` workers, sending each its message as it is created, then exits.
struct Driver;

struct DriverState {
    n: u64,
    done: Reporter<()>,
}

impl Actor for Driver {
    type Msg = Start;
    type State = DriverState;
    type Arguments = DriverState;

    async fn pre_start(
        &self,
        _: ActorRef<Start>,
        state: DriverState,
    ) -> Result<DriverState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<Start>,
        _: Start,
        state: &mut DriverState,
    ) -> Result<(), ActorProcessingErr> {
        for _ in 0..state.n {
            let (worker, _) = Actor::spawn(None, Worker, state.done.clone()).await?;
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
    let (driver, _) = Actor::spawn(None, Driver, state)
        .await
        .expect("spawn Driver");
    driver.cast(Start).expect("the driver is running");
    drop(driver);
}
