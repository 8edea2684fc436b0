//! The parent's side of the cell protocol, against stand-in children written in `sh`, and the
//! child's arguments.

use std::process::Command;

use clap::Parser;

use super::{child_args, resolve, run_command, CellResult, Event};
use crate::bench::{Benchmark, Model};
use crate::cli::{Cli, Command as Sub};
use crate::params::Params;
use crate::record::Record;
use crate::registry;
use crate::runner::{Isolation, Job, Measured, Observer, Plan};

#[derive(Default)]
struct Log {
    progress: usize,
    failed: Vec<String>,
    notes: Vec<String>,
}

impl Observer for Log {
    fn progressed(&mut self, n: usize) {
        self.progress += n;
    }
    fn failed(&mut self, _: &Job<'_>, what: &str) {
        self.failed.push(what.to_string());
    }
    fn note(&mut self, _: &Job<'_>, text: &str) {
        self.notes.push(text.to_string());
    }
    fn finished(&mut self, _: &Record) {}
}

fn count() -> &'static Benchmark {
    registry::find("count").unwrap()
}

/// Runs `script` with `sh -c` as the child of a count/floor job of 4 iterations.
fn run_script(script: &str) -> (CellResult, Log) {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    run_child(command, 4)
}

/// Runs `command` as the child of a count/floor job of `iterations` iterations.
fn run_child(command: Command, iterations: usize) -> (CellResult, Log) {
    let b = count();
    let params = Params::small(b.params);
    let job = Job {
        benchmark: b,
        params: &params,
        variant: b.variant(Model::Floor).unwrap(),
        threads: 1,
    };
    let mut log = Log::default();
    let result = run_command(command, &job, iterations, &mut log);
    (result, log)
}

fn line(event: &Event) -> String {
    serde_json::to_string(event).unwrap()
}

fn done(samples: Vec<f64>) -> String {
    line(&Event::Done {
        measured: Some(Measured {
            samples,
            result: serde_json::json!(7),
            failure: None,
            metrics: None,
            reactors_created: None,
        }),
    })
}

#[test]
fn a_reporting_child_gives_its_measurements_and_its_peak_memory() {
    let script = format!(
        "echo '{}'; echo '{}'; echo 'stray output'; echo '{}'",
        line(&Event::Progress { n: 4 }),
        line(&Event::Note {
            text: "hello".into()
        }),
        done(vec![1.0, 2.0])
    );
    let (result, log) = run_script(&script);
    let measured = result.measured.unwrap();
    assert_eq!(measured.samples, [1.0, 2.0]);
    assert_eq!(measured.failure, None);
    assert_eq!(log.progress, 4);
    assert_eq!(log.notes, ["hello", "stray output"]);
    assert!(log.failed.is_empty());
    if cfg!(unix) {
        assert!(result.peak_rss_kib.unwrap() > 0);
    }
}

#[test]
fn a_child_killed_by_a_signal_is_a_failed_cell() {
    let script = format!("echo '{}'; kill -SEGV $$", line(&Event::Progress { n: 1 }));
    let (result, log) = run_script(&script);
    let measured = result.measured.expect("a crash still makes a record");
    let failure = measured.failure.unwrap();
    assert!(failure.contains("killed by signal"), "{failure}");
    assert!(failure.contains("SIGSEGV"), "{failure}");
    assert!(failure.contains("after 1 of 4 iterations"), "{failure}");
    assert!(measured.samples.is_empty());
    assert_eq!(log.failed, [failure]);
    assert_eq!(log.progress, 4, "the progress bar still reaches the end");
}

#[test]
fn a_child_that_exits_without_reporting_is_a_failed_cell() {
    let (result, log) = run_script("exit 3");
    let failure = result.measured.unwrap().failure.unwrap();
    assert!(failure.contains("exited with status 3"), "{failure}");
    assert_eq!(log.progress, 4);
    let (result, _) = run_script("true");
    let failure = result.measured.unwrap().failure.unwrap();
    assert!(failure.contains("exited without reporting"), "{failure}");
}

#[test]
fn a_child_that_fails_after_reporting_keeps_its_samples() {
    let (result, log) = run_script(&format!("echo '{}'; exit 1", done(vec![3.0])));
    let measured = result.measured.unwrap();
    assert_eq!(measured.samples, [3.0]);
    assert!(measured.failure.unwrap().contains("status 1"));
    assert_eq!(log.failed.len(), 1);
}

#[test]
fn a_prepare_failure_is_reported_without_a_record() {
    let script = format!(
        "echo '{}'; echo '{}'; echo '{}'",
        line(&Event::Failed {
            what: "prepare failed: no".into()
        }),
        line(&Event::Progress { n: 4 }),
        line(&Event::Done { measured: None })
    );
    let (result, log) = run_script(&script);
    assert_eq!(result.measured, None);
    assert_eq!(log.failed, ["prepare failed: no"]);
}

#[test]
fn a_child_that_cannot_start_is_a_failed_cell() {
    let (result, log) = run_child(Command::new("/nonexistent/motet-savina"), 2);
    assert!(result
        .measured
        .unwrap()
        .failure
        .unwrap()
        .contains("cannot start"));
    assert_eq!(log.progress, 2);
}

#[test]
fn the_child_arguments_name_the_same_job() {
    let b = registry::find("threadring").unwrap();
    let mut params = Params::small(b.params);
    params.set("n", 7.0).unwrap();
    params.set("r", 0.1 + 0.2).unwrap();
    let job = Job {
        benchmark: b,
        params: &params,
        variant: b.variant(Model::Actor).unwrap(),
        threads: 2,
    };
    let plan = Plan {
        benchmarks: vec![(b, params.clone())],
        models: vec![Model::Actor],
        threads: vec![2],
        iterations: 5,
        warmup: 3,
        min_time: std::time::Duration::from_millis(250),
        isolation: Isolation::InProcess,
        rounds: 1,
    };
    let mut argv = vec!["motet-savina".to_string()];
    argv.extend(child_args(&job, &plan));
    let Sub::Cell(args) = Cli::try_parse_from(argv).unwrap().command else {
        panic!("not a cell command");
    };
    assert_eq!((args.threads, args.iterations, args.warmup), (2, 5, 3));
    assert_eq!(args.min_time, std::time::Duration::from_millis(250));
    let (benchmark, model, back) = resolve(&args).unwrap();
    assert!(std::ptr::eq(benchmark, b));
    assert_eq!(model, Model::Actor);
    assert_eq!(back, params, "parameters survive the round trip exactly");
}
