//! Federated runs as separate processes over Zenoh on 127.0.0.1: the coordinator in this
//! process, each federate a child process (this test executable, re-run with `--federate`),
//! every child killed by PID when its launch ends, every wait bounded.
//!
//! - determinism: the chain's event log equals the one-process log, over `FEDERATED_RUNS` runs
//!   (3 by default; the release stress script runs 20 through the example);
//! - failure: the filter federate killed with SIGKILL mid-run is reported by the coordinator and
//!   by the other federates, which run to their timeout and exit with the error;
//! - coordinator loss: the coordinator (in a child process here) killed with SIGKILL mid-run:
//!   every federate stops with `CoordinatorLost`;
//! - physical connections: values go peer to peer between two federate processes (each listens
//!   on an ephemeral port; Zenoh's gossip connects them), none lost, in order.
//!
//! A test binary with its own `main` (`harness = false`): the children need a main to enter.

#[path = "../examples/chain/launch.rs"]
mod launch;
#[path = "../examples/chain/program.rs"]
mod program;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use motet_federated::transport::zenoh::{ZenohCoordinator, ZenohFederate, ZenohOptions};
use motet_federated::{
    run_coordinator, CoordinatorOptions, FederateOptions, FederatedBuilder, FederatedError,
    FederatedProgram, Role,
};
use motet_reactor_core::RunOptions;

/// `a` sends 1..=20 on a 1 ms timer over a physical connection to `b`, which prints each value.
fn physical_program(role: Role) -> FederatedProgram {
    let mut b = FederatedBuilder::new(role);
    let (fa, fb) = (b.federate("a"), b.federate("b"));
    let a = b.reactor("a", 0u32);
    let t = b.timer(a, "t", Duration::ZERO, Duration::from_millis(1));
    let out = b.output::<u32, _>(a, "out");
    b.reaction(a, "tick")
        .trigger(t)
        .effect(out)
        .body(move |n: &mut u32, ctx| {
            if *n < 20 {
                *n += 1;
                ctx.set(out, *n);
            }
        });
    let r = b.reactor("b", ());
    let inp = b.input::<u32, _>(r, "in");
    b.reaction(r, "seen")
        .trigger(inp)
        .body(move |_, ctx| println!("PHYS {}", ctx.get(inp).unwrap()));
    b.assign(a, fa);
    b.assign(r, fb);
    b.connect_federated_physical(out, inp);
    b.build().expect("the physical program builds")
}

fn physical_run() -> RunOptions {
    RunOptions {
        fast: false,
        timeout: Some(Duration::from_millis(1000)),
    }
}

/// A federate of [`physical_program`]: `--physical NAME --connect EP --federation F`.
fn physical_federate(args: &[String]) -> Option<i32> {
    let i = args.iter().position(|a| a == "--physical")?;
    let name = args.get(i + 1)?.clone();
    let a = launch::FederateArgs::parse(&[
        "--federate".into(),
        name.clone(),
        "--connect".into(),
        args.iter()
            .position(|a| a == "--connect")
            .and_then(|i| args.get(i + 1))?
            .clone(),
        "--federation".into(),
        args.iter()
            .position(|a| a == "--federation")
            .and_then(|i| args.get(i + 1))?
            .clone(),
    ])?;
    let mut prog = physical_program(Role::Federate(name.clone()));
    let opts = ZenohOptions {
        federation: a.federation,
        listen: vec!["tcp/127.0.0.1:0".into()],
        connect: vec![a.connect],
    };
    let t = match ZenohFederate::connect(&opts, prog.topology(), &name) {
        Ok(t) => t,
        Err(e) => {
            println!("ERROR {e}");
            return Some(2);
        }
    };
    let fopts = FederateOptions {
        run: physical_run(),
        join_timeout: Duration::from_secs(60),
    };
    let r = prog.run_federate(&t, &fopts);
    t.close();
    Some(match r {
        Ok(_) => 0,
        Err(e) => {
            println!("ERROR {e}");
            2
        }
    })
}

