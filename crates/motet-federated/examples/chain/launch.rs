//! Running the chain program as separate processes on 127.0.0.1: the coordinator in this
//! process, each federate a child process (this same executable, re-run with `--federate`),
//! every child killed by PID when the launch ends.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use motet_federated::transport::zenoh::{ZenohCoordinator, ZenohFederate, ZenohOptions};
use motet_federated::{
    run_coordinator, CoordinatorOptions, CoordinatorReport, FederateOptions, FederatedError, Role,
};
use motet_reactor_core::RunOptions;

use super::program::{self, Entry};

/// A child process, killed (SIGKILL) and reaped when dropped.
pub struct Guard {
    pub name: String,
    pub child: Child,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(17447)
}

/// What the command line of a federate's process says.
pub struct FederateArgs {
    pub name: String,
    pub connect: String,
    pub federation: String,
    /// Real time with this timeout (ms) instead of the program's fast run.
    pub realtime_ms: Option<u64>,
}

impl FederateArgs {
    /// Parses `--federate NAME --connect EP --federation F [--realtime MS]`; `None` when this is
    /// not a federate's command line.
    pub fn parse(args: &[String]) -> Option<FederateArgs> {
        let get = |flag: &str| {
            args.iter()
                .position(|a| a == flag)
                .and_then(|i| args.get(i + 1))
                .cloned()
        };
        Some(FederateArgs {
            name: get("--federate")?,
            connect: get("--connect")?,
            federation: get("--federation")?,
            realtime_ms: get("--realtime").and_then(|v| v.parse().ok()),
        })
    }
}

/// The run options of a launch.
pub fn run_options(realtime_ms: Option<u64>) -> RunOptions {
    match realtime_ms {
        None => program::options(),
        Some(ms) => RunOptions {
            fast: false,
            timeout: Some(Duration::from_millis(ms)),
        },
    }
}

/// A federate's process: runs its federate, printing each logged event as it happens, then a
/// `REPORT` line; exits 0, or 2 with an `ERROR` line.
pub fn federate_main(a: &FederateArgs) -> i32 {
    let (mut prog, _log) = program::build(Role::Federate(a.name.clone()), true);
    let opts = ZenohOptions {
        federation: a.federation.clone(),
        listen: Vec::new(),
        connect: vec![a.connect.clone()],
    };
    let transport = match ZenohFederate::connect(&opts, prog.topology(), &a.name) {
        Ok(t) => t,
        Err(e) => {
            println!("ERROR {e}");
            return 2;
        }
    };
    let fopts = FederateOptions {
        run: run_options(a.realtime_ms),
        join_timeout: Duration::from_secs(60),
    };
    let r = prog.run_federate(&transport, &fopts);
    transport.close();
    match r {
        Ok(report) => {
            let run_us = report.run.as_micros();
            println!(
                "REPORT {} sent {} received {} tags {} run_us {}",
                a.name, report.sent, report.received, report.metrics.tags, run_us
            );
            0
        }
        Err(e) => {
            println!("ERROR {e}");
            2
        }
    }
}

/// What one launch gave.
pub struct Outcome {
    /// Every `LOG` line of every federate.
    pub log: Vec<Entry>,
    /// Every other line, prefixed by the federate's name.
    pub lines: Vec<String>,
    /// The coordinator's result.
    pub coordinator: Result<CoordinatorReport, FederatedError>,
    /// Each federate's exit code (`None`: killed or still running when the launch gave up).
    pub exits: Vec<(String, Option<i32>)>,
    /// Wall time from the first child's start to the last one's end.
    pub wall: Duration,
}

static LAUNCHES: AtomicU32 = AtomicU32::new(0);

