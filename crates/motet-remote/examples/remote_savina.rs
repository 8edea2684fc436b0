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

/// How long any one wait (a lookup, an ask, an iteration's reports) may take.
const LONG: Duration = Duration::from_secs(300);
/// Untimed iterations before the timed ones.
const WARMUP: usize = 1;

// ---------------------------------------------------------------------------------------------
// Messages

/// An address as a message field that can cross nodes.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
struct Remote<M: RemoteMsg>(#[serde(with = "motet_remote::addr")] Addr<M>);

/// The addresses of actors a factory spawned, in the order of the indices asked for.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
struct Spawned<M: RemoteMsg>(Vec<Remote<M>>);

impl RemoteMsg for Spawned<FjMsg> {
    const NAME: &'static str = "examples.remote_savina.Spawned<FjMsg>";
}

impl RemoteMsg for Spawned<BigMsg> {
    const NAME: &'static str = "examples.remote_savina.Spawned<BigMsg>";
}

/// What the actors report to the collector in the main process.
#[derive(Debug, Serialize, Deserialize)]
enum Report {
    /// A fjthrput worker handled its N-th message.
    Fj { index: u32, processed: u64 },
    /// A Big actor exited: the pings it answered and the pongs from an unexpected neighbor.
    Big {
        id: i32,
        pings_handled: u64,
        unexpected: u64,
    },
    /// The Sink exited after this many exits.
    Sink { exits: u64 },
}

impl RemoteMsg for Report {
    const NAME: &'static str = "examples.remote_savina.Report";
}

/// A fjthrput worker's messages.
#[derive(Serialize, Deserialize)]
enum FjMsg {
    /// One unit of fork-join work.
    Work,
    /// Answer the number of messages handled, then stop (the untimed check).
    Finish(RemoteReply<u64>),
}

impl RemoteMsg for FjMsg {
    const NAME: &'static str = "examples.remote_savina.FjMsg";
}

/// Every Big actor's address, by id, shared by all of them.
#[derive(Clone)]
struct Neighbors(Arc<[Addr<BigMsg>]>);

impl Serialize for Neighbors {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|a| Remote(a.clone())))
    }
}

impl<'de> Deserialize<'de> for Neighbors {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Neighbors, D::Error> {
        let all = Vec::<Remote<BigMsg>>::deserialize(d)?;
        Ok(Neighbors(all.into_iter().map(|r| r.0).collect()))
    }
}

/// A Big actor's messages.
#[derive(Serialize, Deserialize)]
enum BigMsg {
    Neighbors(Neighbors),
    Ping(i32),
    Pong(i32),
    Exit,
}

impl RemoteMsg for BigMsg {
    const NAME: &'static str = "examples.remote_savina.BigMsg";
}

/// The Sink's messages.
#[derive(Serialize, Deserialize)]
enum SinkMsg {
    Neighbors(Neighbors),
    Exit,
}

impl RemoteMsg for SinkMsg {
    const NAME: &'static str = "examples.remote_savina.SinkMsg";
}

/// The child's factory: spawns the child's share of the actors and hands them their setup.
#[derive(Serialize, Deserialize)]
enum Setup {
    /// Spawn fjthrput workers with these indices.
    Fj {
        n: u64,
        indices: Vec<u32>,
        report: Remote<Report>,
        reply: RemoteReply<Spawned<FjMsg>>,
    },
    /// Spawn Big actors with these ids (kept until `BigNeighbors`).
    Big {
        n: u64,
        ids: Vec<i32>,
        sink: Remote<SinkMsg>,
        report: Remote<Report>,
        reply: RemoteReply<Spawned<BigMsg>>,
    },
    /// Tell the Big actors spawned last their neighbors; answer how many were told.
    BigNeighbors {
        all: Neighbors,
        reply: RemoteReply<u64>,
    },
}

impl RemoteMsg for Setup {
    const NAME: &'static str = "examples.remote_savina.Setup";
}

// ---------------------------------------------------------------------------------------------
// Actors (the same in both placements)

/// Forwards reports to the main thread.
struct Collector(Sender<Report>);

impl Actor for Collector {
    type Msg = Report;
    fn handle(&mut self, _: &mut Context<'_, Self>, report: Report) {
        let _ = self.0.send(report);
    }
}

/// Savina's fork-join work unit: `sin(37.2)²`, which must be positive.
fn perform_computation() -> f64 {
    let sint = std::hint::black_box(37.2f64).sin();
    let res = sint * sint;
    assert!(res > 0.0, "fork-join computation: {res} is not positive");
    res
}

/// A fjthrput worker.
struct Worker {
    index: u32,
    n: u64,
    processed: u64,
    report: Addr<Report>,
}

impl Actor for Worker {
    type Msg = FjMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: FjMsg) {
        match msg {
            FjMsg::Work => {
                perform_computation();
                self.processed += 1;
                if self.processed == self.n {
                    let _ = self.report.tell(Report::Fj {
                        index: self.index,
                        processed: self.processed,
                    });
                }
            }
            FjMsg::Finish(reply) => {
                let _ = reply.send(self.processed);
                ctx.stop();
            }
        }
    }
}