fn physical(exe: &std::path::Path) -> Result<(), String> {
    let port = launch::free_port();
    let listen = format!("tcp/127.0.0.1:{port}");
    let federation = format!("physical-{}", std::process::id());
    let topology = physical_program(Role::Whole).topology().clone();
    let opts = ZenohOptions {
        federation: federation.clone(),
        listen: vec![listen.clone()],
        connect: Vec::new(),
    };
    let rti = ZenohCoordinator::open(&opts, &topology).map_err(|e| e.to_string())?;
    let coordinator = std::thread::spawn(move || {
        let r = run_coordinator(topology, &rti, &CoordinatorOptions::default());
        std::thread::sleep(Duration::from_millis(50));
        rti.close();
        r
    });
    let mut guards = Vec::new();
    for name in ["a", "b"] {
        let child = Command::new(exe)
            .args([
                "--physical",
                name,
                "--connect",
                &listen,
                "--federation",
                &federation,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        guards.push(launch::Guard {
            name: name.into(),
            child,
        });
    }
    let (tx, rx) = std::sync::mpsc::channel();
    for g in &mut guards {
        if let Some(out) = g.child.stdout.take() {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for l in BufReader::new(out).lines().map_while(Result::ok) {
                    let _ = tx.send(l);
                }
            });
        }
    }
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut values = Vec::new();
    let mut other = Vec::new();
    while let Ok(l) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        match l.strip_prefix("PHYS ").and_then(|v| v.parse::<u32>().ok()) {
            Some(v) => values.push(v),
            None => other.push(l),
        }
    }
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
        if code != Some(0) {
            return Err(format!("{} exited with {code:?}: {other:?}", g.name));
        }
    }
    while !coordinator.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    if !coordinator.is_finished() {
        return Err("the coordinator did not end".into());
    }
    coordinator
        .join()
        .map_err(|_| "the coordinator panicked".to_string())?
        .map_err(|e| e.to_string())?;
    let expected: Vec<u32> = (1..=20).collect();
    if values != expected {
        return Err(format!("b received {values:?}"));
    }
    println!("  20 values peer to peer, in order");
    Ok(())
}

