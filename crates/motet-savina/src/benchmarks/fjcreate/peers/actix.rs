//! Fork Join (actor creation) on actix: a driver that creates `N` workers and sends each its
//! message, placed round-robin on the arbiters (the driver first, then the workers as it creates
//! them).

use ::actix::{Actor, ActorContext, Addr, Context, Handler, Message};
use tokio::sync::oneshot;

use crate::bench::Prepared;
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// The worker's one unit of work.
#[derive(Message)]
#[rtype(result = "()")]
struct Work;

/// Kicks off the driver, with the channel on which it hands the workers' addresses to the main
/// thread.
#[derive(Message)]
#[rtype(result = "()")]
struct Start(oneshot::Sender<Vec<Addr<Worker>>>);

struct Worker {
    done: Reporter<()>,
}

impl Actor for Worker {
    type Context = Context<Self>;
}

impl Handler<Work> for Worker {
    type Result = ();

    fn handle(&mut self, _: Work, ctx: &mut Context<Self>) {
        perform_computation(FJ_THETA);
        self.done.report(());
        ctx.stop();
    }
}

/// Creates `N` workers, sending each its message as it is created, then exits.
struct Driver {
    n: u64,
    place: Placement,
    done: Reporter<()>,
}

impl Actor for Driver {
    type Context = Context<Self>;
}

impl Handler<Start> for Driver {
    type Result = ();

    fn handle(&mut self, Start(keep): Start, ctx: &mut Context<Self>) {
        let mut workers = Vec::with_capacity(self.n as usize);
        for _ in 0..self.n {
            let done = self.done.clone();
            let worker = self.place.start(move || Worker { done });
            worker.do_send(Work);
            workers.push(worker);
        }
        // The driver exits before its workers, so the main thread keeps their addresses until
        // the end (see crate::peers).
        let _ = keep.send(workers);
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Places the driver and sends it `Start`, on the main thread, then waits for the workers'
/// addresses; returns the addresses the main thread keeps until every actor has exited.
fn start(
    Config { n }: Config,
    mut place: Placement,
    reporter: Reporter<()>,
) -> (Addr<Driver>, Vec<Addr<Worker>>) {
    let arbiter = place.next_arbiter().clone();
    let driver = Driver::start_in_arbiter(&arbiter, move |_| Driver {
        n,
        place,
        done: reporter,
    });
    let (keep, workers) = oneshot::channel();
    driver.do_send(Start(keep));
    // Empty if the driver failed; the missing reports then fail the check.
    let workers = workers.blocking_recv().unwrap_or_default();
    (driver, workers)
}
