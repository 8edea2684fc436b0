//! Fork Join (actor creation) on kameo: a driver that creates `N` workers and sends each its
//! message, with unbounded mailboxes on a tokio runtime with `threads` workers.

use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

/// The worker's one unit of work.
struct Work;

/// Kicks off the driver.
struct Start;

#[derive(Actor)]
struct Worker {
    done: Reporter<()>,
}

impl Message<Work> for Worker {
    type Reply = ();

    async fn handle(&mut self, _: Work, ctx: &mut Context<Self, ()>) {
        perform_computation(FJ_THETA);
        self.done.report(());
        ctx.stop();
    }
}

/// Creates `N` workers, sending each its message as it is created, then exits.
#[derive(Actor)]
struct Driver {
    n: u64,
    done: Reporter<()>,
}

impl Message<Start> for Driver {
    type Reply = ();

    async fn handle(&mut self, _: Start, ctx: &mut Context<Self, ()>) {
        for _ in 0..self.n {
            let worker = Worker {
                done: self.done.clone(),
            };
            let worker = kameo_spawn(worker);
            worker.tell(Work).try_send().expect("the worker is running");
        }
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n }: Config, reporter: Reporter<()>) {
    let driver = kameo_spawn(Driver { n, done: reporter });
    driver
        .tell(Start)
        .try_send()
        .expect("the driver is running");
    drop(driver);
}
