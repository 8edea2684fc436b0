//! Fork Join (throughput) on kameo: `A` workers and a driver that sends them the messages, with
//! unbounded mailboxes on a tokio runtime with `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::fjthrput::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

/// One unit of work.
struct Work;

/// Kicks off the driver.
struct Start;

#[derive(Actor)]
struct Worker {
    n: u64,
    processed: u64,
    done: Reporter<u64>,
}

impl Message<Work> for Worker {
    type Reply = ();

    async fn handle(&mut self, _: Work, ctx: &mut Context<Self, ()>) {
        perform_computation(FJ_THETA);
        self.processed += 1;
        if self.processed == self.n {
            self.done.report(self.processed);
            ctx.stop();
        }
    }
}

/// Sends `N` rounds of one message to each worker, in index order, then exits.
#[derive(Actor)]
struct Driver {
    n: u64,
    workers: Vec<ActorRef<Worker>>,
    _done: Reporter<u64>,
}

impl Message<Start> for Driver {
    type Reply = ();

    async fn handle(&mut self, _: Start, ctx: &mut Context<Self, ()>) {
        for _ in 0..self.n {
            for worker in &self.workers {
                worker.tell(Work).try_send().expect("the worker is running");
            }
        }
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, a }: Config, reporter: Reporter<u64>) {
    let workers: Vec<_> = (0..a)
        .map(|_| {
            let worker = Worker {
                n,
                processed: 0,
                done: reporter.clone(),
            };
            kameo_spawn(worker)
        })
        .collect();
    let driver = Driver {
        n,
        workers,
        _done: reporter,
    };
    let driver = kameo_spawn(driver);
    driver
        .tell(Start)
        .try_send()
        .expect("the driver is running");
    drop(driver);
}
