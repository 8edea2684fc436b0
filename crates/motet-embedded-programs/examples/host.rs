//! The board's micro programs on the host: Ping Pong, Thread Ring and Counting at the sizes the
//! emulated board runs them (`BOARD_*` constants), built by the same functions, run on Linux with
//! motet-reactor's `Runner` on one worker (fast mode), so that the host's column beside the board's
//! comes from the same program text. `crates/motet-embedded/run-qemu.sh --host` runs it after the
//! board's programs.
//!
//! ```text
//! cargo run --release -p motet-embedded-programs --example host -- [--iterations K] [--json FILE]
//! ```
//!
//! Prints, per program, the reactions executed, the median of the runs' nanoseconds per reaction
//! (scheduling included, as the board's `per_reaction_cycles`) and whether every run validated;
//! `--json` writes one record per program. Exits non-zero if a run fails or does not validate.

use std::io::Write;
use std::process::ExitCode;

use motet_embedded_programs::{count, pingpong, threadring, Outcome};
use motet_reactor::{Program, Runner};

/// One program's runs.
struct Measured {
    name: &'static str,
    reactions: u64,
    ns_per_reaction: Vec<f64>,
    result: Option<u64>,
    validated: bool,
}

/// Builds and runs a program `iterations` times: `build` gives the program and a way to read its
/// outcome.
fn measure<P>(
    name: &'static str,
    iterations: usize,
    mut build: impl FnMut() -> P,
    program: impl Fn(&mut P) -> &mut Program,
    outcome: impl Fn(&mut P) -> Outcome,
) -> Result<Measured, String> {
    let mut m = Measured {
        name,
        reactions: 0,
        ns_per_reaction: Vec::new(),
        result: None,
        validated: true,
    };
    for _ in 0..iterations {
        let mut p = build();
        let report = Runner::new()
            .fast(true)
            .run(program(&mut p))
            .map_err(|e| format!("{name}: the run failed: {e}"))?;
        let o = outcome(&mut p);
        m.reactions = report.metrics.reactions_executed;
        m.ns_per_reaction.push(report.ns_per_reaction());
        m.result = o.result;
        m.validated &= o.validated;
    }
    Ok(m)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn main() -> ExitCode {
    let mut iterations = 10usize;
    let mut json: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--iterations", Some(v)) => match v.parse() {
                Ok(n) if n > 0 => iterations = n,
                _ => return usage(&format!("--iterations takes a positive number, not {v:?}")),
            },
            ("--json", Some(v)) => json = Some(v),
            _ => return usage(&format!("unexpected argument {a:?}")),
        }
    }
    let runs = [
        measure(
            "pingpong",
            iterations,
            || pingpong::build(pingpong::BOARD_N).expect("well formed"),
            |p| &mut p.program,
            pingpong::PingPong::outcome,
        ),
        measure(
            "threadring",
            iterations,
            || {
                threadring::build(threadring::BOARD_NODES, threadring::BOARD_PASSES)
                    .expect("well formed")
            },
            |p| &mut p.program,
            threadring::ThreadRing::outcome,
        ),
        measure(
            "count",
            iterations,
            || count::build(count::BOARD_N).expect("well formed"),
            |p| &mut p.program,
            count::Count::outcome,
        ),
    ];
    let mut ok = true;
    let mut records = Vec::new();
    println!(
        "{:<11} {:>10} {:>14} {:>10} {:>10}",
        "program", "reactions", "ns/reaction", "result", "status"
    );
    for run in runs {
        let mut m = match run {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{e}");
                ok = false;
                continue;
            }
        };
        let p50 = median(&mut m.ns_per_reaction);
        let result = m.result.map_or("none".to_string(), |r| r.to_string());
        let status = if m.validated { "OK" } else { "FAILED" };
        ok &= m.validated;
        println!(
            "{:<11} {:>10} {:>14.1} {:>10} {:>10}",
            m.name, m.reactions, p50, result, status
        );
        records.push(format!(
            "{{\"program\": \"{}\", \"platform\": \"host\", \"runner\": \"motet-reactor, 1 worker, fast\", \
             \"iterations\": {iterations}, \"reactions\": {}, \"ns_per_reaction_p50\": {p50:.1}, \
             \"result\": \"{result}\", \"validated\": {}}}",
            m.name, m.reactions, m.validated
        ));
    }
    if let Some(path) = json {
        let written = std::fs::File::create(&path)
            .and_then(|mut f| writeln!(f, "[\n  {}\n]", records.join(",\n  ")));
        if let Err(e) = written {
            eprintln!("cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("{problem}\nusage: host [--iterations K] [--json FILE]");
    ExitCode::from(2)
}
