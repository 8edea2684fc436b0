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

/// The workloads: Counting (a producer on the runtime sends COUNT increments to a counter) and
/// Ping Pong (HOPS messages bounce between two parties), each as `tell`, `when` and
/// `when_detached`.
type Variants = [fn(&Runtime, u64); 3];
const WORKLOADS: [(&str, u64, Variants); 2] = [
    (
        "count",
        COUNT,
        [
            workloads::count_tell,
            workloads::count_when,
            workloads::count_detached,
        ],
    ),
    (
        "pingpong",
        HOPS,
        [
            workloads::pingpong_tell,
            workloads::pingpong_when,
            workloads::pingpong_detached,
        ],
    ),
];

/// One group per workload, one line per variant, each on a runtime of its own.
fn when_vs_tell(c: &mut Criterion) {
    for (name, n, variants) in WORKLOADS {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(n));
        for (variant, run) in ["tell", "when", "when_detached"].into_iter().zip(variants) {
            g.bench_function(variant, |b| {
                let rt = runtime();
                b.iter(|| run(&rt, n))
            });
        }
        g.finish();
    }
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
    targets = when_vs_tell
}
criterion_main!(benches);
