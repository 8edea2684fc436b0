//! The `motet-savina` binary: `list`, `run` and `sweep` (see the crate documentation for the
//! contract), and the hidden `cell` subcommand that `run` and `sweep` start a child process with for
//! every cell.

use std::path::Path;
use std::process::ExitCode;

use clap::Parser;

use motet_savina::cli::{Cli, Command, RunArgs};
use motet_savina::console::Console;
use motet_savina::record::{write_json, Record};
use motet_savina::report::{self, Summary};
use motet_savina::runner::Isolation;
use motet_savina::sweep::{self, SweepArgs, SweepConsole};
use motet_savina::{cell, chart, machine, runner};

/// Every model in the binary (motet's, the peers' and the floor) allocates through mimalloc, as
/// Verona's Savina ports allocate through snmalloc: message-passing benchmarks allocate per message,
/// and the system allocator would dominate what they measure. `motet_runtime::alloc::Mimalloc`
/// says why it is not the `mimalloc` crate's own `GlobalAlloc`.
#[global_allocator]
static GLOBAL: motet_runtime::alloc::Mimalloc = motet_runtime::alloc::Mimalloc;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::List(args) => {
            if args.verbose {
                print!("{}", report::list_verbose());
            } else {
                print!("{}", report::list());
            }
            ExitCode::SUCCESS
        }
        Command::Run(args) => run(&args),
        Command::Sweep(args) => run_sweep(&args),
        Command::Cell(args) => cell::serve(&args),
    }
}

/// Runs the plan; status 2 for a usage error, 1 if any run failed or a report could not be written.
fn run(args: &RunArgs) -> ExitCode {
    // Before any thread starts: the cells keep a real-time policy, this relay does not.
    motet_savina::priority::step_down();
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
    let mut ok = write_records(args.json.as_deref(), &summary.records);
    let setting = setting();
    if let Some(path) = &args.plot {
        ok &= write(path, &chart::svg(&summary.records, &setting));
    }
    if let Some(path) = &args.markdown {
        let chart = args.plot.as_deref().map(|svg| relative_to(svg, path));
        let text = report::markdown(&summary.records, &plan, &setting, chart.as_deref());
        ok &= write(path, &text);
    }
    exit_code(summary.failures, "run(s)", ok)
}

/// Runs a sweep; status 2 for a usage error, 1 if any cell failed or an output could not be
/// written.
fn run_sweep(args: &SweepArgs) -> ExitCode {
    motet_savina::priority::step_down();
    let plan = args
        .sweep()
        .and_then(|sweep| Isolation::current_exe().map(|isolation| (sweep, isolation)));
    let (sweep, isolation) = match plan {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut console = SweepConsole::new(sweep.param);
    let result = sweep::run(&sweep, isolation, &mut console);
    console.finish();
    let table = sweep.table(&result.records);
    let fixed = sweep.fixed();
    let title = format!(
        "{} over {} ({fixed}), median ms",
        sweep.benchmark.name, sweep.param
    );
    println!("\n{title}\n{table}");
    let mut ok = write_records(args.json.as_deref(), &result.records);
    let setting = setting();
    if let Some(path) = &args.plot {
        ok &= write(path, &sweep::svg(&sweep, &result.records, &setting));
    }
    if let Some(path) = &args.markdown {
        let mut text = format!(
            "# motet-savina sweep: {title}\n\n{}, {}, {}.\n\n`motet-savina {}`\n\n{table}",
            setting.machine.summary(),
            setting.machine.rustc,
            setting.machine.date,
            setting.command
        );
        if let Some(svg) = &args.plot {
            text.push_str(&format!(
                "\n![the sweep, log-log]({})\n",
                relative_to(svg, path)
            ));
        }
        ok &= write(path, &text);
    }
    exit_code(result.failures, "cell(s)", ok)
}

/// Writes the records as JSON to `path`, if one is given; false (and a message) if they cannot
/// be written.
fn write_records(path: Option<&Path>, records: &[Record]) -> bool {
    let Some(path) = path else {
        return true;
    };
    match write_json(path, records) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            false
        }
    }
}

/// The machine and the command line, which the reports name.
fn setting() -> report::Setting {
    report::Setting {
        machine: machine::Machine::detect(),
        command: std::env::args().skip(1).collect::<Vec<_>>().join(" "),
    }
}

/// Status 1 if any of the `failures` (counted in `units`) happened, said on stderr, or an output
/// could not be written (`ok` is false); status 0 otherwise.
fn exit_code(failures: usize, units: &str, ok: bool) -> ExitCode {
    if failures > 0 {
        eprintln!("FAILED: {failures} {units} did not prepare or validate (see above)");
    }
    if ok && failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes `text` to `path`; false (and a message) if it cannot.
fn write(path: &Path, text: &str) -> bool {
    match std::fs::write(path, text) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            false
        }
    }
}

/// How the Markdown file at `markdown` links to `target`: relative to the Markdown file's folder
/// when `target` lies inside it, as given otherwise.
fn relative_to(target: &Path, markdown: &Path) -> String {
    let dir = markdown.parent().unwrap_or(Path::new(""));
    target
        .strip_prefix(dir)
        .unwrap_or(target)
        .to_string_lossy()
        .replace('\\', "/")
}
