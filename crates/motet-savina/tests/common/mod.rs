//! What the integration tests share: a benchmark's parameters at the small sizes, a variant's
//! prepared program run for some iterations with every outcome checked, and the binary with a
//! scratch folder for the files it writes.
//!
//! Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use motet_savina::bench::{Iteration, Model, ReactorMetrics};
use motet_savina::params::Params;
use motet_savina::registry;

/// The small sizes of benchmark `name` with `sets` applied.
///
/// # Panics
/// If there is no such benchmark or it has no such parameter.
pub fn params(name: &str, sets: &[(&str, f64)]) -> Params {
    let b = registry::find(name).unwrap_or_else(|| panic!("no benchmark {name}"));
    let mut params = Params::small(b.params);
    for &(p, v) in sets {
        params.set(p, v).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    params
}

/// `model`'s variant of `name` prepared at `params` on `threads` workers, or the error `prepare`
/// gives.
///
/// # Panics
/// If the benchmark has no such variant.
pub fn prepare(
    name: &str,
    model: Model,
    threads: usize,
    params: &Params,
) -> Result<Box<dyn Iteration>, String> {
    let b = registry::find(name).unwrap_or_else(|| panic!("no benchmark {name}"));
    // The tests' `floor` is the benchmark's sequential program: `floor-loop` where it has no
    // `floor`.
    let variant = b
        .variant(model)
        .or_else(|| (model == Model::Floor).then(|| b.variant(Model::FloorLoop))?)
        .unwrap_or_else(|| panic!("{name} has no {model} variant"));
    variant.build(params, threads)
}

/// Runs `iterations` iterations of `model`'s variant of `name` on one program prepared at
/// `params` on `threads` workers, asserts that each validates and has a result, and returns each
/// iteration's result and reactor figures.
///
/// # Panics
/// If the variant is missing, the parameters are rejected, or an iteration fails.
pub fn runs(
    name: &str,
    model: Model,
    threads: usize,
    params: &Params,
    iterations: usize,
) -> Vec<(serde_json::Value, Option<ReactorMetrics>)> {
    let mut program = prepare(name, model, threads, params)
        .unwrap_or_else(|e| panic!("{name} {model} t={threads} ({params}): {e}"));
    (0..iterations)
        .map(|i| {
            program.setup();
            let outcome = program.run();
            let outcome = program.validate(outcome);
            let run = format!("{name} {model} t={threads} ({params}) run {i}");
            assert_eq!(outcome.check, Ok(()), "{run}");
            assert!(!outcome.result.is_null(), "{run}: no result");
            (outcome.result, program.metrics())
        })
        .collect()
}

/// The floor's result for `name` at `params`, checked (see [`runs`]).
pub fn floor_result(name: &str, params: &Params) -> serde_json::Value {
    runs(name, Model::Floor, 1, params, 1).remove(0).0
}

/// The error `model`'s variant of `name` gives for `params`, which must be rejected.
pub fn rejected(name: &str, model: Model, params: &Params) -> String {
    prepare(name, model, 1, params)
        .err()
        .unwrap_or_else(|| panic!("{name} {model} accepted {params}"))
}

/// The `motet-savina` binary.
pub fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_motet-savina"))
}

/// A fresh folder for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("motet-savina-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `command` with `--json`, `--markdown` and `--plot` naming `stem.json`, `stem.md` and
/// `stem.svg` in `dir`, asserts that it succeeds, and returns its standard output and the records
/// of the JSON file.
pub fn run_writing_reports(
    command: &mut Command,
    dir: &Path,
    stem: &str,
) -> (String, Vec<serde_json::Value>) {
    let out = command
        .arg("--json")
        .arg(dir.join(format!("{stem}.json")))
        .arg("--markdown")
        .arg(dir.join(format!("{stem}.md")))
        .arg("--plot")
        .arg(dir.join(format!("{stem}.svg")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = std::fs::read_to_string(dir.join(format!("{stem}.json"))).unwrap();
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    (stdout, json.as_array().unwrap().clone())
}
