//! Fork Join (throughput) on ractor: `A` workers and a driver that sends them the messages, on a
//! tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::fjthrput::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

/// One unit of work.
struct Work;

/// Kicks off the driver.
struct Start;

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

/// Sends `N` rounds of one message to each worker, in index order, then exits.
struct Driver;

struct DriverState {
    n: u64,
    workers: Vec<ActorRef<Work>>,
    _done: Reporter<u64>,
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
            for worker in &state.workers {
                worker.cast(Work)?;
            }
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
async fn start(Config { n, a }: Config, reporter: Reporter<u64>) {
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
    let state = DriverState {
        n,
        workers,
        _done: reporter,
    };
    let (driver, _) = Actor::spawn(None, Driver, state)
        .await
        .expect("spawn Driver");
    driver.cast(Start).expect("the driver is running");
    drop(driver);
}
