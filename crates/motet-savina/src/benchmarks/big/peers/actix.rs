//! Big on actix: the sink and `W` Big actors, placed round-robin on the arbiters (the sink first).

use std::sync::Arc;

use ::actix::{ActorContext, Addr, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::big::Config;
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

use super::{AfterPong, Pinger, Report};

/// Every Big actor's address, by id.
#[derive(Message)]
#[rtype(result = "()")]
struct Neighbors(Arc<[Addr<BigActor>]>);

/// A ping from the Big actor with the given id.
#[derive(Message)]
#[rtype(result = "()")]
struct Ping(usize);

/// A pong from the Big actor with the given id (`-1`: the kick-off).
#[derive(Message)]
#[rtype(result = "()")]
struct Pong(i64);

/// To the sink: a Big actor is done. To a Big actor: stop.
#[derive(Message)]
#[rtype(result = "()")]
struct Exit;

struct BigActor {
    pinger: Pinger,
    neighbors: Arc<[Addr<BigActor>]>,
    sink: Addr<Sink>,
    done: Reporter<Report>,
}

crate::peers::actix_actors!(BigActor);

impl Handler<Neighbors> for BigActor {
    type Result = ();

    fn handle(&mut self, Neighbors(neighbors): Neighbors, _: &mut Context<Self>) {
        self.neighbors = neighbors;
    }
}

impl Handler<Pong> for BigActor {
    type Result = ();

    fn handle(&mut self, Pong(sender): Pong, _: &mut Context<Self>) {
        match self.pinger.pong(sender, self.neighbors.len()) {
            AfterPong::Ping(target) => self.neighbors[target].do_send(Ping(self.pinger.id)),
            AfterPong::Exit => self.sink.do_send(Exit),
        }
    }
}

impl Handler<Ping> for BigActor {
    type Result = ();

    fn handle(&mut self, Ping(sender): Ping, _: &mut Context<Self>) {
        self.neighbors[sender].do_send(Pong(self.pinger.ping()));
    }
}

impl Handler<Exit> for BigActor {
    type Result = ();

    fn handle(&mut self, _: Exit, ctx: &mut Context<Self>) {
        self.done.report(self.pinger.report());
        ctx.stop();
    }
}

struct Sink {
    exits: u64,
    neighbors: Arc<[Addr<BigActor>]>,
    done: Reporter<Report>,
}

crate::peers::actix_actors!(Sink);

impl Handler<Neighbors> for Sink {
    type Result = ();

    fn handle(&mut self, Neighbors(neighbors): Neighbors, _: &mut Context<Self>) {
        self.neighbors = neighbors;
    }
}

impl Handler<Exit> for Sink {
    type Result = ();

    fn handle(&mut self, _: Exit, ctx: &mut Context<Self>) {
        self.exits += 1;
        if self.exits == self.neighbors.len() as u64 {
            for big in self.neighbors.iter() {
                big.do_send(Exit);
            }
            self.done.report(Report::Exits(self.exits));
            ctx.stop();
        }
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Places the first actors and sends the kick-off messages, on the main thread; returns the
/// addresses the main thread keeps until every actor has exited.
fn start(
    Config { n, w }: Config,
    mut place: Placement,
    reporter: Reporter<Report>,
) -> (Addr<Sink>, Arc<[Addr<BigActor>]>) {
    let done = reporter.clone();
    let sink = place.start(move || Sink {
        exits: 0,
        neighbors: Arc::from([]),
        done,
    });
    let bigs: Arc<[Addr<BigActor>]> = (0..w)
        .map(|id| {
            let sink = sink.clone();
            let done = reporter.clone();
            place.start(move || BigActor {
                pinger: Pinger::new(id, n),
                neighbors: Arc::from([]),
                sink,
                done,
            })
        })
        .collect();
    drop(reporter);
    sink.do_send(Neighbors(Arc::clone(&bigs)));
    for big in bigs.iter() {
        big.do_send(Neighbors(Arc::clone(&bigs)));
    }
    for big in bigs.iter() {
        big.do_send(Pong(-1));
    }
    (sink, bigs)
}
