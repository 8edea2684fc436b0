//! Fork Join (actor creation) on kameo: the main thread creates `N` workers and sends each its
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

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the `N` workers and sends each its message as it is created, on the main thread
/// (Savina's driver).
async fn start(Config { n }: Config, reporter: Reporter<()>) {
    for _ in 0..n {
        let worker = kameo_spawn(Worker {
            done: reporter.clone(),
        });
        worker.tell(Work).try_send().expect("the worker is running");
    }
}
