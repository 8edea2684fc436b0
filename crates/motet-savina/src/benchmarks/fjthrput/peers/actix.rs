//! Fork Join (throughput) on actix: `A` workers and a driver that sends them the messages, placed
//! round-robin on the arbiters (the workers first, then the driver).

use ::actix::{Actor, ActorContext, Addr, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::fjthrput::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// One unit of work.
#[derive(Message)]
#[rtype(result = "()")]
struct Work;

/// Kicks off the driver.
#[derive(Message)]
#[rtype(result = "()")]
struct Start;

struct Worker {
    n: u64,
    processed: u64,
    done: Reporter<u64>,
}

impl Actor for Worker {
    type Context = Context<Self>;
}

impl Handler<Work> for Worker {
    type Result = ();

    fn handle(&mut self, _: Work, ctx: &mut Context<Self>) {
        perform_computation(FJ_THETA);
        self.processed += 1;
        if self.processed == self.n {
            self.done.report(self.processed);
            ctx.stop();
        }
    }
}

/// Sends `N` rounds of one message to each worker, in index order, then exits.
struct Driver {
    n: u64,
    workers: Vec<Addr<Worker>>,
    _done: Reporter<u64>,
}

impl Actor for Driver {
    type Context = Context<Self>;
}

impl Handler<Start> for Driver {
    type Result = ();

    fn handle(&mut self, _: Start, ctx: &mut Context<Self>) {
        for _ in 0..self.n {
            for worker in &self.workers {
                worker.do_send(Work);
            }
        }
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Places the first actors and sends the kick-off messages, on the main thread; returns the
/// addresses the main thread keeps until every actor has exited.
fn start(
    Config { n, a }: Config,
    mut place: Placement,
    reporter: Reporter<u64>,
) -> (Addr<Driver>, Vec<Addr<Worker>>) {
    let workers: Vec<_> = (0..a)
        .map(|_| {
            let done = reporter.clone();
            place.start(move || Worker {
                n,
                processed: 0,
                done,
            })
        })
        .collect();
    let driver_workers = workers.clone();
    let driver = place.start(move || Driver {
        n,
        workers: driver_workers,
        _done: reporter,
    });
    driver.do_send(Start);
    (driver, workers)
}
