//! A single-cown `when` against an actor `tell` (motet-actor), on the two Savina patterns where
//! BoC's goal is at most 1.2 times the actor's time: Counting (one producer floods one receiver)
//! and Ping Pong (a message bounces between two parties, each hop a whole scheduling).
//!
//! `cargo bench -p motet-boc --bench when_vs_tell` (one worker, as the goal is stated). Compare the
//! `tell`, `when` (promise dropped) and `when_detached` lines of one group, measured in the same
//! run. The allocator is mimalloc, as in
//! the Savina harness.

// Only the count and pingpong workloads are benched here; fanout is the profiling example's.
#[allow(dead_code)]
#[path = "support/workloads.rs"]
mod workloads;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use motet_runtime::Runtime;

#[global_allocator]
static GLOBAL: motet_runtime::alloc::Mimalloc = motet_runtime::alloc::Mimalloc;

const COUNT: u64 = 100_000;
const HOPS: u64 = 100_000;

fn runtime() -> Runtime {
    Runtime::builder().workers(1).build().unwrap()
}

/// Counting: a producer on the runtime sends COUNT increments to a counter.
fn count(c: &mut Criterion) {
    let mut g = c.benchmark_group("count");
    g.throughput(Throughput::Elements(COUNT));
    g.bench_function("tell", |b| {
        let rt = runtime();
        b.iter(|| workloads::count_tell(&rt, COUNT))
    });
    g.bench_function("when", |b| {
        let rt = runtime();
        b.iter(|| workloads::count_when(&rt, COUNT))
    });
    g.bench_function("when_detached", |b| {
        let rt = runtime();
        b.iter(|| workloads::count_detached(&rt, COUNT))
    });
    g.finish();
}

/// Ping Pong: HOPS messages bounce between two parties.
fn pingpong(c: &mut Criterion) {
    let mut g = c.benchmark_group("pingpong");
    g.throughput(Throughput::Elements(HOPS));
    g.bench_function("tell", |b| {
        let rt = runtime();
        b.iter(|| workloads::pingpong_tell(&rt, HOPS))
    });
    g.bench_function("when", |b| {
        let rt = runtime();
        b.iter(|| workloads::pingpong_when(&rt, HOPS))
    });
    g.bench_function("when_detached", |b| {
        let rt = runtime();
        b.iter(|| workloads::pingpong_detached(&rt, HOPS))
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
