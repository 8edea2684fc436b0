//! The process forms against each other and against motet actors, on a one-worker runtime:
//!
//! - `async`: a process is an `async` block receiving from a channel (the library's main form);
//! - `handler`: the continuation-closure form of the actor facade (`actor::spawn_handler`: state plus
//!   a closure called per message), which the library builds on the `async` form;
//! - `boxed-continuation`: Effpi's DSL literally, a process as a chain of boxed continuations
//!   (`Recv(channel, Box<dyn FnOnce(value) -> Proc>)`), one allocation per step, interpreted by an
//!   `async` driver; kept here only as the measured alternative (the library does not offer it);
//! - `actor`: the same program as motet actors.
//!
//! `cargo bench -p motet-process --bench process`
//!
//! Programs: `pingpong` (one pair, 10,000 round trips, every form) and `threadring` (1,000
//! processes, 10,000 hops, the `async` form; the Savina harness compares it with actors).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use motet_actor::{spawn, Actor, Addr, Context};
use motet_process::actor::{self as pactor, Flow};
use motet_process::{channel, ProcessSystem};
use motet_runtime::Runtime;

const ROUND_TRIPS: u32 = 10_000;
const RING: usize = 1_000;
const HOPS: u32 = 10_000;

fn runtime() -> Runtime {
    Runtime::builder().workers(1).build().expect("runtime")
}

fn pingpong_async(system: &ProcessSystem) -> u32 {
    let (pong_tx, pong_rx) = channel::unbounded::<(u32, channel::Sender<u32>)>();
    system.spawn(async move {
        while let Ok((n, reply)) = pong_rx.recv().await {
            let _ = reply.send(n);
        }
    });
    let (done_tx, done_rx) = channel::unbounded::<u32>();
    system.spawn(async move {
        let (me, replies) = channel::unbounded();
        let mut last = 0;
        for i in 0..ROUND_TRIPS {
            pong_tx.send((i, me.clone())).unwrap();
            last = replies.recv().await.unwrap();
        }
        done_tx.send(last).unwrap();
    });
    done_rx.recv_blocking().unwrap()
}

fn pingpong_handler(system: &ProcessSystem) -> u32 {
    let pong = pactor::spawn_handler(
        system,
        (),
        |_, (n, reply): (u32, pactor::ActorRef<u32>), _| {
            let _ = reply.send(n);
            Flow::Continue
        },
    );
    let (done_tx, done_rx) = channel::unbounded::<u32>();
    let me = pactor::spawn_handler(system, 0u32, move |sent, n: u32, mailbox| {
        if n + 1 == ROUND_TRIPS {
            done_tx.send(n).unwrap();
            return Flow::Stop;
        }
        *sent += 1;
        let _ = pong.send((*sent, mailbox.self_ref()));
        Flow::Continue
    });
    let _ = me.send(0);
    done_rx.recv_blocking().unwrap()
}

/// Effpi's process DSL as boxed continuations.
enum Proc {
    Recv(
        channel::Receiver<u32>,
        Box<dyn FnOnce(channel::Receiver<u32>, u32) -> Proc + Send>,
    ),
    End,
}

async fn interpret(mut p: Proc) {
    loop {
        match p {
            Proc::Recv(rx, k) => match rx.recv().await {
                Ok(v) => p = k(rx, v),
                Err(_) => return,
            },
            Proc::End => return,
        }
    }
}

fn pinger(
    pong: channel::Sender<u32>,
    done: channel::Sender<u32>,
    rx: channel::Receiver<u32>,
) -> Proc {
    Proc::Recv(
        rx,
        Box::new(move |rx, v| {
            if v + 1 == ROUND_TRIPS {
                done.send(v).unwrap();
                return Proc::End;
            }
            pong.send(v + 1).unwrap();
            pinger(pong, done, rx)
        }),
    )
}

