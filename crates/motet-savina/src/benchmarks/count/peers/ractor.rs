//! Counting Actor on ractor: a `Producer` and a `Counter` on a tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::count::Config;
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

/// The producer's messages.
enum ProducerMsg {
    /// Kicks off the run.
    Increment,
    /// The counter's answer.
    Result(u64),
}

/// The counter's messages.
enum CounterMsg {
    /// Adds one.
    Increment,
    /// Asks for the count, to be answered to the given producer.
    Retrieve(ActorRef<ProducerMsg>),
}

struct Producer;

struct ProducerState {
    n: u64,
    counter: ActorRef<CounterMsg>,
    done: Reporter<u64>,
}

impl Actor for Producer {
    type Msg = ProducerMsg;
    type State = ProducerState;
    type Arguments = ProducerState;

    async fn pre_start(
        &self,
        _: ActorRef<ProducerMsg>,
        state: ProducerState,
    ) -> Result<ProducerState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<ProducerMsg>,
        msg: ProducerMsg,
        state: &mut ProducerState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ProducerMsg::Increment => {
                for _ in 0..state.n {
                    state.counter.cast(CounterMsg::Increment)?;
                }
                state.counter.cast(CounterMsg::Retrieve(myself))?;
            }
            ProducerMsg::Result(count) => {
                state.done.report(count);
                myself.stop(None);
            }
        }
        Ok(())
    }
}

struct Counter;

struct CounterState {
    count: u64,
    _done: Reporter<u64>,
}

impl Actor for Counter {
    type Msg = CounterMsg;
    type State = CounterState;
    type Arguments = CounterState;

    async fn pre_start(
        &self,
        _: ActorRef<CounterMsg>,
        state: CounterState,
    ) -> Result<CounterState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<CounterMsg>,
        msg: CounterMsg,
        state: &mut CounterState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            CounterMsg::Increment => state.count += 1,
            CounterMsg::Retrieve(producer) => {
                producer.cast(ProducerMsg::Result(state.count))?;
                myself.stop(None);
            }
        }
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n }: Config, reporter: Reporter<u64>) {
    let counter_state = CounterState {
        count: 0,
        _done: reporter.clone(),
    };
    let (counter, _) = Actor::spawn(None, Counter, counter_state)
        .await
        .expect("spawn Counter");
    let producer_state = ProducerState {
        n,
        counter,
        done: reporter,
    };
    let (producer, _) = Actor::spawn(None, Producer, producer_state)
        .await
        .expect("spawn Producer");
    producer
        .cast(ProducerMsg::Increment)
        .expect("Producer is running");
    drop(producer);
}
