//! The workloads of the `when_vs_tell` bench as one program, for instruction counts under
//! callgrind (`valgrind --tool=callgrind`) and quick interleaved timings:
//!
//! ```sh
//! cargo build --release -p motet-boc --example when_tell_profile
//! target/release/examples/when_tell_profile count when 100000
//! ```
//!
//! Arguments: `count|pingpong|fanout` (fanout: rounds of one message to each of 60 receivers, the
//! shape of fjthrput), `when|detached|tell`, the number of messages (default 100,000) and of
//! repetitions (default 1). Prints the median wall time of the repetitions.

#[path = "../benches/support/workloads.rs"]
mod workloads;

use std::time::{Duration, Instant};

use motet_runtime::Runtime;
use workloads::{
    count_detached, count_tell, count_when, fanout_detached, fanout_tell, fanout_when,
    pingpong_detached, pingpong_tell, pingpong_when,
};

// mimalloc, as motet-savina links it.
#[global_allocator]
static GLOBAL: motet_runtime::alloc::Mimalloc = motet_runtime::alloc::Mimalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.get(1).map_or("count", String::as_str);
    let model = args.get(2).map_or("when", String::as_str);
    let n: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let reps: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let run: fn(&Runtime, u64) = match (bench, model) {
        ("count", "when") => count_when,
        ("count", "detached") => count_detached,
        ("count", "tell") => count_tell,
        ("pingpong", "when") => pingpong_when,
        ("pingpong", "detached") => pingpong_detached,
        ("pingpong", "tell") => pingpong_tell,
        ("fanout", "when") => fanout_when,
        ("fanout", "detached") => fanout_detached,
        ("fanout", "tell") => fanout_tell,
        _ => {
            eprintln!(
                "usage: when_tell_profile count|pingpong|fanout when|detached|tell [N] [REPS]"
            );
            std::process::exit(2);
        }
    };
    let rt = Runtime::builder().workers(1).build().unwrap();
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            run(&rt, n);
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{bench} {model} n={n}: median {:.3} ms over {reps}",
        times[reps / 2].as_secs_f64() * 1e3
    );
}
