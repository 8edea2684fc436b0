//! Counting Actor as motet processes: the Counter is a process reading its channel; the Producer
//! is a process that sends `n` increments into it, then a `Retrieve` carrying the channel the
//! count comes back on, and waits for the answer.

use std::collections::VecDeque;

use motet_process::channel::{self, Receiver, Sender};
use motet_process::ProcessSystem;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::ResultSlot;
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers. The Counter takes one message at
/// a time, as SPEC.md's does.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare((Config::from_params(params)?, false), threads, run)
}

/// As [`prepare`], with the Counter draining its channel in bulk (`recv_many`, deviation
/// `recv-many`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    process_support::prepare((Config::from_params(params)?, true), threads, run)
}

/// What the Producer sends to the Counter.
enum CounterMsg {
    Increment,
    /// Answer the count on this channel, then end.
    Retrieve(Sender<u64>),
}

/// The Counter: adds one per `Increment`, answers `Retrieve` with the count and ends. It takes one
/// message per `recv`, or with `bulk` what the Producer queued in batches (`recv_many`: one lock
/// of the channel per batch, as an actor takes its mailbox), so that on two workers it does not
/// share the channel's cache line with the Producer once per message.
async fn counter(inbox: Receiver<CounterMsg>, bulk: bool) {
    let mut count = 0u64;
    let mut batch = VecDeque::new();
    loop {
        if bulk {
            if inbox.recv_many(&mut batch).await.is_err() {
                return;
            }
        } else {
            match inbox.recv().await {
                Ok(msg) => batch.push_back(msg),
                Err(_) => return,
            }
        }
        for msg in batch.drain(..) {
            match msg {
                CounterMsg::Increment => count += 1,
                CounterMsg::Retrieve(reply) => {
                    let _ = reply.send(count);
                    return;
                }
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
fn run(&(cfg, bulk): &(Config, bool), system: &ProcessSystem) -> Outcome {
    let result = ResultSlot::new();
    let (counter_tx, counter_rx) = channel::unbounded();
    system.spawn(counter(counter_rx, bulk));
    system.spawn(producer(counter_tx, cfg.n, result.clone()));
    process_support::finish(system, || check(cfg.n, result.take().unwrap_or(0)))
}
