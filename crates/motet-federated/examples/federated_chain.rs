//! A sensor -> filter -> actuator chain as three federates, each its own process on 127.0.0.1,
//! coordinated over Zenoh; the event log is checked against the same program run in one process.
//! The actuator's acknowledgments to a monitor beside the sensors close a zero-delay cycle
//! between two federates, which they run with provisional tags and port-absent messages.
//!
//! ```text
//! cargo run -p motet-federated --example federated_chain            # one federated run
//! cargo run --release -p motet-federated --example federated_chain -- --runs 20
//! ```
//!
//! The example starts its own children (itself, re-run with `--federate NAME ...`) and kills
//! each by PID when it ends.

#[path = "chain/launch.rs"]
mod launch;
#[path = "chain/program.rs"]
mod program;

use std::time::{Duration, Instant};

use launch::FederateArgs;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(a) = FederateArgs::parse(&args) {
        std::process::exit(launch::federate_main(&a));
    }
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let quiet = args.iter().any(|a| a == "--quiet");
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot find this executable: {e}");
            std::process::exit(1);
        }
    };

    let t = Instant::now();
    let (whole, tags) = launch::whole_log();
    let whole_time = t.elapsed();
    let whole = program::sorted(whole);
    if !quiet {
        println!("event log ({} events, tag-ordered):", whole.len());
        for e in &whole {
            println!("  ({:>9} ns, {}) {:<10} {}", e.0, e.1, e.2, e.3);
        }
    }
    println!(
        "one process: {} events, {tags} tags, in {:?}",
        whole.len(),
        whole_time
    );

    let mut failed = 0;
    for run in 1..=runs {
        let out = launch::launch(&exe, None, None, Duration::from_secs(120));
        let fed = program::sorted(out.log);
        let same = fed == whole;
        let messages = match &out.coordinator {
            Ok(r) => format!(
                "coordinator received {} and sent {} messages: {:.1} per tag of the one-process run",
                r.received,
                r.sent,
                (r.received + r.sent) as f64 / tags.max(1) as f64
            ),
            Err(e) => format!("coordinator: {e}"),
        };
        let run_us = launch::federated_run_us(&out.lines)
            .map_or_else(|| "?".to_string(), |us| format!("{us} us"));
        println!(
            "federated run {run}: {} events; {:?} with process start-up, {run_us} from the start message to the last federate's end; {}; log {}",
            fed.len(),
            out.wall,
            messages,
            if same { "identical" } else { "DIFFERENT" }
        );
        let bad_exit = out.exits.iter().any(|(_, c)| *c != Some(0));
        if !same || bad_exit || out.coordinator.is_err() {
            failed += 1;
            for l in &out.lines {
                println!("  {l}");
            }
            for (n, c) in &out.exits {
                println!("  {n} exited with {c:?}");
            }
            if !same {
                let extra: Vec<_> = fed.iter().filter(|e| !whole.contains(e)).take(5).collect();
                let missing: Vec<_> = whole.iter().filter(|e| !fed.contains(e)).take(5).collect();
                println!("  only federated: {extra:?}\n  only in one process: {missing:?}");
            }
        } else if !quiet {
            for l in &out.lines {
                println!("  {l}");
            }
        }
    }
    if failed > 0 {
        println!("{failed} of {runs} federated runs differed or failed");
        std::process::exit(1);
    }
    println!("all {runs} federated run(s) gave the one-process event log");
}
