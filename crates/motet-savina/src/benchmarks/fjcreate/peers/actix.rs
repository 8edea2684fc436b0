//! Fork Join (actor creation) on actix: `N` workers, placed round-robin on the arbiters as they are
//! created.

use ::actix::{Actor, ActorContext, Context, Handler, Message};

use crate::bench::{Iteration, Outcome};
use crate::benchmarks::fjcreate::Config;
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::params::Params;
use crate::peers::{reports, Arbiters, Reporter};

/// The worker's one unit of work.
#[derive(Message)]
#[rtype(result = "()")]
struct Work;

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

struct Program {
    arbiters: Arbiters,
    cfg: Config,
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    Ok(Box::new(Program {
        cfg: Config::from_params(params)?,
        arbiters: Arbiters::new(threads)?,
    }))
}

impl Iteration for Program {
    fn run(&mut self) -> Outcome {
        let Config { n } = self.cfg;
        let mut place = self.arbiters.placement();
        let (reporter, reports) = reports();
        let mut workers = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let done = reporter.clone();
            let worker = Worker::start_in_arbiter(place.next_arbiter(), move |_| Worker { done });
            worker.do_send(Work);
            // Kept until the end (see crate::peers).
            workers.push(worker);
        }
        drop(reporter);
        let reports = reports.blocking_all();
        drop(workers);
        super::outcome(n, &reports)
    }
}
