//! A single-cown `when` against an actor `tell` (motet-actor), on the two Savina patterns where
//! BoC's goal is at most 1.2 times the actor's time: Counting (one producer floods one receiver)
//! and Ping Pong (a message bounces between two parties, each hop a whole scheduling).
//!
//! `cargo bench -p motet-boc --bench when_vs_tell` (one worker, as the goal is stated). Compare the
//! `tell` and `when` lines of one group, measured in the same run. The allocator is mimalloc, as in
//! the Savina harness.

#[path = "support/plain_mimalloc.rs"]
mod plain_mimalloc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use motet_actor::{spawn, Actor, Addr, Context};
use motet_boc::{when, Cown};
use motet_runtime::Runtime;

#[global_allocator]
static GLOBAL: plain_mimalloc::PlainMimalloc = plain_mimalloc::PlainMimalloc;

const COUNT: u64 = 100_000;
const HOPS: u64 = 100_000;

fn runtime() -> Runtime {
    Runtime::builder().workers(1).build().unwrap()
}

// Counting: a producer on the runtime sends COUNT increments to a counter.

enum CounterMsg {
    Increment,
}

struct Counter(u64);

impl Actor for Counter {
    type Msg = CounterMsg;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: CounterMsg) {
        match msg {
            CounterMsg::Increment => self.0 += 1,
        }
    }
}

struct Producer(Addr<CounterMsg>);

impl Actor for Producer {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, n: u64) {
        for _ in 0..n {
            let _ = self.0.tell(CounterMsg::Increment);
        }
        ctx.stop();
    }
}

fn count(c: &mut Criterion) {
    let mut g = c.benchmark_group("count");
    g.throughput(Throughput::Elements(COUNT));
    g.bench_function("tell", |b| {
        let rt = runtime();
        b.iter(|| {
            let counter = spawn(rt.handle(), Counter(0));
            let producer = spawn(rt.handle(), Producer(counter));
            let _ = producer.tell(COUNT);
            rt.wait_quiescent();
        })
    });
    g.bench_function("when", |b| {
        let rt = runtime();
        b.iter(|| {
            let counter = Cown::new(rt.handle(), 0u64);
            let producer = Cown::new(rt.handle(), ());
            when(&producer, move |_| {
                for _ in 0..COUNT {
                    when(&counter, |n| *n += 1);
                }
            });
            rt.wait_quiescent();
        })
    });
    g.finish();
}

// Ping Pong: HOPS messages bounce between two parties.

/// Pong's messages: the partner's address first, then the ball (hops left).
enum Setup {
    Partner(Addr<u64>),
    Ball(u64),
}

struct Pong {
    ping: Option<Addr<u64>>,
}

impl Actor for Pong {
    type Msg = Setup;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Setup) {
        match msg {
            Setup::Partner(ping) => self.ping = Some(ping),
            Setup::Ball(0) => ctx.stop(),
            Setup::Ball(left) => {
                if let Some(ping) = &self.ping {
                    let _ = ping.tell(left - 1);
                }
            }
        }
    }
}

/// Ping: sends the ball back to pong.
struct Forward(Addr<Setup>);

impl Actor for Forward {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, left: u64) {
        if left == 0 {
            ctx.stop();
            return;
        }
        let _ = self.0.tell(Setup::Ball(left - 1));
    }
}

/// A BoC ping-pong party: its hit count and the partner's cown (as the actors hold addresses).
struct Party {
    hits: u64,
    partner: Option<Cown<Party>>,
}

/// A hop: a behaviour on `me` that spawns the next hop on its partner.
fn hop(me: &Cown<Party>, left: u64) {
    when(me, move |p| {
        p.hits += 1;
        match (&p.partner, left) {
            (Some(partner), 1..) => hop(partner, left - 1),
            // The last hop breaks the reference cycle between the two cowns.
            _ => p.partner = None,
        }
    });
}

fn pingpong(c: &mut Criterion) {
    let mut g = c.benchmark_group("pingpong");
    g.throughput(Throughput::Elements(HOPS));
    g.bench_function("tell", |b| {
        let rt = runtime();
        b.iter(|| {
            let pong = spawn(rt.handle(), Pong { ping: None });
            let ping = spawn(rt.handle(), Forward(pong.clone()));
            let _ = pong.tell(Setup::Partner(ping.clone()));
            let _ = ping.tell(HOPS);
            rt.wait_quiescent();
        })
    });
    g.bench_function("when", |b| {
        let rt = runtime();
        b.iter(|| {
            let ping = Cown::new(
                rt.handle(),
                Party {
                    hits: 0,
                    partner: None,
                },
            );
            let pong = Cown::new(
                rt.handle(),
                Party {
                    hits: 0,
                    partner: Some(ping.clone()),
                },
            );
            let p = pong.clone();
            when(&ping, move |party| party.partner = Some(p));
            hop(&ping, HOPS);
            rt.wait_quiescent();
            // The pong side's cycle: cleared so that both cowns are freed.
            when(&pong, |party| party.partner = None);
            rt.wait_quiescent();
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = count, pingpong
}
criterion_main!(benches);
