//! The message hot path in isolation, for instruction counts under callgrind and quick timings:
//! one program per shape of message flow, run to quiescence on a runtime of the given size.
//!
//! ```sh
//! cargo build --release -p motet-actor --example message_profile
//! target/release/examples/message_profile threadring 100000 1 5
//! valgrind --tool=callgrind target/release/examples/message_profile threadring 100000
//! ```
//!
//! Arguments: `count|pingpong|threadring`, the number of messages (default 100,000), workers
//! (default 1) and repetitions (default 1). Prints the median wall time of the repetitions. The
//! instructions of one message are the difference between two runs of different sizes, divided
//! by the difference in messages (which cancels the runtime's start and stop).
//!
//! - `count`: one producer sends `n` messages to one counter in a single turn (a flood: the
//!   counter drains its mailbox in batches).
//! - `pingpong`: two actors hand one message back and forth `n` times (every message wakes an
//!   idle actor).
//! - `threadring`: a ring of 100 actors passes a token `n` times (as pingpong, with a working set
//!   of 100 actors).

use std::time::{Duration, Instant};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

// mimalloc linked as motet-savina links it, so that the allocations the block cache does not
// serve cost here what they cost in the benchmark suite.
#[global_allocator]
static GLOBAL: motet_runtime::alloc::Mimalloc = motet_runtime::alloc::Mimalloc;

struct Counter(u64);

impl Actor for Counter {
    type Msg = u64;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: u64) {
        self.0 += msg;
    }
}

struct Producer(Addr<u64>);

impl Actor for Producer {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, n: u64) {
        for _ in 0..n {
            let _ = self.0.tell(1);
        }
        ctx.stop();
    }
}

fn count(rt: &Runtime, n: u64) {
    let counter = spawn(rt.handle(), Counter(0));
    let producer = spawn(rt.handle(), Producer(counter));
    let _ = producer.tell(n);
    drop(producer);
    rt.wait_quiescent();
}

enum Hop {
    Next(Addr<Hop>),
    Token(u64),
}

/// One member of a ring (of two for pingpong): passes the token on until it reaches 0, then
/// drops its neighbour so that the ring stops.
struct Member {
    next: Option<Addr<Hop>>,
}

impl Actor for Member {
    type Msg = Hop;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: Hop) {
        match msg {
            Hop::Next(next) => self.next = Some(next),
            Hop::Token(0) => {
                // The token ends here: every member lets go of its neighbour in turn.
                if let Some(next) = self.next.take() {
                    let _ = next.tell(Hop::Token(u64::MAX));
                }
            }
            Hop::Token(u64::MAX) => {
                if let Some(next) = self.next.take() {
                    let _ = next.tell(Hop::Token(u64::MAX));
                }
            }
            Hop::Token(k) => {
                if let Some(next) = &self.next {
                    let _ = next.tell(Hop::Token(k - 1));
                }
            }
        }
    }
}

fn ring(rt: &Runtime, size: usize, n: u64) {
    let members: Vec<Addr<Hop>> = (0..size)
        .map(|_| spawn(rt.handle(), Member { next: None }))
        .collect();
    for (i, m) in members.iter().enumerate() {
        let _ = m.tell(Hop::Next(members[(i + 1) % size].clone()));
    }
    let _ = members[0].tell(Hop::Token(n));
    drop(members);
    rt.wait_quiescent();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.get(1).map_or("threadring", String::as_str);
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let workers: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let reps: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let run: fn(&Runtime, u64) = match bench {
        "count" => count,
        "pingpong" => |rt, n| ring(rt, 2, n),
        "threadring" => |rt, n| ring(rt, 100, n),
        _ => {
            eprintln!("usage: message_profile count|pingpong|threadring [N] [WORKERS] [REPS]");
            std::process::exit(2);
        }
    };
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let mut times: Vec<Duration> = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            run(&rt, n);
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{bench} n={n} workers={workers}: median {:.3} ms over {} ({:.1} ns per message)",
        times[times.len() / 2].as_secs_f64() * 1e3,
        times.len(),
        times[times.len() / 2].as_secs_f64() * 1e9 / n as f64
    );
}
