//! Fork Join (actor creation) on actix: the main thread creates `N` workers and sends each its
//! message, the workers placed round-robin on the arbiters.

use ::actix::{ActorContext, Addr, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// The worker's one unit of work.
#[derive(Message)]
#[rtype(result = "()")]
struct Work;

struct Worker {
    done: Reporter<()>,
}

crate::peers::actix_actors!(Worker);

impl Handler<Work> for Worker {
    type Result = ();

    fn handle(&mut self, _: Work, ctx: &mut Context<Self>) {
        perform_computation(FJ_THETA);
        self.done.report(());
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the `N` workers, placed round-robin, and sends each its message as it is created, on
/// the main thread (Savina's driver); returns the addresses the main thread keeps until every
/// actor has exited (see crate::peers).
fn start(Config { n }: Config, mut place: Placement, reporter: Reporter<()>) -> Vec<Addr<Worker>> {
    (0..n)
        .map(|_| {
            let done = reporter.clone();
            let worker = place.start(move || Worker { done });
            worker.do_send(Work);
            worker
        })
        .collect()
}
