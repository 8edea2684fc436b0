//! Federated runs as separate processes over Zenoh on 127.0.0.1: the coordinator in this
//! process, each federate a child process (this test executable, re-run with `--federate`),
//! every child killed by PID when its launch ends, every wait bounded.
//!
//! - determinism: the chain's event log equals the one-process log, over `FEDERATED_RUNS` runs
//!   (3 by default; the release stress script runs 20 through the example);
//! - failure: the filter federate killed with SIGKILL mid-run is reported by the coordinator and
//!   by the other federates, which run to their timeout and exit with the error.
//!
//! A test binary with its own `main` (`harness = false`): the children need a main to enter.

#[path = "../examples/chain/launch.rs"]
mod launch;
#[path = "../examples/chain/program.rs"]
mod program;

use std::time::Duration;

use motet_federated::FederatedError;

fn determinism(exe: &std::path::Path) -> Result<(), String> {
    let runs: usize = std::env::var("FEDERATED_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let whole = program::sorted(launch::whole_log());
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
            "  run {run}: identical log of {} events ({:?} with process start-up)",
            fed.len(),
            out.wall
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(a) = launch::FederateArgs::parse(&args) {
        std::process::exit(launch::federate_main(&a));
    }
    // `cargo test -- --list` and filters: this binary has two checks and runs both.
    if args.iter().any(|a| a == "--list") {
        println!("determinism: test\nkilled_federate: test");
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
