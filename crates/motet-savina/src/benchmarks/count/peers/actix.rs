//! Counting Actor on actix: a `Producer` and a `Counter`, placed round-robin on the arbiters.

use ::actix::{ActorContext, Addr, AsyncContext, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::count::Config;
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// Producer's kick-off, and the counter's unit of work.
#[derive(Message)]
#[rtype(result = "()")]
struct Increment;

/// Asks the counter for its count, to be answered to the given producer.
#[derive(Message)]
#[rtype(result = "()")]
struct Retrieve(Addr<Producer>);

/// The counter's answer.
#[derive(Message)]
#[rtype(result = "()")]
struct CountResult(u64);

struct Producer {
    n: u64,
    counter: Addr<Counter>,
    done: Reporter<u64>,
}

crate::peers::actix_actors!(Producer);

impl Handler<Increment> for Producer {
    type Result = ();

    fn handle(&mut self, _: Increment, ctx: &mut Context<Self>) {
        for _ in 0..self.n {
            self.counter.do_send(Increment);
        }
        self.counter.do_send(Retrieve(ctx.address()));
    }
}

impl Handler<CountResult> for Producer {
    type Result = ();

    fn handle(&mut self, CountResult(count): CountResult, ctx: &mut Context<Self>) {
        self.done.report(count);
        ctx.stop();
    }
}

struct Counter {
    count: u64,
    _done: Reporter<u64>,
}

crate::peers::actix_actors!(Counter);

impl Handler<Increment> for Counter {
    type Result = ();

    fn handle(&mut self, _: Increment, _: &mut Context<Self>) {
        self.count += 1;
    }
}

impl Handler<Retrieve> for Counter {
    type Result = ();

    fn handle(&mut self, Retrieve(producer): Retrieve, ctx: &mut Context<Self>) {
        producer.do_send(CountResult(self.count));
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
    Config { n }: Config,
    mut place: Placement,
    reporter: Reporter<u64>,
) -> (Addr<Producer>, Addr<Counter>) {
    let done = reporter.clone();
    let counter = place.start(move || Counter {
        count: 0,
        _done: done,
    });
    let producer_counter = counter.clone();
    let producer = place.start(move || Producer {
        n,
        counter: producer_counter,
        done: reporter,
    });
    producer.do_send(Increment);
    (producer, counter)
}