fn spawn_worker(h: &Handle, index: u32, n: u64, report: &Addr<Report>) -> Addr<FjMsg> {
    spawn(
        h,
        Worker {
            index,
            n,
            processed: 0,
            report: report.clone(),
        },
    )
}

/// Savina's 16-bit LCG (SPEC.md section 2), as Big draws its targets.
struct PseudoRandom(i64);

impl PseudoRandom {
    fn next_int_below(&mut self, bound: i32) -> i32 {
        self.0 = self.0.wrapping_mul(1309).wrapping_add(13849) & 0xFFFF;
        self.0 as i32 % bound
    }
}

/// Big's Sink: counts exits; with W of them, tells every Big actor to exit.
struct Sink {
    w: usize,
    exits: u64,
    neighbors: Option<Neighbors>,
    report: Addr<Report>,
}

impl Actor for Sink {
    type Msg = SinkMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SinkMsg) {
        match msg {
            SinkMsg::Neighbors(all) => self.neighbors = Some(all),
            SinkMsg::Exit => {
                self.exits += 1;
                if self.exits == self.w as u64 {
                    if let Some(all) = self.neighbors.take() {
                        for big in all.0.iter() {
                            let _ = big.tell(BigMsg::Exit);
                        }
                    }
                    let _ = self.report.tell(Report::Sink { exits: self.exits });
                    ctx.stop();
                }
            }
        }
    }
}

/// A Big actor.
struct Big {
    id: i32,
    n: u64,
    pings: u64,
    exp_pinger: i32,
    rng: PseudoRandom,
    sink: Addr<SinkMsg>,
    neighbors: Option<Neighbors>,
    pings_handled: u64,
    unexpected: u64,
    report: Addr<Report>,
}

impl Actor for Big {
    type Msg = BigMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: BigMsg) {
        match msg {
            BigMsg::Neighbors(all) => self.neighbors = Some(all),
            BigMsg::Ping(sender) => {
                self.pings_handled += 1;
                if let Some(all) = &self.neighbors {
                    let _ = all.0[sender as usize].tell(BigMsg::Pong(self.id));
                }
            }
            BigMsg::Pong(sender) => {
                if sender != self.exp_pinger {
                    self.unexpected += 1;
                }
                if self.pings == self.n {
                    let _ = self.sink.tell(SinkMsg::Exit);
                } else if let Some(all) = &self.neighbors {
                    let target = self.rng.next_int_below(all.0.len() as i32);
                    self.exp_pinger = target;
                    let _ = all.0[target as usize].tell(BigMsg::Ping(self.id));
                    self.pings += 1;
                }
            }
            BigMsg::Exit => {
                let _ = self.report.tell(Report::Big {
                    id: self.id,
                    pings_handled: self.pings_handled,
                    unexpected: self.unexpected,
                });
                self.neighbors = None;
                ctx.stop();
            }
        }
    }
}

fn spawn_big(
    h: &Handle,
    id: i32,
    n: u64,
    sink: &Addr<SinkMsg>,
    report: &Addr<Report>,
) -> Addr<BigMsg> {
    spawn(
        h,
        Big {
            id,
            n,
            pings: 0,
            exp_pinger: -1,
            rng: PseudoRandom(i64::from(id)),
            sink: sink.clone(),
            neighbors: None,
            pings_handled: 0,
            unexpected: 0,
            report: report.clone(),
        },
    )
}

/// The child's factory actor.
struct Factory {
    bigs: Vec<Addr<BigMsg>>,
}

impl Actor for Factory {
    type Msg = Setup;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Setup) {
        let h = ctx.runtime();
        match msg {
            Setup::Fj {
                n,
                indices,
                report,
                reply,
            } => {
                let workers = indices
                    .into_iter()
                    .map(|i| Remote(spawn_worker(h, i, n, &report.0)))
                    .collect();
                let _ = reply.send(Spawned(workers));
            }
            Setup::Big {
                n,
                ids,
                sink,
                report,
                reply,
            } => {
                self.bigs = ids
                    .into_iter()
                    .map(|id| spawn_big(h, id, n, &sink.0, &report.0))
                    .collect();
                let _ = reply.send(Spawned(
                    self.bigs.iter().map(|b| Remote(b.clone())).collect(),
                ));
            }
            Setup::BigNeighbors { all, reply } => {
                let told = self.bigs.len() as u64;
                for big in self.bigs.drain(..) {
                    let _ = big.tell(BigMsg::Neighbors(all.clone()));
                }
                let _ = reply.send(told);
            }
        }
    }
}

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
// fjthrput

