//! Every `process` variant validates on one and on two workers, several iterations in a row on the
//! same prepared program, gives the floor's result, and handles odd sizes; the process versions
//! cover Effpi's six benchmarks and Big.

use std::sync::Mutex;

mod common;

use motet_savina::bench::Model;
use motet_savina::params::Params;
use motet_savina::registry;

/// The benchmarks with a process version.
const PROCESS_BENCHMARKS: [&str; 7] = [
    "pingpong",
    "count",
    "fjthrput",
    "fjcreate",
    "threadring",
    "chameneos",
    "big",
];

/// One program at a time: fjcreate counts its completions in statics (in every motet version), so
/// two of its runs must not overlap.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `model` of `name` at `params` on `threads` workers for `iterations` iterations; every one
/// must validate. Returns the last result.
fn run(
    name: &str,
    model: Model,
    threads: usize,
    params: &Params,
    iterations: usize,
) -> serde_json::Value {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut runs = common::runs(name, model, threads, params, iterations);
    runs.pop().expect("at least one iteration").0
}

#[test]
fn the_process_versions_are_registered() {
    let with_process: Vec<&str> = registry::all()
        .iter()
        .filter(|b| b.variant(Model::Process).is_some())
        .map(|b| b.name)
        .collect();
    for name in PROCESS_BENCHMARKS {
        assert!(
            with_process.contains(&name),
            "{name} has no process version"
        );
    }
    assert!(registry::models().contains(&Model::Process));
}

#[test]
fn every_process_version_validates_with_the_floors_result() {
    for name in PROCESS_BENCHMARKS {
        let params = common::params(name, &[]);
        let floor = run(name, Model::Floor, 1, &params, 1);
        for threads in [1, 2] {
            let result = run(name, Model::Process, threads, &params, 3);
            assert_eq!(result, floor, "{name} process t={threads}");
        }
    }
}

/// The tuned process programs (count's Counter and chameneos' Mall draining their channels in
/// bulk) give the floor's result too, at the default size and at odd ones.
#[test]
fn the_tuned_process_versions_validate_with_the_floors_result() {
    for (name, sets) in [
        ("count", &[][..]),
        ("count", &[("n", 0.0)][..]),
        ("chameneos", &[][..]),
        ("chameneos", &[("c", 3.0), ("m", 101.0)][..]),
    ] {
        let params = common::params(name, sets);
        let floor = run(name, Model::Floor, 1, &params, 1);
        for threads in [1, 2] {
            let result = run(name, Model::ProcessTuned, threads, &params, 2);
            assert_eq!(result, floor, "{name} {params} process-tuned t={threads}");
        }
    }
}

#[test]
fn process_versions_validate_odd_sizes() {
    let cases: [(&str, &[(&str, f64)]); 12] = [
        ("pingpong", &[("n", 1.0)]),
        ("pingpong", &[("n", 50.0), ("p", 101.0)]),
        ("count", &[("n", 0.0)]),
        ("count", &[("n", 12_345.0)]),
        ("fjthrput", &[("n", 7.0), ("a", 1.0)]),
        ("fjthrput", &[("n", 3.0), ("a", 2_000.0)]),
        ("fjcreate", &[("n", 0.0)]),
        ("threadring", &[("n", 1.0), ("r", 5.0)]),
        ("threadring", &[("n", 7.0), ("r", 1_000.0)]),
        ("chameneos", &[("c", 3.0), ("m", 101.0)]),
        ("chameneos", &[("c", 2_000.0), ("m", 1_000.0)]),
        ("big", &[("n", 10.0), ("w", 1.0)]),
    ];
    for (name, sets) in cases {
        let params = common::params(name, sets);
        let floor = run(name, Model::Floor, 1, &params, 1);
        for threads in [1, 2] {
            assert_eq!(
                run(name, Model::Process, threads, &params, 2),
                floor,
                "{name} {params} t={threads}"
            );
        }
    }
}

#[test]
fn bad_sizes_fail_in_prepare() {
    for (name, p, v) in [
        ("pingpong", "p", 0.0),
        ("threadring", "n", 0.0),
        ("chameneos", "c", 1.0),
        ("fjthrput", "a", 0.0),
    ] {
        let err = common::rejected(name, Model::Process, &common::params(name, &[(p, v)]));
        assert!(err.contains(&format!("`{p}`")), "{err}");
    }
}
