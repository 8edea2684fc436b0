//! Fork-join throughput (Savina's fjthrput) through a round-robin [`Pool`] against direct sends,
//! in one process run, to price the pool's dispatch hop.
//!
//! ```sh
//! cargo build --release -p motet-actor --example pool_fjthrput
//! target/release/examples/pool_fjthrput both 10000 60 2 5
//! valgrind --tool=callgrind target/release/examples/pool_fjthrput direct 10000 60 1 1
//! valgrind --tool=callgrind target/release/examples/pool_fjthrput pool 10000 60 1 1
//! ```
//!
//! Arguments: `direct|pool|both`, messages per worker `n` (default 10,000), workers `a` (default
//! 60), runtime workers (default 1) and repetitions (default 1). A driver actor sends `a * n`
//! messages, each costing its handler the benchmark's `sin(x)^2`: directly to each of the `a`
//! workers in turn, or to the pool's address, whose dispatcher hands them round robin to `a`
//! workers. Every worker must handle exactly `n`. Prints the median messages per second of each
//! mode; for instructions per message, divide the difference between two callgrind runs of
//! different `n` by the difference in messages.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use motet_actor::{spawn, Actor, Addr, Context, Pool};
use motet_runtime::Runtime;

// mimalloc, as motet-savina links it.
#[global_allocator]
static GLOBAL: motet_runtime::alloc::Mimalloc = motet_runtime::alloc::Mimalloc;

const FJ_THETA: f64 = 37.2;

fn perform_computation(theta: f64) -> f64 {
    let sint = std::hint::black_box(theta).sin();
    let res = sint * sint;
    assert!(res > 0.0);
    res
}

struct Worker {
    processed: Arc<AtomicU64>,
}

impl Actor for Worker {
    type Msg = ();
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: ()) {
        perform_computation(FJ_THETA);
        self.processed.fetch_add(1, Ordering::Relaxed);
    }
}

/// Sends `n` rounds, one message to each target per round (direct), or `n * a` to one target.
struct Driver {
    targets: Vec<Addr<()>>,
    rounds: u64,
}

impl Actor for Driver {
    type Msg = ();
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: ()) {
        for _ in 0..self.rounds {
            for t in &self.targets {
                let _ = t.tell(());
            }
        }
        self.targets.clear();
        ctx.stop();
    }
}

fn run(rt: &Runtime, pooled: bool, n: u64, a: usize) -> Duration {
    let counts: Vec<Arc<AtomicU64>> = (0..a).map(|_| Arc::new(AtomicU64::new(0))).collect();
    let start = Instant::now();
    let (targets, rounds, pool) = if pooled {
        let made = Arc::new(AtomicU64::new(0));
        let c = counts.clone();
        let pool = Pool::builder(move || Worker {
            processed: c[made.fetch_add(1, Ordering::Relaxed) as usize].clone(),
        })
        .size(a)
        .spawn(rt.handle())
        .expect("pool");
        (vec![pool.addr().clone()], n * a as u64, Some(pool))
    } else {
        let workers = counts
            .iter()
            .map(|c| {
                spawn(
                    rt.handle(),
                    Worker {
                        processed: c.clone(),
                    },
                )
            })
            .collect();
        (workers, n, None)
    };
    let driver = spawn(rt.handle(), Driver { targets, rounds });
    let _ = driver.tell(());
    drop(driver);
    drop(pool);
    rt.wait_quiescent();
    let elapsed = start.elapsed();
    for (i, c) in counts.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), n, "worker {i}");
    }
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("both");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let a: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(60);
    let workers: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let reps: usize = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(1);
    let rt = Runtime::builder()
        .workers(workers)
        .build()
        .expect("runtime");
    let modes: &[(&str, bool)] = match mode {
        "direct" => &[("direct", false)],
        "pool" => &[("pool", true)],
        _ => &[("direct", false), ("pool", true)],
    };
    let msgs = n * a as u64;
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); modes.len()];
    // Interleaved: each repetition runs every mode once.
    for _ in 0..reps {
        for (i, (_, pooled)) in modes.iter().enumerate() {
            times[i].push(run(&rt, *pooled, n, a));
        }
    }
    for (i, (name, _)) in modes.iter().enumerate() {
        let t = median(times[i].clone());
        println!(
            "{name}: {msgs} messages, median {:.3} ms, {:.0} msgs/s",
            t.as_secs_f64() * 1e3,
            msgs as f64 / t.as_secs_f64()
        );
    }
}
