//! Fork Join (throughput) on actix: `A` workers, placed round-robin on the arbiters, to which the
//! main thread sends the messages.

use ::actix::{ActorContext, Addr, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::fjthrput::Config;
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

use super::Quota;

/// One unit of work.
#[derive(Message)]
#[rtype(result = "()")]
struct Work;

/// A worker: its count of the messages handled.
struct Worker(Quota);

crate::peers::actix_actors!(Worker);

impl Handler<Work> for Worker {
    type Result = ();

    fn handle(&mut self, _: Work, ctx: &mut Context<Self>) {
        if self.0.work() {
            ctx.stop();
        }
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Places the workers and sends them the `N` rounds, in index order, on the main thread (Savina's
/// driver); returns the addresses the main thread keeps until every actor has exited.
fn start(
    Config { n, a }: Config,
    mut place: Placement,
    reporter: Reporter<u64>,
) -> Vec<Addr<Worker>> {
    let workers: Vec<_> = (0..a)
        .map(|_| {
            let done = reporter.clone();
            place.start(move || Worker(Quota::new(n, done)))
        })
        .collect();
    for _ in 0..n {
        for worker in &workers {
            worker.do_send(Work);
        }
    }
    workers
}
