//! One job per child process: how the binary measures each cell's footprint alone.
//!
//! A *cell* is one (benchmark, model, thread count) of the report. The parent (`motet-savina run`)
//! runs each cell as a child process of its own executable with the hidden subcommand
//!
//! ```text
//! motet-savina cell BENCH --model MODEL --threads N --iterations N --warmup N [--size PARAM=V]...
//! ```
//!
//! which can also be run by hand to reproduce one cell. The child measures the job in process
//! ([`runner::measure_job`]) and writes its progress to stdout, one JSON [`Event`] per line: every
//! iteration done, every failure, every panic message (through a panic hook, so that they do not
//! tear the parent's progress bar), and last the [`Measured`] times and result. The parent reads
//! the lines as they come, passes them to its [`Observer`], and reaps the child with `wait4`, whose
//! resource usage gives the child's peak resident set size: the footprint of that cell alone,
//! `peak_rss_kib` in the record.
//!
//! A child that dies before it reports (a signal such as SIGSEGV or SIGABRT, the out-of-memory
//! killer's SIGKILL, an exit without a report) is a failed cell: the parent reports how it died,
//! records the cell as not validated (with its peak memory) and goes on with the next one. A line
//! on the child's stdout that is not an event is passed on as a note.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use serde::{Deserialize, Serialize};

use crate::bench::{Benchmark, Model};
use crate::cli::CellArgs;
use crate::registry;
use crate::runner::{self, panic_message, Job, Measured, Observer, Plan};
use crate::sizes::Sizes;

/// One line of a child's report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// `n` iterations are done (or abandoned).
    Progress {
        /// How many.
        n: usize,
    },
    /// The job failed (see [`Observer::failed`]).
    Failed {
        /// What went wrong.
        what: String,
    },
    /// A diagnostic line, such as a panic message.
    Note {
        /// The text.
        text: String,
    },
    /// The job is over: its measurements, or `None` if `prepare` failed.
    Done {
        /// What the iterations measured.
        measured: Option<Measured>,
    },
}

/// What the parent learnt from one child.
#[derive(Clone, Debug, PartialEq)]
pub struct CellResult {
    /// The measurements (a failed one if the child died before reporting); `None` if `prepare`
    /// failed.
    pub measured: Option<Measured>,
    /// The child's peak resident set size in KiB, where the platform reports it.
    pub peak_rss_kib: Option<u64>,
}

/// The arguments of the hidden `cell` subcommand that runs `job` with `plan`'s iteration counts.
pub fn child_args(job: &Job<'_>, plan: &Plan) -> Vec<String> {
    let mut args = vec![
        "cell".to_string(),
        job.benchmark.name.to_string(),
        "--model".to_string(),
        job.variant.model.name().to_string(),
        "--threads".to_string(),
        job.threads.to_string(),
        "--iterations".to_string(),
        plan.iterations.to_string(),
        "--warmup".to_string(),
        plan.warmup.to_string(),
        "--min-time".to_string(),
        plan.min_time.as_secs_f64().to_string(),
    ];
    for name in job.params.names() {
        // `{}` of an f64 is the shortest text that parses back to the same value.
        args.push("--size".to_string());
        args.push(format!("{name}={}", job.params.f64(name)));
    }
    args
}

/// Runs `job` in a child process of `exe` (the `motet-savina` binary), telling `observer` as it
/// goes.
pub fn run_child(
    exe: &Path,
    job: &Job<'_>,
    plan: &Plan,
    observer: &mut dyn Observer,
) -> CellResult {
    let mut command = Command::new(exe);
    command.args(child_args(job, plan));
    crate::priority::restore_in(&mut command);
    run_command(command, job, plan.iterations_per_job(), observer)
}

/// Runs `command`, which must speak the [`Event`] protocol on stdout for `job`, and reaps it;
/// `total` is the job's number of iterations (for the progress of a child that dies early).
pub fn run_command(
    mut command: Command,
    job: &Job<'_>,
    total: usize,
    observer: &mut dyn Observer,
) -> CellResult {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let what = format!("cannot start the child process: {e}");
            observer.failed(job, &what);
            observer.progressed(total);
            return CellResult {
                measured: Some(Measured::failed(what)),
                peak_rss_kib: None,
            };
        }
    };
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut done: Option<Option<Measured>> = None;
    let mut progress = 0;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        match serde_json::from_str::<Event>(&line) {
            Ok(Event::Progress { n }) => {
                progress += n;
                observer.progressed(n);
            }
            Ok(Event::Failed { what }) => observer.failed(job, &what),
            Ok(Event::Note { text }) => observer.note(job, &text),
            Ok(Event::Done { measured }) => done = Some(measured),
            Err(_) => observer.note(job, &line),
        }
    }
    let (status, peak_rss_kib) = reap(child);
    let measured = match (done, status) {
        (Some(measured), Ok(Exit::Code(0))) => measured,
        (done, status) => {
            let how = match status {
                Ok(Exit::Code(0)) => "exited without reporting".to_string(),
                Ok(Exit::Code(code)) => format!("exited with status {code}"),
                Ok(Exit::Signal(sig)) => {
                    format!("was killed by signal {sig} ({})", signal_name(sig))
                }
                Err(e) => format!("could not be waited for: {e}"),
            };
            let what = format!("the child process {how} after {progress} of {total} iterations");
            observer.failed(job, &what);
            observer.progressed(total.saturating_sub(progress));
            match done.flatten() {
                // It reported, then failed on the way out: keep what it measured.
                Some(mut measured) => {
                    measured.failure.get_or_insert(what);
                    measured
                }
                None => Measured::failed(what),
            }
            .into()
        }
    };
    CellResult {
        measured,
        peak_rss_kib,
    }
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    /// It exited with this status.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
}

