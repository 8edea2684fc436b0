//! The sweep's arguments, presets, table and plot, and a small sweep run in process.

use clap::Parser;

use super::{preset, run, svg, Sweep, PRESETS};
use crate::bench::Model;
use crate::cli::{Cli, Command};
use crate::registry;
use crate::report::{test_setting, Setting};
use crate::runner::{Isolation, Quiet};

fn sweep_of(args: &[&str]) -> Result<Sweep, String> {
    let mut all = vec!["motet-savina", "sweep"];
    all.extend_from_slice(args);
    let cli = Cli::try_parse_from(all).map_err(|e| e.to_string())?;
    match cli.command {
        Command::Sweep(sweep) => sweep.sweep(),
        _ => Err("not a sweep".into()),
    }
}

fn setting() -> Setting {
    test_setting(None, "")
}

#[test]
fn the_presets_are_the_thesis_sweeps() {
    for p in PRESETS {
        let b = registry::find(p.benchmark).expect("a preset names a benchmark");
        assert!(
            b.params.iter().any(|s| s.name == p.param),
            "{}",
            p.benchmark
        );
        for (name, _) in p.fixed {
            assert!(b.params.iter().any(|s| s.name == *name), "{}", p.benchmark);
        }
        assert!(b.variant(Model::Process).is_some(), "{}", p.benchmark);
    }
    let largest = |name| {
        preset(name)
            .unwrap()
            .points
            .iter()
            .copied()
            .fold(0.0, f64::max)
    };
    assert_eq!(largest("chameneos"), 50_000.0);
    assert_eq!(largest("pingpong"), 100_000.0);
    assert_eq!(largest("fjthrput"), 100_000.0);
    assert_eq!(largest("fjcreate"), 100_000.0);
    assert!(preset("big").is_none());
}

#[test]
fn a_preset_sweep_resolves_with_its_fixed_parameters() {
    let s = sweep_of(&["chameneos"]).unwrap();
    assert_eq!(s.param, "c");
    assert_eq!(s.points.len(), 5);
    assert_eq!(s.points[4].1.to_string(), "c=50000 m=25000");
    assert_eq!(s.fixed(), "m=25000");
    // By default: every motet model chameneos has, and the floor; never a peer.
    for model in [Model::Actor, Model::Boc, Model::Process, Model::Floor] {
        assert!(s.models.contains(&model), "{model} missing: {:?}", s.models);
    }
    assert!(!s.models.iter().any(|m| matches!(
        m,
        Model::Actix | Model::ActixOne | Model::Ractor | Model::Kameo
    )));
    assert_eq!(s.models.last(), Some(&Model::Floor));
    assert_eq!(s.threads, [2]);
    assert_eq!((s.iterations, s.warmup), (5, 1));
    let s = sweep_of(&["pingpong", "--size", "n=7"]).unwrap();
    assert_eq!(
        s.points[1].1.to_string(),
        "n=7 p=10",
        "the user's --size wins"
    );
}

#[test]
fn any_parameter_sweeps_with_points() {
    let s = sweep_of(&[
        "big",
        "--param",
        "w",
        "--points",
        "2,20,1_000,20",
        "--model",
        "process",
        "--threads",
        "1,2",
        "--size",
        "small",
    ])
    .unwrap();
    let points: Vec<f64> = s.points.iter().map(|p| p.0).collect();
    assert_eq!(points, [2.0, 20.0, 1000.0]);
    assert_eq!(s.points[0].1.to_string(), "n=500 w=2");
    assert_eq!(s.models, [Model::Process]);
    assert_eq!(s.threads, [1, 2]);
}

#[test]
fn usage_errors_say_what_is_valid() {
    let err = sweep_of(&["nosuch"]).unwrap_err();
    assert!(err.contains("valid: pingpong"), "{err}");
    let err = sweep_of(&["big"]).unwrap_err();
    assert!(err.contains("--param"), "{err}");
    let err = sweep_of(&["big", "--param", "x", "--points", "1"]).unwrap_err();
    assert!(err.contains("valid: n, w"), "{err}");
    let err = sweep_of(&["big", "--param", "w"]).unwrap_err();
    assert!(err.contains("--points"), "{err}");
    let err = sweep_of(&["count", "--points", "0,10"]).unwrap_err();
    assert!(err.contains("positive"), "{err}");
    let err = sweep_of(&["count", "--points", "ten"]).unwrap_err();
    assert!(err.contains("not a number"), "{err}");
    let err = sweep_of(&["count", "--size", "q=1"]).unwrap_err();
    assert!(err.contains("unknown parameter `q`"), "{err}");
    assert!(sweep_of(&["count", "--iterations", "0"]).is_err());
    assert!(sweep_of(&["count", "--model", "erlang"]).is_err());
}

#[test]
fn a_small_sweep_runs_tabulates_and_plots() {
    let s = sweep_of(&[
        "threadring",
        "--points",
        "3,30",
        "--size",
        "r=500",
        "--model",
        "process,actor,floor",
        "--threads",
        "1",
        "--iterations",
        "2",
        "--warmup",
        "0",
    ])
    .unwrap();
    let result = run(&s, Isolation::InProcess, &mut Quiet);
    assert_eq!(result.failures, 0);
    assert_eq!(result.records.len(), 6);
    assert!(result.records.iter().all(|r| r.validated));
    let table = s.table(&result.records);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].contains("| n "), "{table}");
    assert!(lines[0].contains("actor (1) ms"), "{table}");
    assert!(lines[0].contains("process (1) ms"), "{table}");
    assert!(lines[0].contains("floor (1) ms"), "{table}");
    assert!(lines[0].contains("process/actor (1)"), "{table}");
    assert!(lines[2].starts_with("| 3 "), "{table}");
    assert!(lines[3].starts_with("| 30 "), "{table}");
    let plot = svg(&s, &result.records, &setting());
    assert!(plot.starts_with("<svg"));
    assert!(plot.trim_end().ends_with("</svg>"));
    for needle in [
        "threadring over n",
        "r=500",
        "process (1)",
        "actor (1)",
        "floor",
    ] {
        assert!(plot.contains(needle), "{needle} missing");
    }
}

#[test]
fn failed_points_are_marked_and_not_drawn() {
    let s = sweep_of(&["count", "--points", "10,100", "--model", "process"]).unwrap();
    let mut records: Vec<_> = s
        .points
        .iter()
        .map(|(_, params)| {
            let mut r = crate::report::test_record("count", Model::Process, 2, 1.0);
            r.params = params.clone();
            r
        })
        .collect();
    records[1].validated = false;
    let table = s.table(&records);
    assert!(table.contains("FAILED"), "{table}");
    assert!(!table.contains("process/actor"), "{table}");
    let plot = svg(&s, &records, &setting());
    assert!(plot.contains("process (2)"));
    let none = svg(&s, &[], &setting());
    assert!(none.contains("Nothing to draw"));
}
