//! A Savina program with its actors split over two processes, beside the same program in one.
//!
//! `cargo run --release -p motet-remote --example remote_savina -- [--bench fjthrput|big|all]
//! [-n N] [-a A] [-w W] [--iterations K] [--workers T] [--json FILE]`
//!
//! Each benchmark runs twice in one invocation, with the same actor code: first with every actor in
//! this process (plain motet-actor addresses, no node), then with the actors split over this
//! process and a child process it starts on 127.0.0.1 (and kills at the end): actors with an odd
//! index live in the child, and this process reaches them through motet-remote addresses
//! (`publish`/`lookup` of a factory actor there, remote `tell`, serde messages). Each placement
//! runs one warm-up iteration and then `--iterations` timed ones (default 5) and reports the
//! median, minimum and maximum in milliseconds. Both processes run a runtime with `--workers`
//! workers (default: the machine's available parallelism), so the split program has twice the
//! worker threads of the single-process one. `--bench all` (the default) runs both benchmarks, and
//! then `-n` applies to both.
//!
//! - **fjthrput** (SPEC.md 3.3; defaults N = 10,000, A = 60): this thread sends N rounds of one
//!   message to each of the A workers in index order; a worker computes `sin(37.2)²` per message
//!   and reports to a collector in this process when it has handled N. Timed: creating the
//!   workers (with two processes, one ask to the child's factory), the rounds, and the A reports. Checked afterwards: every worker reported once with
//!   N, and each one, asked for its count after the rounds, handled exactly N (a lost or
//!   duplicated message would show; so the workers stop on that ask rather than at N).
//! - **big** (SPEC.md 3.7; defaults N = 20,000, W = 120): a Sink (in this process) and W Big
//!   actors; `Neighbors` to all, then `Pong(-1)` to every Big actor; each Big actor pings a
//!   neighbor drawn from its own LCG (seeded with its id) and waits for the pong from that neighbor
//!   before the next ping; after N pings it tells the Sink, which with W exits tells every Big
//!   actor to exit. With two processes the child's Big actors get `Neighbors` from the factory
//!   there, which answers once it has queued them, and only then does this thread send the
//!   `Pong(-1)`s (so no ping reaches an actor before its neighbor list). Timed: creating the
//!   actors, the flow, and the W + 1 reports (the Sink's and each Big actor's as it exits); with
//!   two processes also the two asks to the child's factory. Checked: the Sink counted
//!   W exits, every Big actor reported once, W x N pings were answered, and no pong came from a
//!   neighbor other than the one pinged.
//!
//! In the two-process placement the check also wants this node to have rejected no frame and
//! failed to encode no message. Prints one JSON record per placement (and appends it to FILE):
//! `{"bench", "placement": "one-process"|"two-processes", "params", "workers", "iterations",
//! "ms", "min_ms", "max_ms", "messages", "frames_out", "checked"}`, where `messages` counts the
//! application messages of one iteration as SPEC.md does and `frames_out` the frames this process
//! sent to the child per iteration. Exits with status 1 if a check fails.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use motet_actor::{spawn, Actor, Addr, Context};
use motet_remote::testing::{free_port, ChildGuard};
use motet_remote::{Node, NodeConfig, RemoteMsg, RemoteReply};
use motet_runtime::{Handle, Runtime};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod actors;
mod messages;
mod programs;

use actors::*;
use messages::*;
use programs::*;

/// How long any one wait (a lookup, an ask, an iteration's reports) may take.
const LONG: Duration = Duration::from_secs(300);
/// Untimed iterations before the timed ones.
const WARMUP: usize = 1;

// ---------------------------------------------------------------------------------------------
// Placements

/// The child process's side of the two-process placement, seen from the main process.
struct Far {
    node: Node,
    factory: Addr<Setup>,
    child: ChildGuard,
}

/// Where the actors live.
struct Placement<'a> {
    rt: &'a Runtime,
    far: Option<&'a Far>,
    reports: Receiver<Report>,
    collector: Addr<Report>,
}

impl Placement<'_> {
    fn name(&self) -> &'static str {
        if self.far.is_some() {
            "two-processes"
        } else {
            "one-process"
        }
    }

    /// Whether the actor with this index lives in the child.
    fn is_far(&self, index: usize) -> bool {
        self.far.is_some() && index % 2 == 1
    }

    /// Asks the child's factory (`LONG` timeout).
    fn setup<R: Send + 'static>(
        &self,
        make: impl FnOnce(motet_actor::Reply<R>) -> Setup,
    ) -> Result<R, String> {
        let far = self.far.expect("a child process");
        far.factory
            .ask(make, LONG)
            .wait()
            .map_err(|e| format!("the child's factory did not answer: {e:?}"))
    }

    /// Waits (bounded) for `count` reports.
    fn collect(&self, count: usize) -> Result<Vec<Report>, String> {
        let deadline = Instant::now() + LONG;
        (0..count)
            .map(|got| {
                self.reports
                    .recv_deadline(deadline)
                    .map_err(|_| format!("{got} of {count} reports arrived in time"))
            })
            .collect()
    }
}