fn fjthrput(place: &Placement<'_>, n: u64, a: usize) -> Result<Iteration, String> {
    let h = place.rt.handle();
    let start = Instant::now();
    let far_indices: Vec<u32> = (0..a)
        .filter(|&i| place.is_far(i))
        .map(|i| i as u32)
        .collect();
    let far_workers = if far_indices.is_empty() {
        Vec::new()
    } else {
        let report = Remote(place.collector.clone());
        place
            .setup(|reply| Setup::Fj {
                n,
                indices: far_indices,
                report,
                reply: reply.into(),
            })?
            .0
    };
    let mut far_workers = far_workers.into_iter();
    let workers: Vec<Addr<FjMsg>> = (0..a)
        .map(|i| match place.is_far(i) {
            true => far_workers.next().map(|r| r.0).ok_or("too few workers"),
            false => Ok(spawn_worker(h, i as u32, n, &place.collector)),
        })
        .collect::<Result<_, _>>()?;
    for _ in 0..n {
        for w in &workers {
            let _ = w.tell(FjMsg::Work);
        }
        if let Some(far) = place.far {
            far.node.wait_writable(LONG);
        }
    }
    let reports = place.collect(a)?;
    let elapsed = start.elapsed();
    // The untimed check: each worker, asked after the rounds, counts exactly N messages.
    let mut done = vec![0u64; a];
    let mut check = Ok(());
    for r in reports {
        match r {
            Report::Fj { index, processed } if (index as usize) < a => {
                if done[index as usize] != 0 {
                    check = Err(format!("worker {index} reported twice"));
                }
                done[index as usize] = processed;
            }
            other => check = Err(format!("unexpected report {other:?}")),
        }
    }
    let mut messages = 0;
    for (i, w) in workers.iter().enumerate() {
        let counted = w
            .ask(|r| FjMsg::Finish(r.into()), LONG)
            .wait()
            .map_err(|e| format!("worker {i} did not answer: {e:?}"))?;
        messages += counted;
        if check.is_ok() && (done[i] != n || counted != n) {
            check = Err(format!(
                "worker {i} reported {} and counted {counted} messages, expected {n}",
                done[i]
            ));
        }
    }
    Ok(Iteration {
        elapsed,
        messages,
        check,
    })
}

// ---------------------------------------------------------------------------------------------
// big

fn big(place: &Placement<'_>, n: u64, w: usize) -> Result<Iteration, String> {
    let h = place.rt.handle();
    let start = Instant::now();
    let sink = spawn(
        h,
        Sink {
            w,
            exits: 0,
            neighbors: None,
            report: place.collector.clone(),
        },
    );
    let far_ids: Vec<i32> = (0..w)
        .filter(|&i| place.is_far(i))
        .map(|i| i as i32)
        .collect();
    let far_bigs = if far_ids.is_empty() {
        Vec::new()
    } else {
        let (sink, report) = (Remote(sink.clone()), Remote(place.collector.clone()));
        place
            .setup(|reply| Setup::Big {
                n,
                ids: far_ids,
                sink,
                report,
                reply: reply.into(),
            })?
            .0
    };
    let mut far_bigs = far_bigs.into_iter();
    let bigs: Vec<Addr<BigMsg>> = (0..w)
        .map(|i| match place.is_far(i) {
            true => far_bigs.next().map(|r| r.0).ok_or("too few Big actors"),
            false => Ok(spawn_big(h, i as i32, n, &sink, &place.collector)),
        })
        .collect::<Result<_, _>>()?;
    let all = Neighbors(bigs.iter().cloned().collect());
    let _ = sink.tell(SinkMsg::Neighbors(all.clone()));
    for (i, big) in bigs.iter().enumerate() {
        if !place.is_far(i) {
            let _ = big.tell(BigMsg::Neighbors(all.clone()));
        }
    }
    if place.far.is_some() && w > 1 {
        let told = place.setup(|reply| Setup::BigNeighbors {
            all: all.clone(),
            reply: reply.into(),
        })?;
        if told as usize != w / 2 {
            return Err(format!("the child told {told} Big actors their neighbors"));
        }
    }
    drop(all);
    for big in &bigs {
        let _ = big.tell(BigMsg::Pong(-1));
    }
    drop((bigs, sink));
    let reports = place.collect(w + 1)?;
    let elapsed = start.elapsed();
    let (mut exits, mut pings, mut unexpected) = (None, 0u64, 0u64);
    let mut seen = vec![false; w];
    let mut check = Ok(());
    for r in reports {
        match r {
            Report::Sink { exits: e } if exits.is_none() => exits = Some(e),
            Report::Big {
                id,
                pings_handled,
                unexpected: u,
            } if (id as usize) < w && !seen[id as usize] => {
                seen[id as usize] = true;
                pings += pings_handled;
                unexpected += u;
            }
            other => check = Err(format!("unexpected report {other:?}")),
        }
    }
    let w64 = w as u64;
    if check.is_ok() {
        check = if exits != Some(w64) {
            Err(format!("the Sink counted {exits:?} exits, expected {w}"))
        } else if pings != w64 * n {
            Err(format!("{pings} pings answered, expected {}", w64 * n))
        } else if unexpected != 0 {
            Err(format!("{unexpected} pongs from an unexpected neighbor"))
        } else {
            Ok(())
        };
    }
    Ok(Iteration {
        elapsed,
        // SPEC.md's count: W x N pings and as many pongs, W Pong(-1), W + 1 Neighbors, W exits to
        // the Sink and W to the Big actors.
        messages: 2 * pings + 4 * w64 + 1,
        check,
    })
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
