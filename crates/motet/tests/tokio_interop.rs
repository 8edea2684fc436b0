//! Tokio tasks using motet: telling and asking an actor, awaiting a behaviour's promise, and
//! receiving from and sending into a process's channels (as futures, and as a stream and a sink).

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use motet::actor::{spawn, Actor, Context, Reply};
use motet::boc::{when, Cown};
use motet::process::{channel, ProcessSystem};
use motet::Runtime;

const GUARD: Duration = Duration::from_secs(60);

struct Counter(u64);

enum CounterMsg {
    Add(u64),
    Get(Reply<u64>),
}

impl Actor for Counter {
    type Msg = CounterMsg;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: CounterMsg) {
        match msg {
            CounterMsg::Add(n) => self.0 += n,
            CounterMsg::Get(reply) => {
                let _ = reply.send(self.0);
            }
        }
    }
}

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn tokio_tasks_tell_and_ask_an_actor() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let counter = spawn(rt.handle(), Counter(0));
    let tokio = tokio_rt();
    let tasks: Vec<_> = (1..=10u64)
        .map(|i| {
            let counter = counter.clone();
            tokio.spawn(async move { counter.tell(CounterMsg::Add(i)).unwrap() })
        })
        .collect();
    let total = tokio.block_on(async move {
        for t in tasks {
            t.await.unwrap();
        }
        counter.ask(CounterMsg::Get, GUARD).await.unwrap()
    });
    assert_eq!(total, 55);
}

#[test]
fn a_tokio_task_awaits_a_behaviours_promise() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let account = Cown::new(rt.handle(), 100i64);
    let tokio = tokio_rt();
    let balance = tokio.block_on(async move {
        let withdrawn = when(&account, |b| {
            *b -= 30;
            *b
        });
        let after = withdrawn.await.unwrap();
        let doubled = tokio::spawn(async move { when(&account, |b| *b * 2).await.unwrap() });
        (after, doubled.await.unwrap())
    });
    assert_eq!(balance, (70, 140));
}

#[test]
fn tokio_tasks_and_processes_share_channels() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let tokio = tokio_rt();
    let (requests, serve) = channel::unbounded::<(u32, channel::Sender<u32>)>();
    // A process squares what tokio tasks send it, answering on the channel each request carries.
    system.spawn(async move {
        while let Ok((n, reply)) = serve.recv().await {
            let _ = reply.send(n * n);
        }
    });
    let squares = tokio.block_on(async move {
        let mut asks = Vec::new();
        for n in 1..=20u32 {
            let requests = requests.clone();
            asks.push(tokio::spawn(async move {
                let (tx, rx) = channel::unbounded();
                requests.send((n, tx)).unwrap();
                rx.recv().await.unwrap()
            }));
        }
        let mut squares = Vec::new();
        for a in asks {
            squares.push(a.await.unwrap());
        }
        squares
    });
    assert_eq!(squares, (1..=20u32).map(|n| n * n).collect::<Vec<_>>());

    // A bounded channel as a sink on the tokio side, a stream on the process side.
    let (tx, rx) = channel::bounded::<u32>(1);
    let (sum_tx, sum_rx) = channel::unbounded::<u32>();
    system.spawn(async move {
        let sum = rx.into_stream().fold(0, |a, v| async move { a + v }).await;
        sum_tx.send(sum).unwrap();
    });
    tokio.block_on(async move {
        let mut sink = tx.into_sink();
        for n in 1..=100 {
            sink.send(n).await.unwrap();
        }
    });
    assert_eq!(sum_rx.recv_blocking_timeout(GUARD), Ok(5050));
    system.wait().unwrap();
}

/// A tokio runtime with one worker, its drivers on.
fn tokio_rt_one() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_tokio_task_streams_from_a_process_and_sinks_into_another() {
    let tokio = tokio_rt_one();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (to_tokio, from_process) = channel::bounded::<u64>(4);
    let (to_process, from_tokio) = channel::unbounded::<u64>();
    let (out_tx, out_rx) = channel::unbounded::<u64>();
    system.spawn(async move {
        for i in 1..=1_000 {
            to_tokio.send(i).await.unwrap();
        }
    });
    system.spawn(async move {
        let total: u64 = from_tokio
            .into_stream()
            .fold(0, |a, v| async move { a + v })
            .await;
        out_tx.send(total).unwrap();
    });
    tokio.spawn(async move {
        let mut sink = to_process;
        let mut doubled = from_process.into_stream().map(|v| Ok(v * 2));
        sink.send_all(&mut doubled).await.unwrap();
    });
    assert_eq!(out_rx.recv_blocking_timeout(GUARD), Ok(1_000 * 1_001));
    system.wait().unwrap();
}
