//! Fork Join (throughput) on kameo: `A` workers to which the main thread sends the messages, with
//! unbounded mailboxes on a tokio runtime with `threads` workers.

use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::fjthrput::Config;
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

use super::Quota;

/// One unit of work.
struct Work;

/// A worker: its count of the messages handled.
#[derive(Actor)]
struct Worker(Quota);

impl Message<Work> for Worker {
    type Reply = ();

    async fn handle(&mut self, _: Work, ctx: &mut Context<Self, ()>) {
        if self.0.work() {
            ctx.stop();
        }
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the workers and sends them the `N` rounds, in index order, on the main thread
/// (Savina's driver).
async fn start(Config { n, a }: Config, reporter: Reporter<u64>) {
    let workers: Vec<_> = (0..a)
        .map(|_| {
            let worker = Worker(Quota::new(n, reporter.clone()));
            kameo_spawn(worker)
        })
        .collect();
    for _ in 0..n {
        for worker in &workers {
            worker.tell(Work).try_send().expect("the worker is running");
        }
    }
}