/// Waits for `child` to end; returns how it ended and its peak resident set size in KiB.
#[cfg(unix)]
fn reap(child: std::process::Child) -> (std::io::Result<Exit>, Option<u64>) {
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own unreaped child (std's `Child` never waits unless asked, and we
        // consume it here), and both out-pointers point to live, writable locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return (Err(err), None);
        }
    }
    drop(child);
    let exit = if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(libc::WEXITSTATUS(status))
    };
    // Linux and the BSDs report ru_maxrss in KiB, macOS in bytes.
    let maxrss = usage.ru_maxrss.max(0) as u64;
    let kib = if cfg!(target_os = "macos") {
        maxrss / 1024
    } else {
        maxrss
    };
    (Ok(exit), Some(kib))
}

/// Waits for `child` to end; this platform does not report its peak memory.
#[cfg(not(unix))]
fn reap(mut child: std::process::Child) -> (std::io::Result<Exit>, Option<u64>) {
    let exit = child
        .wait()
        .map(|status| Exit::Code(status.code().unwrap_or(-1)));
    (exit, None)
}

/// The usual name of a signal that ends a benchmark process.
fn signal_name(sig: i32) -> &'static str {
    #[cfg(unix)]
    {
        match sig {
            libc::SIGSEGV => return "SIGSEGV: a bad memory access or a stack overflow",
            libc::SIGABRT => return "SIGABRT: aborted",
            libc::SIGKILL => return "SIGKILL: killed, possibly by the out-of-memory killer",
            libc::SIGBUS => return "SIGBUS",
            libc::SIGILL => return "SIGILL",
            libc::SIGFPE => return "SIGFPE",
            libc::SIGTERM => return "SIGTERM",
            libc::SIGINT => return "SIGINT",
            _ => {}
        }
    }
    let _ = sig;
    "unknown signal"
}

/// The child's side: runs the job `args` names and reports it on stdout. Status 2 if the job is
/// not valid (an unknown benchmark, model or parameter).
pub fn serve(args: &CellArgs) -> ExitCode {
    let (benchmark, model, params) = match resolve(args) {
        Ok(job) => job,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(variant) = benchmark.variant(model) else {
        eprintln!("error: {} has no {model} version", benchmark.name);
        return ExitCode::from(2);
    };
    std::panic::set_hook(Box::new(|info| {
        let text = format!(
            "panicked at {}: {}",
            info.location()
                .map_or_else(|| "an unknown place".to_string(), |l| l.to_string()),
            panic_message(info.payload())
        );
        emit(&Event::Note { text });
    }));
    let job = Job {
        benchmark,
        params: &params,
        variant,
        threads: args.threads.max(1),
    };
    let measured =
        runner::measure_job(&job, args.iterations, args.warmup, args.min_time, &mut Wire);
    emit(&Event::Done { measured });
    ExitCode::SUCCESS
}

/// The benchmark, model and parameters a `cell` command names.
fn resolve(args: &CellArgs) -> Result<(&'static Benchmark, Model, crate::params::Params), String> {
    let benchmark = registry::find(&args.benchmark).ok_or_else(|| {
        format!(
            "unknown benchmark `{}`; valid: {}",
            args.benchmark,
            registry::names().join(", ")
        )
    })?;
    let model =
        Model::from_name(&args.model).ok_or_else(|| format!("unknown model `{}`", args.model))?;
    let params = Sizes::parse(&args.size)?
        .resolve(&[benchmark])?
        .pop()
        .expect("one benchmark, one parameter set");
    Ok((benchmark, model, params))
}

/// Writes `event` to stdout as one line (one `write_all` under the stdout lock, so that lines from
/// several threads never interleave).
fn emit(event: &Event) {
    let mut line = serde_json::to_string(event).expect("events always serialise");
    line.push('\n');
    let mut out = std::io::stdout().lock();
    // If the parent has gone, there is no one left to tell.
    let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
}

/// The child's observer: every call becomes an [`Event`] on stdout.
struct Wire;

impl Observer for Wire {
    fn progressed(&mut self, n: usize) {
        emit(&Event::Progress { n });
    }

    fn failed(&mut self, _job: &Job<'_>, what: &str) {
        emit(&Event::Failed {
            what: what.to_string(),
        });
    }
}

#[cfg(test)]
mod tests;
