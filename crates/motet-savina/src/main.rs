//! The `motet-savina` binary: `list` and `run` (see the crate documentation for the contract).

use std::process::ExitCode;

use clap::Parser;

use motet_savina::cli::{Cli, Command, RunArgs};
use motet_savina::console::Console;
use motet_savina::record::write_json;
use motet_savina::report::{self, Summary};
use motet_savina::runner;

/// Every model in the binary (motet's, the peers' and the floor) allocates through mimalloc, as
/// Verona's Savina ports allocate through snmalloc: message-passing benchmarks allocate per message,
/// and the system allocator would dominate what they measure.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::List => {
            print!("{}", report::list());
            ExitCode::SUCCESS
        }
        Command::Run(args) => run(&args),
    }
}

/// Runs the plan; status 2 for a usage error, 1 if any run failed or a report could not be written.
fn run(args: &RunArgs) -> ExitCode {
    let plan = match args.plan() {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut console = Console::new();
    let summary = runner::run(&plan, &mut console);
    console.finish();
    if !summary.records.is_empty() {
        println!("\nsummary (median ms)");
        print!("{}", Summary::new(&summary.records).to_text());
    }
    let mut ok = summary.failures == 0;
    if let Some(path) = &args.json {
        if let Err(e) = write_json(path, &summary.records) {
            eprintln!("error: cannot write {}: {e}", path.display());
            ok = false;
        }
    }
    if let Some(path) = &args.markdown {
        if let Err(e) = std::fs::write(path, report::markdown(&summary.records, &plan)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            ok = false;
        }
    }
    if summary.failures > 0 {
        eprintln!(
            "FAILED: {} run(s) did not prepare or validate (see above)",
            summary.failures
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
