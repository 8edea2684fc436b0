//! Counting Actor as motet actors.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum ProducerMsg {
    Increment,
    Result(u64),
}

enum CounterMsg {
    Increment,
    Retrieve(Addr<ProducerMsg>),
}

struct Producer {
    counter: Addr<CounterMsg>,
    n: u64,
    result: ResultSlot<u64>,
}

impl Actor for Producer {
    type Msg = ProducerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ProducerMsg) {
        match msg {
            ProducerMsg::Increment => {
                for _ in 0..self.n {
                    let _ = self.counter.tell(CounterMsg::Increment);
                }
                let _ = self.counter.tell(CounterMsg::Retrieve(ctx.myself()));
            }
            ProducerMsg::Result(count) => {
                self.result.set(count);
                ctx.stop();
            }
        }
    }
}

struct Counter {
    count: u64,
}

impl Actor for Counter {
    type Msg = CounterMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: CounterMsg) {
        match msg {
            CounterMsg::Increment => self.count += 1,
            CounterMsg::Retrieve(producer) => {
                let _ = producer.send(ProducerMsg::Result(self.count));
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let counter = spawn(h, Counter { count: 0 });
    let producer = spawn(
        h,
        Producer {
            counter,
            n: cfg.n,
            result: result.clone(),
        },
    );
    let _ = producer.tell(ProducerMsg::Increment);
    drop(producer);
    rt.wait_quiescent();
    check(cfg.n, result.take().unwrap_or(0))
}
