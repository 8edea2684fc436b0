//! Counting Actor on ractor: a `Producer` and a `Counter` on a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::count::Config;
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

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

struct ProducerState {
    n: u64,
    counter: ActorRef<CounterMsg>,
    done: Reporter<u64>,
}

impl RactorState for ProducerState {
    type Msg = ProducerMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<ProducerMsg>,
        msg: ProducerMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ProducerMsg::Increment => {
                for _ in 0..self.n {
                    self.counter.cast(CounterMsg::Increment)?;
                }
                self.counter.cast(CounterMsg::Retrieve(myself))?;
            }
            ProducerMsg::Result(count) => {
                self.done.report(count);
                myself.stop(None);
            }
        }
        Ok(())
    }
}

struct CounterState {
    count: u64,
    _done: Reporter<u64>,
}

impl RactorState for CounterState {
    type Msg = CounterMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<CounterMsg>,
        msg: CounterMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            CounterMsg::Increment => self.count += 1,
            CounterMsg::Retrieve(producer) => {
                producer.cast(ProducerMsg::Result(self.count))?;
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
    let (counter, _) = ractor_spawn(counter_state).await.expect("spawn Counter");
    let producer_state = ProducerState {
        n,
        counter,
        done: reporter,
    };
    let (producer, _) = ractor_spawn(producer_state).await.expect("spawn Producer");
    producer
        .cast(ProducerMsg::Increment)
        .expect("Producer is running");
    drop(producer);
}