fn determinism(exe: &std::path::Path) -> Result<(), String> {
    let runs: usize = std::env::var("FEDERATED_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let whole = program::sorted(launch::whole_log().0);
    if whole.len() < 50 {
        return Err(format!(
            "the reference run logged only {} events",
            whole.len()
        ));
    }
    for run in 1..=runs {
        let out = launch::launch(exe, None, None, Duration::from_secs(120));
        out.coordinator
            .as_ref()
            .map_err(|e| format!("run {run}: coordinator: {e}; {:?}", out.lines))?;
        for (name, code) in &out.exits {
            if *code != Some(0) {
                return Err(format!(
                    "run {run}: {name} exited with {code:?}; {:?}",
                    out.lines
                ));
            }
        }
        let fed = program::sorted(out.log);
        if fed != whole {
            return Err(format!(
                "run {run}: the federated log differs ({} events, {} in one process)",
                fed.len(),
                whole.len()
            ));
        }
        println!(
            "  run {run}: identical log of {} events ({:?} with process start-up, {:?} us run)",
            fed.len(),
            out.wall,
            launch::federated_run_us(&out.lines)
        );
    }
    Ok(())
}

fn killed_federate(exe: &std::path::Path) -> Result<(), String> {
    let timeout_ms = 3000;
    let out = launch::launch(
        exe,
        Some(timeout_ms),
        Some("filter"),
        Duration::from_secs(90),
    );
    match &out.coordinator {
        Err(FederatedError::FederateFailed(names)) if names == &["filter".to_string()] => {}
        other => return Err(format!("coordinator: {other:?}; {:?}", out.lines)),
    }
    for (name, code) in &out.exits {
        match name.as_str() {
            "filter" => {
                if code.is_some() {
                    return Err(format!("the killed filter exited with {code:?}"));
                }
            }
            _ => {
                if *code != Some(2) {
                    return Err(format!("{name} exited with {code:?}; {:?}", out.lines));
                }
                let reported = out.lines.iter().any(|l| {
                    l.starts_with(&format!("{name}: ERROR"))
                        && l.contains("failed during the run: filter")
                });
                if !reported {
                    return Err(format!(
                        "{name} did not report the failure: {:?}",
                        out.lines
                    ));
                }
            }
        }
    }
    // The others ran to the timeout: the sensors' ticks and the actuator's raw input at it.
    let end = timeout_ms * 1_000_000;
    for reactor in ["s1", "actuator"] {
        if !out.log.iter().any(|e| e.2 == reactor && e.0 == end) {
            return Err(format!("{reactor} did not run to the timeout"));
        }
    }
    println!(
        "  the filter killed: reported by the coordinator and both others, which ran to the end"
    );
    Ok(())
}

/// The coordinator's process: `--coordinator --listen EP --federation F`.
fn coordinator_process(args: &[String]) -> Option<i32> {
    args.iter().position(|a| a == "--coordinator")?;
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let topology = program::build(Role::Whole, false).0.topology().clone();
    let opts = ZenohOptions {
        federation: get("--federation")?,
        listen: vec![get("--listen")?],
        connect: Vec::new(),
    };
    let rti = match ZenohCoordinator::open(&opts, &topology) {
        Ok(r) => r,
        Err(e) => {
            println!("ERROR {e}");
            return Some(2);
        }
    };
    println!("READY");
    let r = run_coordinator(topology, &rti, &CoordinatorOptions::default());
    Some(if r.is_ok() { 0 } else { 2 })
}

fn coordinator_lost(exe: &std::path::Path) -> Result<(), String> {
    let port = launch::free_port();
    let listen = format!("tcp/127.0.0.1:{port}");
    let federation = format!("lost-{}", std::process::id());
    let spawn = |args: &[&str]| {
        Command::new(exe)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())
    };
    let (tx, rx) = std::sync::mpsc::channel::<(String, String)>();
    let read = |name: &str, child: &mut std::process::Child| {
        if let Some(out) = child.stdout.take() {
            let tx = tx.clone();
            let name = name.to_string();
            std::thread::spawn(move || {
                for l in BufReader::new(out).lines().map_while(Result::ok) {
                    let _ = tx.send((name.clone(), l));
                }
            });
        }
    };
    let mut rti = launch::Guard {
        name: "coordinator".into(),
        child: spawn(&[
            "--coordinator",
            "--listen",
            &listen,
            "--federation",
            &federation,
        ])?,
    };
    read("coordinator", &mut rti.child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let wait = |rx: &std::sync::mpsc::Receiver<(String, String)>| {
        rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    };
    match wait(&rx) {
        Ok((_, l)) if l == "READY" => {}
        other => return Err(format!("the coordinator did not start: {other:?}")),
    }
    let mut feds = Vec::new();
    for name in program::FEDERATES {
        let mut child = spawn(&[
            "--federate",
            name,
            "--connect",
            &listen,
            "--federation",
            &federation,
            "--realtime",
            "3000",
        ])?;
        read(name, &mut child);
        feds.push(launch::Guard {
            name: name.into(),
            child,
        });
    }
    drop(tx);
    // Once the run is under way (a federate logged an event), kill the coordinator.
    let mut lines = Vec::new();
    loop {
        match wait(&rx) {
            Ok((_, l)) if l.starts_with("LOG ") => break,
            Ok((n, l)) => lines.push(format!("{n}: {l}")),
            Err(_) => return Err(format!("no federate ran: {lines:?}")),
        }
    }
    let _ = rti.child.kill();
    while let Ok((n, l)) = wait(&rx) {
        if !l.starts_with("LOG ") {
            lines.push(format!("{n}: {l}"));
        }
    }
    for g in &mut feds {
        let code = loop {
            match g.child.try_wait() {
                Ok(Some(s)) => break s.code(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => break None,
            }
        };
        let reported = lines
            .iter()
            .any(|l| l == &format!("{}: ERROR the coordinator vanished", g.name));
        if code != Some(2) || !reported {
            return Err(format!("{} exited with {code:?}: {lines:?}", g.name));
        }
    }
    println!("  the coordinator killed: every federate stopped with CoordinatorLost");
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(code) = coordinator_process(&args) {
        std::process::exit(code);
    }
    if let Some(code) = physical_federate(&args) {
        std::process::exit(code);
    }
    if let Some(a) = launch::FederateArgs::parse(&args) {
        std::process::exit(launch::federate_main(&a));
    }
    // `cargo test -- --list` and filters: this binary has two checks and runs both.
    if args.iter().any(|a| a == "--list") {
        println!(
            "determinism: test\nkilled_federate: test\ncoordinator_lost: test\nphysical: test"
        );
        return;
    }
    let exe = std::env::current_exe().expect("the test executable's path");
    let mut failed = 0;
    for (name, check) in [
        (
            "determinism",
            determinism as fn(&std::path::Path) -> Result<(), String>,
        ),
        ("killed_federate", killed_federate),
        ("coordinator_lost", coordinator_lost),
        ("physical", physical),
    ] {
        println!("test {name} ...");
        match check(&exe) {
            Ok(()) => println!("test {name} ... ok"),
            Err(e) => {
                println!("test {name} ... FAILED: {e}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        std::process::exit(1);
    }
}
