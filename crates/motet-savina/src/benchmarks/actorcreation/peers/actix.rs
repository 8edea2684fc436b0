//! Actor creation on actix: every testee starts its two children on the next arbiters,
//! round-robin, and keeps their addresses until both have answered (see crate::peers).

use ::actix::{Actor, ActorContext, Addr, AsyncContext, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::actorcreation::Config;
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// Build a subtree of this depth.
#[derive(Message)]
#[rtype(result = "()")]
struct Spread(u32);

/// A child's subtree has this many leaves.
#[derive(Message)]
#[rtype(result = "()")]
struct Leaves(u64);

struct Testee {
    /// `None` for the root, which reports to the main thread.
    parent: Option<Addr<Testee>>,
    children: [Option<Addr<Testee>>; 2],
    pending: u8,
    leaves: u64,
    place: Placement,
    done: Reporter<u64>,
}

impl Testee {
    fn new(parent: Option<Addr<Testee>>, place: Placement, done: Reporter<u64>) -> Testee {
        Testee {
            parent,
            children: [None, None],
            pending: 0,
            leaves: 0,
            place,
            done,
        }
    }

    fn finish(&mut self, leaves: u64, ctx: &mut Context<Self>) {
        match self.parent.take() {
            Some(parent) => parent.do_send(Leaves(leaves)),
            None => self.done.report(leaves),
        }
        ctx.stop();
    }
}

crate::peers::actix_actors!(Testee);

impl Handler<Spread> for Testee {
    type Result = ();

    fn handle(&mut self, Spread(depth): Spread, ctx: &mut Context<Self>) {
        if depth == 0 {
            self.finish(1, ctx);
            return;
        }
        for slot in &mut self.children {
            let (me, place, done) = (ctx.address(), self.place.clone(), self.done.clone());
            let child = self.place.start(move || Testee::new(Some(me), place, done));
            child.do_send(Spread(depth - 1));
            *slot = Some(child);
        }
        self.pending = 2;
    }
}

impl Handler<Leaves> for Testee {
    type Result = ();

    fn handle(&mut self, Leaves(leaves): Leaves, ctx: &mut Context<Self>) {
        self.leaves += leaves;
        self.pending -= 1;
        if self.pending == 0 {
            self.finish(self.leaves, ctx);
        }
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Starts the root and sends it `Spread(n)`, on the main thread; returns its address, which the
/// main thread keeps until every actor has exited.
fn start(Config { n }: Config, mut place: Placement, reporter: Reporter<u64>) -> Addr<Testee> {
    let arbiter = place.next_arbiter().clone();
    let root = Testee::start_in_arbiter(&arbiter, move |_| Testee::new(None, place, reporter));
    root.do_send(Spread(n));
    root
}