/// Runs every federate as a child process of `exe` (re-run with `--federate`), the coordinator
/// here; `kill` names a federate to kill with SIGKILL once it has logged an event. Waits at most
/// `limit` for everything to end, then kills what is left.
pub fn launch(
    exe: &Path,
    realtime_ms: Option<u64>,
    kill: Option<&str>,
    limit: Duration,
) -> Outcome {
    let port = free_port();
    let federation = format!(
        "chain-{}-{}",
        std::process::id(),
        LAUNCHES.fetch_add(1, Ordering::Relaxed)
    );
    let listen = format!("tcp/127.0.0.1:{port}");
    let topology = program::build(Role::Whole, false).0.topology().clone();
    let opts = ZenohOptions {
        federation: federation.clone(),
        listen: vec![listen.clone()],
        connect: Vec::new(),
    };
    let started = Instant::now();
    let rti = match ZenohCoordinator::open(&opts, &topology) {
        Ok(r) => r,
        Err(e) => {
            return Outcome {
                log: Vec::new(),
                lines: Vec::new(),
                coordinator: Err(e),
                exits: Vec::new(),
                wall: Duration::ZERO,
            }
        }
    };
    let coordinator = std::thread::spawn(move || {
        let copts = CoordinatorOptions {
            start_delay: Duration::from_millis(100),
            join_timeout: Duration::from_secs(60),
        };
        let r = run_coordinator(topology, &rti, &copts);
        // Let the last messages (resignations' answers) leave before the session closes.
        std::thread::sleep(Duration::from_millis(50));
        rti.close();
        r
    });
    let (tx, rx) = mpsc::channel::<(String, String)>();
    let mut guards = Vec::new();
    for name in program::FEDERATES {
        let mut cmd = Command::new(exe);
        cmd.args([
            "--federate",
            name,
            "--connect",
            &listen,
            "--federation",
            &federation,
        ]);
        if let Some(ms) = realtime_ms {
            cmd.args(["--realtime", &ms.to_string()]);
        }
        let mut child = match cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn() {
            Ok(c) => c,
            Err(e) => {
                let _ = tx.send((name.to_string(), format!("ERROR spawn: {e}")));
                continue;
            }
        };
        if let Some(out) = child.stdout.take() {
            let tx = tx.clone();
            let n = name.to_string();
            std::thread::spawn(move || {
                for l in BufReader::new(out).lines().map_while(Result::ok) {
                    let _ = tx.send((n.clone(), l));
                }
            });
        }
        guards.push(Guard {
            name: name.to_string(),
            child,
        });
    }
    drop(tx);
    let deadline = started + limit;
    let mut log = Vec::new();
    let mut lines = Vec::new();
    let mut killed = false;
    // Read until every child's output has ended (or the limit).
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((name, l)) => {
                if let Some(e) = program::parse(&l) {
                    if !killed && kill == Some(name.as_str()) {
                        killed = true;
                        if let Some(g) = guards.iter_mut().find(|g| g.name == name) {
                            let _ = g.child.kill();
                        }
                    }
                    log.push(e);
                } else {
                    lines.push(format!("{name}: {l}"));
                }
            }
            Err(_) => break,
        }
    }
    let mut exits = Vec::new();
    for g in &mut guards {
        let code = loop {
            match g.child.try_wait() {
                Ok(Some(s)) => break s.code(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => break None,
            }
        };
        exits.push((g.name.clone(), code));
    }
    let wall = started.elapsed();
    drop(guards);
    while !coordinator.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let coordinator = if coordinator.is_finished() {
        coordinator.join().unwrap_or(Err(FederatedError::Transport(
            "the coordinator panicked".into(),
        )))
    } else {
        // Left behind: it ends with this process.
        Err(FederatedError::Timeout("the coordinator"))
    };
    Outcome {
        log,
        lines,
        coordinator,
        exits,
        wall,
    }
}

/// The whole program's log, run in this process, and the number of tags it processed.
pub fn whole_log() -> (Vec<Entry>, u64) {
    let (mut prog, log) = program::build(Role::Whole, false);
    let metrics = prog
        .run_whole(&program::options())
        .expect("the whole program runs");
    let l = log.lock().map(|g| g.clone()).unwrap_or_default();
    (l, metrics.tags)
}

/// The longest time a federate ran from the coordinator's start message to its end
/// (microseconds), read from the `REPORT` lines.
pub fn federated_run_us(lines: &[String]) -> Option<u64> {
    lines
        .iter()
        .filter_map(|l| l.split(" run_us ").nth(1)?.trim().parse().ok())
        .max()
}
