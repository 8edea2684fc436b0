//! Counting Actor as motet processes: the Counter is a process reading its channel; the Producer
//! is a process that sends `n` increments into it, then a `Retrieve` carrying the channel the
//! count comes back on, and waits for the answer.

use motet_process::channel::{self, Receiver, Sender};
use motet_process::ProcessSystem;

use super::{check, Config};
use crate::bench::{Iteration, Outcome};
use crate::motet_support::ResultSlot;
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    process_support::prepare(Config::from_params(params)?, threads, run)
}

/// What the Producer sends to the Counter.
enum CounterMsg {
    Increment,
    /// Answer the count on this channel, then end.
    Retrieve(Sender<u64>),
}

/// The Counter: adds one per `Increment`, answers `Retrieve` with the count and ends.
async fn counter(inbox: Receiver<CounterMsg>) {
    let mut count = 0u64;
    while let Ok(msg) = inbox.recv().await {
        match msg {
            CounterMsg::Increment => count += 1,
            CounterMsg::Retrieve(reply) => {
                let _ = reply.send(count);
                return;
            }
        }
    }
}

/// The Producer: `n` increments, then asks for the count and records it.
async fn producer(counter: Sender<CounterMsg>, n: u64, result: ResultSlot<u64>) {
    for _ in 0..n {
        let _ = counter.send(CounterMsg::Increment);
    }
    let (reply, answer) = channel::unbounded();
    let _ = counter.send(CounterMsg::Retrieve(reply));
    if let Ok(count) = answer.recv().await {
        result.set(count);
    }
}

/// One timed iteration: spawns the two processes, waits for them and checks the count.
fn run(cfg: &Config, system: &ProcessSystem) -> Outcome {
    let result = ResultSlot::new();
    let (counter_tx, counter_rx) = channel::unbounded();
    system.spawn(counter(counter_rx));
    system.spawn(producer(counter_tx, cfg.n, result.clone()));
    process_support::finish(system, || check(cfg.n, result.take().unwrap_or(0)))
}
