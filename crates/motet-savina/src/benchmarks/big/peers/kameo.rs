//! Big on kameo: the sink and `W` Big actors with unbounded mailboxes on a tokio runtime with
//! `threads` workers.

use std::sync::Arc;

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::big::Config;
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

use super::{AfterPong, Pinger, Report};

/// Every Big actor, by id.
struct Neighbors(Arc<[ActorRef<BigActor>]>);

/// A ping from the Big actor with the given id.
struct Ping(usize);

/// A pong from the Big actor with the given id (`-1`: the kick-off).
struct Pong(i64);

/// To the sink: a Big actor is done. To a Big actor: stop.
struct Exit;

#[derive(Actor)]
struct BigActor {
    pinger: Pinger,
    neighbors: Arc<[ActorRef<BigActor>]>,
    sink: ActorRef<Sink>,
    done: Reporter<Report>,
}

impl Message<Neighbors> for BigActor {
    type Reply = ();

    async fn handle(&mut self, Neighbors(neighbors): Neighbors, _: &mut Context<Self, ()>) {
        self.neighbors = neighbors;
    }
}

impl Message<Pong> for BigActor {
    type Reply = ();

    async fn handle(&mut self, Pong(sender): Pong, _: &mut Context<Self, ()>) {
        match self.pinger.pong(sender, self.neighbors.len()) {
            AfterPong::Ping(target) => {
                let _ = self.neighbors[target].tell(Ping(self.pinger.id)).try_send();
            }
            AfterPong::Exit => {
                let _ = self.sink.tell(Exit).try_send();
            }
        }
    }
}

impl Message<Ping> for BigActor {
    type Reply = ();

    async fn handle(&mut self, Ping(sender): Ping, _: &mut Context<Self, ()>) {
        let _ = self.neighbors[sender]
            .tell(Pong(self.pinger.ping()))
            .try_send();
    }
}

impl Message<Exit> for BigActor {
    type Reply = ();

    async fn handle(&mut self, _: Exit, ctx: &mut Context<Self, ()>) {
        self.done.report(self.pinger.report());
        ctx.stop();
    }
}

#[derive(Actor)]
struct Sink {
    exits: u64,
    neighbors: Arc<[ActorRef<BigActor>]>,
    done: Reporter<Report>,
}

impl Message<Neighbors> for Sink {
    type Reply = ();

    async fn handle(&mut self, Neighbors(neighbors): Neighbors, _: &mut Context<Self, ()>) {
        self.neighbors = neighbors;
    }
}

impl Message<Exit> for Sink {
    type Reply = ();

    async fn handle(&mut self, _: Exit, ctx: &mut Context<Self, ()>) {
        self.exits += 1;
        if self.exits == self.neighbors.len() as u64 {
            for big in self.neighbors.iter() {
                let _ = big.tell(Exit).try_send();
            }
            self.done.report(Report::Exits(self.exits));
            ctx.stop();
        }
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, w }: Config, reporter: Reporter<Report>) {
    let sink = Sink {
        exits: 0,
        neighbors: Arc::from([]),
        done: reporter.clone(),
    };
    let sink = kameo_spawn(sink);
    let bigs: Arc<[ActorRef<BigActor>]> = (0..w)
        .map(|id| {
            let big = BigActor {
                pinger: Pinger::new(id, n),
                neighbors: Arc::from([]),
                sink: sink.clone(),
                done: reporter.clone(),
            };
            kameo_spawn(big)
        })
        .collect();
    drop(reporter);
    sink.tell(Neighbors(Arc::clone(&bigs)))
        .try_send()
        .expect("the sink is running");
    for big in bigs.iter() {
        big.tell(Neighbors(Arc::clone(&bigs)))
            .try_send()
            .expect("the Big actor is running");
    }
    for big in bigs.iter() {
        big.tell(Pong(-1))
            .try_send()
            .expect("the Big actor is running");
    }
    drop((sink, bigs));
}