/// One iteration of a benchmark in a placement.
type RunIteration = Box<dyn Fn(&Placement<'_>) -> Result<Iteration, String>>;

/// What one iteration measured and found.
struct Iteration {
    elapsed: Duration,
    messages: u64,
    check: Result<(), String>,
}

// ---------------------------------------------------------------------------------------------
// Driver

fn arg(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn num<T: std::str::FromStr>(args: &[String], flag: &str, default: T) -> T {
    match arg(args, flag) {
        Some(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("{flag} wants a number, got {s}")),
        None => default,
    }
}

/// The child process: a node listening on `port` with the factory published as "factory".
fn child(rt: &Runtime, port: &str) {
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("remote_savina")
            .listen(&format!("tcp/127.0.0.1:{port}")),
    )
    .expect("start the child node");
    let factory = spawn(rt.handle(), Factory { bigs: Vec::new() });
    node.publish("factory", &factory).expect("publish");
    println!("READY");
    let mut line = String::new();
    while std::io::stdin()
        .read_line(&mut line)
        .map(|n| n > 0)
        .unwrap_or(false)
    {}
}

/// Starts the child and this process's node, and looks up the factory.
fn start_far(rt: &Runtime, workers: usize) -> Far {
    let port = free_port();
    let exe = std::env::current_exe().expect("own path");
    let args = [
        "--child".into(),
        port.to_string(),
        "--workers".into(),
        workers.to_string(),
    ];
    let child = ChildGuard::spawn(&exe, &args).expect("start the child process");
    child
        .expect_line("READY", Duration::from_secs(60))
        .expect("the child node started");
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("remote_savina")
            .connect(&format!("tcp/127.0.0.1:{port}")),
    )
    .expect("start this process's node");
    let factory = node
        .lookup::<Setup>("factory", Duration::from_secs(60))
        .expect("find the child's factory");
    Far {
        node,
        factory,
        child,
    }
}

/// Runs one benchmark in one placement; prints (and appends to `json`) its record; returns
/// whether every iteration validated.
fn measure(
    rt: &Runtime,
    far: Option<&Far>,
    bench: &str,
    args: &[String],
    iterations: usize,
    json: Option<&str>,
) -> bool {
    let (tx, reports) = crossbeam_channel::unbounded();
    let place = Placement {
        rt,
        far,
        reports,
        collector: spawn(rt.handle(), Collector(tx)),
    };
    let (params, run): (String, RunIteration) = match bench {
        "fjthrput" => {
            let (n, a) = (num(args, "-n", 10_000u64), num(args, "-a", 60usize));
            assert!(n >= 1 && a >= 1, "fjthrput wants n >= 1 and a >= 1");
            (format!("n={n} a={a}"), Box::new(move |p| fjthrput(p, n, a)))
        }
        "big" => {
            let (n, w) = (num(args, "-n", 20_000u64), num(args, "-w", 120usize));
            assert!(
                (1..=i32::MAX as usize).contains(&w),
                "big wants 1 <= w <= i32::MAX"
            );
            (format!("n={n} w={w}"), Box::new(move |p| big(p, n, w)))
        }
        other => panic!("unknown benchmark {other} (fjthrput or big)"),
    };
    let frames = || far.map_or(0, |f| f.node.stats().frames_out);
    let mut checked = true;
    let mut times = Vec::new();
    let mut messages = 0;
    let mut frames_out = 0;
    for i in 0..WARMUP + iterations {
        let before = frames();
        let it = run(&place).unwrap_or_else(|e| Iteration {
            elapsed: Duration::ZERO,
            messages: 0,
            check: Err(e),
        });
        if let Err(why) = &it.check {
            eprintln!("{bench} {}: iteration {i} failed: {why}", place.name());
            checked = false;
            break;
        }
        if i >= WARMUP {
            times.push(it.elapsed.as_secs_f64() * 1e3);
            messages = it.messages;
            frames_out += frames() - before;
        }
    }
    if let Some(far) = far {
        let stats = far.node.stats();
        if stats.rejected() != 0 || stats.encode_errors != 0 {
            eprintln!("{bench}: frames rejected or messages not encoded: {stats:?}");
            checked = false;
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |i: usize| times.get(i).copied().unwrap_or(f64::NAN);
    let record = format!(
        "{{\"bench\": \"{bench}\", \"placement\": \"{}\", \"params\": \"{params}\", \"workers\": {}, \"iterations\": {}, \"ms\": {:.1}, \"min_ms\": {:.1}, \"max_ms\": {:.1}, \"messages\": {messages}, \"frames_out\": {}, \"checked\": {checked}}}",
        place.name(),
        rt.handle().workers(),
        times.len(),
        at(times.len() / 2),
        at(0),
        at(times.len().saturating_sub(1)),
        frames_out / times.len().max(1) as u64,
    );
    println!("{record}");
    if let Some(path) = json {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open the JSON file");
        writeln!(f, "{record}").expect("write the JSON file");
    }
    checked
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let default_workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let workers = num(&args, "--workers", default_workers);
    let rt = Runtime::builder()
        .workers(workers)
        .build()
        .expect("runtime");
    if let Some(port) = arg(&args, "--child") {
        child(&rt, &port);
        return;
    }
    let bench = arg(&args, "--bench").unwrap_or_else(|| "all".into());
    let benches = match bench.as_str() {
        "all" => vec!["fjthrput", "big"],
        b => vec![b],
    };
    let iterations = num(&args, "--iterations", 5usize).max(1);
    let json = arg(&args, "--json");
    let mut ok = true;
    for bench in &benches {
        ok &= measure(&rt, None, bench, &args, iterations, json.as_deref());
    }
    let far = start_far(&rt, workers);
    for bench in &benches {
        ok &= measure(&rt, Some(&far), bench, &args, iterations, json.as_deref());
    }
    let Far { node, child, .. } = far;
    node.close();
    drop(child);
    if !ok {
        std::process::exit(1);
    }
}
