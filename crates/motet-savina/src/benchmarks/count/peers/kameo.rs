//! Counting Actor on kameo: a `Producer` and a `Counter` with unbounded mailboxes on a tokio
//! runtime with `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::count::Config;
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

/// Producer's kick-off, and the counter's unit of work.
struct Increment;

/// Asks the counter for its count, to be answered to the given producer.
struct Retrieve(ActorRef<Producer>);

/// The counter's answer.
struct CountResult(u64);

#[derive(Actor)]
struct Producer {
    n: u64,
    counter: ActorRef<Counter>,
    done: Reporter<u64>,
}

impl Message<Increment> for Producer {
    type Reply = ();

    async fn handle(&mut self, _: Increment, ctx: &mut Context<Self, ()>) {
        for _ in 0..self.n {
            let _ = self.counter.tell(Increment).try_send();
        }
        let _ = self
            .counter
            .tell(Retrieve(ctx.actor_ref().clone()))
            .try_send();
    }
}

impl Message<CountResult> for Producer {
    type Reply = ();

    async fn handle(&mut self, CountResult(count): CountResult, ctx: &mut Context<Self, ()>) {
        self.done.report(count);
        ctx.stop();
    }
}

#[derive(Actor)]
struct Counter {
    count: u64,
    _done: Reporter<u64>,
}

impl Message<Increment> for Counter {
    type Reply = ();

    async fn handle(&mut self, _: Increment, _: &mut Context<Self, ()>) {
        self.count += 1;
    }
}

impl Message<Retrieve> for Counter {
    type Reply = ();

    async fn handle(&mut self, Retrieve(producer): Retrieve, ctx: &mut Context<Self, ()>) {
        let _ = producer.tell(CountResult(self.count)).try_send();
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n }: Config, reporter: Reporter<u64>) {
    let counter = kameo_spawn(Counter {
        count: 0,
        _done: reporter.clone(),
    });
    let producer = kameo_spawn(Producer {
        n,
        counter,
        done: reporter,
    });
    producer
        .tell(Increment)
        .try_send()
        .expect("Producer is running");
    drop(producer);
}
