//! Timing of physical-time chasing (LF embedded paper, section 5.2, on Linux): a 1 kHz timer for N
//! seconds, recording at each reaction start the lag of physical time behind the tag's logical time;
//! and a physical action scheduled from another thread every few milliseconds, recording the latency
//! from `send` to the start of its reaction. Prints mean, median, p99 and max.
//!
//! `cargo run --release -p motet-reactor --example timing -- [seconds] [workers]`
//! (workers 1: the program runs on the calling thread; more: on a runtime pool.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use motet_reactor::clock::now_ns;
use motet_reactor::{ProgramBuilder, Runner};
use motet_runtime::Runtime;

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut v: Vec<u64>) {
    v.sort_unstable();
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64;
    println!(
        "{name:<28} n={:<6} mean {:>8.1} us   median {:>8.1} us   p99 {:>8.1} us   max {:>8.1} us",
        v.len(),
        mean / 1e3,
        percentile(&v, 0.5) as f64 / 1e3,
        percentile(&v, 0.99) as f64 / 1e3,
        v.last().copied().unwrap_or(0) as f64 / 1e3,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seconds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let workers: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);

    let lags = Arc::new(Mutex::new(Vec::with_capacity(seconds as usize * 1000 + 1)));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let mut b = ProgramBuilder::new();
    let r = b.reactor("timing", ());
    let tick = b.timer(r, "tick", Duration::ZERO, Duration::from_millis(1));
    let input = b.physical_action::<u64, _>(r, "input", Duration::ZERO);
    let l = lags.clone();
    b.reaction(r, "tick").trigger(tick).body(move |_, ctx| {
        let lag = ctx.lag().as_nanos() as u64;
        l.lock().unwrap().push(lag);
    });
    let l = latencies.clone();
    b.reaction(r, "input").trigger(input).body(move |_, ctx| {
        let sent = *ctx.get(input).unwrap();
        l.lock()
            .unwrap()
            .push(ctx.physical_now().saturating_sub(sent));
    });
    let mut program = b.build().expect("program");

    let stop = Arc::new(AtomicBool::new(false));
    let tx = program.sender(input);
    let s = stop.clone();
    let sender = std::thread::spawn(move || {
        while !s.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_micros(3_700));
            tx.send(now_ns());
        }
    });

    let rt;
    let runner = if workers > 1 {
        rt = Runtime::builder()
            .workers(workers)
            .build()
            .expect("runtime");
        Runner::on(rt.handle())
    } else {
        Runner::new()
    };
    let result = runner
        .timeout(Duration::from_secs(seconds))
        .run(&mut program)
        .expect("run");
    stop.store(true, Ordering::Relaxed);
    sender.join().expect("sender thread");

    println!(
        "1 kHz timer for {seconds} s, {workers} worker(s), {} tags",
        result.metrics.tags
    );
    report(
        "timer lag (physical-logical)",
        std::mem::take(&mut *lags.lock().unwrap()),
    );
    report(
        "physical action latency",
        std::mem::take(&mut *latencies.lock().unwrap()),
    );
}