fn ponger(ping: channel::Sender<u32>, rx: channel::Receiver<u32>) -> Proc {
    Proc::Recv(
        rx,
        Box::new(move |rx, v| {
            let _ = ping.send(v);
            ponger(ping, rx)
        }),
    )
}

fn pingpong_boxed(system: &ProcessSystem) -> u32 {
    let (ping_tx, ping_rx) = channel::unbounded::<u32>();
    let (pong_tx, pong_rx) = channel::unbounded::<u32>();
    let (done_tx, done_rx) = channel::unbounded::<u32>();
    system.spawn(interpret(ponger(ping_tx.clone(), pong_rx)));
    system.spawn(interpret(pinger(pong_tx, done_tx, ping_rx)));
    ping_tx.send(0).unwrap();
    done_rx.recv_blocking().unwrap()
}

enum PingMsg {
    Pong(u32),
}

struct Ping {
    pong: Addr<(u32, Addr<PingMsg>)>,
    done: channel::Sender<u32>,
}

impl Actor for Ping {
    type Msg = PingMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, PingMsg::Pong(n): PingMsg) {
        if n + 1 == ROUND_TRIPS {
            self.done.send(n).unwrap();
            ctx.stop();
            return;
        }
        let _ = self.pong.tell((n + 1, ctx.myself()));
    }
}

struct Pong;

impl Actor for Pong {
    type Msg = (u32, Addr<PingMsg>);
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, (n, ping): (u32, Addr<PingMsg>)) {
        let _ = ping.send(PingMsg::Pong(n));
    }
}

fn pingpong_actor(rt: &Runtime) -> u32 {
    let (done_tx, done_rx) = channel::unbounded::<u32>();
    let pong = spawn(rt.handle(), Pong);
    let ping = spawn(
        rt.handle(),
        Ping {
            pong,
            done: done_tx,
        },
    );
    ping.tell(PingMsg::Pong(0)).unwrap();
    drop(ping);
    done_rx.recv_blocking().unwrap()
}

fn threadring_async(system: &ProcessSystem) -> u32 {
    let channels: Vec<_> = (0..RING).map(|_| channel::unbounded::<u32>()).collect();
    let (done_tx, done_rx) = channel::unbounded::<u32>();
    for i in 0..RING {
        let rx = channels[i].1.clone();
        let next = channels[(i + 1) % RING].0.clone();
        let done = done_tx.clone();
        system.spawn(async move {
            while let Ok(hops) = rx.recv().await {
                if hops == 0 {
                    let _ = done.send(0);
                    return;
                }
                let _ = next.send(hops - 1);
            }
        });
    }
    channels[0].0.send(HOPS).unwrap();
    drop(channels);
    // The other processes stay parked in the ring; the caller shuts the system down.
    done_rx.recv_blocking().unwrap()
}

fn pingpong(c: &mut Criterion) {
    let mut g = c.benchmark_group("pingpong");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(2 * ROUND_TRIPS as u64));
    let rt = runtime();
    let system = ProcessSystem::new(rt.handle());
    g.bench_function("async", |b| b.iter(|| black_box(pingpong_async(&system))));
    g.bench_function("handler", |b| {
        b.iter(|| black_box(pingpong_handler(&system)))
    });
    g.bench_function("boxed-continuation", |b| {
        b.iter(|| black_box(pingpong_boxed(&system)))
    });
    g.bench_function("actor", |b| b.iter(|| black_box(pingpong_actor(&rt))));
    g.finish();
    system.shutdown();
}

fn threadring(c: &mut Criterion) {
    let mut g = c.benchmark_group("threadring");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(HOPS as u64));
    let rt = runtime();
    g.bench_function("async", |b| {
        b.iter(|| {
            let system = ProcessSystem::new(rt.handle());
            let r = threadring_async(&system);
            system.shutdown();
            black_box(r)
        })
    });
    g.finish();
}

criterion_group!(benches, pingpong, threadring);
criterion_main!(benches);
