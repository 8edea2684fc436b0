//! The reactor programs: each validates with its benchmark's check on both schedulers and on one
//! and two workers, gives the floor's result, reports LF's Table 1 figures, and is deterministic:
//! the same result and the same figures (tags, reactions executed, ports set, actions scheduled)
//! on every run, scheduler and worker count.

mod common;

use motet_savina::bench::{Model, ReactorMetrics};

/// The micro benchmarks that have reactor programs.
const REACTOR_BENCHMARKS: [&str; 6] = [
    "pingpong",
    "count",
    "fjthrput",
    "threadring",
    "chameneos",
    "big",
];

/// Runs `model`'s variant of `name` on `threads` workers with `sets` over the small sizes, `runs`
/// times on one prepared program (see [`common::runs`]); returns the result and the metrics of
/// each.
fn run(
    name: &str,
    model: Model,
    threads: usize,
    sets: &[(&str, f64)],
    runs: usize,
) -> Vec<(serde_json::Value, ReactorMetrics)> {
    common::runs(name, model, threads, &common::params(name, sets), runs)
        .into_iter()
        .map(|(result, metrics)| {
            (
                result,
                metrics.unwrap_or_else(|| panic!("{name} {model}: no metrics")),
            )
        })
        .collect()
}

fn floor_result(name: &str, sets: &[(&str, f64)]) -> serde_json::Value {
    common::floor_result(name, &common::params(name, sets))
}

/// The programs whose reactors search shared state as their actors do (astar: Savina's shared
/// graph, written by the workers of a tag in parallel), so that on several workers their result
/// depends on timing: they are checked for validation only (see
/// [`shared_state_reactor_programs_validate`]).
const SHARED_STATE: &[&str] = &["astar"];

#[test]
fn every_reactor_program_validates_and_matches_the_floor() {
    for name in REACTOR_BENCHMARKS {
        let floor = floor_result(name, &[]);
        for model in [Model::Reactor, Model::ReactorLevel] {
            for threads in [1, 2] {
                let (result, m) = run(name, model, threads, &[], 1).remove(0);
                assert_eq!(result, floor, "{name} {model} t={threads}");
                assert!(
                    m.reactors >= 2 && m.reactions >= m.reactors,
                    "{name}: {m:?}"
                );
                assert!(
                    m.tags > 0 && m.reactions_executed >= m.tags,
                    "{name}: {m:?}"
                );
                assert_eq!(
                    m.ns_per_reaction, None,
                    "set by the harness, not the program"
                );
            }
        }
    }
}

/// LF's Table 1 shapes: one tag per round trip in pingpong (3 reactions each), one per increment
/// in count, one per turn of the ring in threadring, one per message round in fjthrput.
#[test]
fn the_figures_follow_lfs_designs() {
    let (_, m) = run("pingpong", Model::Reactor, 1, &[("n", 1000.0)], 1).remove(0);
    assert_eq!((m.tags, m.reactions_executed), (1002, 3001), "{m:?}");
    let (_, m) = run("count", Model::Reactor, 1, &[("n", 1000.0)], 1).remove(0);
    assert_eq!((m.tags, m.reactions_executed), (1003, 2004), "{m:?}");
    let (_, m) = run(
        "threadring",
        Model::Reactor,
        1,
        &[("n", 10.0), ("r", 1000.0)],
        1,
    )
    .remove(0);
    assert_eq!(m.tags, 102, "{m:?}");
    let (_, m) = run(
        "fjthrput",
        Model::Reactor,
        1,
        &[("n", 100.0), ("a", 8.0)],
        1,
    )
    .remove(0);
    assert_eq!((m.tags, m.reactions_executed), (102, 100 * 9 + 1), "{m:?}");
}

#[test]
fn reactor_programs_validate_at_odd_sizes() {
    let cases: [(&str, &[(&str, f64)]); 8] = [
        ("threadring", &[("n", 7.0), ("r", 1000.0)]),
        ("threadring", &[("n", 1.0), ("r", 5.0)]),
        ("threadring", &[("n", 5.0), ("r", 0.0)]),
        ("chameneos", &[("c", 3.0), ("m", 101.0)]),
        ("chameneos", &[("c", 2.0), ("m", 0.0)]),
        ("big", &[("n", 10.0), ("w", 1.0)]),
        ("big", &[("n", 0.0), ("w", 4.0)]),
        ("count", &[("n", 0.0)]),
    ];
    for (name, sets) in cases {
        let floor = floor_result(name, sets);
        for model in [Model::Reactor, Model::ReactorLevel] {
            for threads in [1, 2] {
                let (result, _) = run(name, model, threads, sets, 1).remove(0);
                assert_eq!(result, floor, "{name} {sets:?} {model} t={threads}");
            }
        }
    }
}

#[test]
fn reactor_programs_are_deterministic_across_runs_schedulers_and_workers() {
    let cases: [(&str, &[(&str, f64)]); 6] = [
        ("pingpong", &[("n", 300.0)]),
        ("count", &[("n", 300.0)]),
        ("fjthrput", &[("n", 50.0), ("a", 12.0)]),
        ("threadring", &[("n", 13.0), ("r", 500.0)]),
        ("chameneos", &[("c", 11.0), ("m", 400.0)]),
        ("big", &[("n", 40.0), ("w", 12.0)]),
    ];
    for (name, sets) in cases {
        let (first, first_m) = run(name, Model::Reactor, 1, sets, 1).remove(0);
        for model in [Model::Reactor, Model::ReactorLevel] {
            for threads in [1, 2, 8] {
                for (i, (result, m)) in run(name, model, threads, sets, 5).into_iter().enumerate() {
                    assert_eq!(result, first, "{name} {model} t={threads} run {i}");
                    assert_eq!(m, first_m, "{name} {model} t={threads} run {i}");
                }
            }
        }
    }
}

/// The concurrency and parallelism benchmarks that have reactor programs, each at a reduced size.
const REACTOR_APPS: &[(&str, &[(&str, f64)])] = &[
    ("trapezoid", &[("n", 20_000.0), ("w", 7.0)]),
    ("piprecision", &[("w", 5.0), ("p", 300.0)]),
    ("radixsort", &[("n", 500.0), ("m", 1024.0)]),
    ("filterbank", &[("col", 8.0), ("sim", 300.0), ("chan", 3.0)]),
    ("banking", &[("a", 40.0), ("n", 600.0)]),
    ("logmap", &[("t", 300.0), ("s", 6.0)]),
    ("nqueenk", &[("w", 5.0), ("n", 7.0), ("t", 3.0)]),
    ("recmatmul", &[("w", 5.0), ("n", 64.0), ("t", 256.0)]),
    ("apsp", &[("n", 24.0), ("b", 6.0), ("w", 10.0)]),
    ("concdict", &[("e", 6.0), ("m", 200.0)]),
    ("concsll", &[("e", 6.0), ("m", 200.0)]),
    (
        "bndbuffer",
        &[
            ("bb", 12.0),
            ("np", 5.0),
            ("nc", 4.0),
            ("ipp", 20.0),
            ("pc", 2.0),
            ("cc", 2.0),
        ],
    ),
    ("philosopher", &[("n", 7.0), ("m", 50.0)]),
    (
        "barber",
        &[("n", 60.0), ("w", 4.0), ("pr", 50.0), ("hr", 80.0)],
    ),
    ("cigsmok", &[("r", 100.0), ("s", 9.0)]),
    ("astar", &[("w", 5.0), ("g", 12.0)]),
    ("bitonicsort", &[("n", 128.0)]),
];

/// The programs whose result holds a figure that depends on the order of requests: the reactor
/// program's figure is fixed by its tags, but differs from the floor's.
const SCHEDULE_DEPENDENT: &[(&str, &str)] = &[("philosopher", "meals"), ("barber", "haircuts")];

/// Each program validates on both schedulers and on one and two workers, gives the floor's result,
/// and on two workers gives the same result and the same figures on every run.
#[test]
fn application_reactor_programs_match_the_floor_and_are_deterministic() {
    for &(name, sets) in REACTOR_APPS {
        if SHARED_STATE.contains(&name) {
            continue;
        }
        // A result that holds a figure depending on the order of requests (philosopher's denials,
        // barber's attempts) is compared with the floor's on its fixed figure only.
        let floor = floor_result(name, sets);
        let (first, first_m) = run(name, Model::Reactor, 1, sets, 1).remove(0);
        let fixed = SCHEDULE_DEPENDENT.iter().find(|x| x.0 == name);
        let floor = if let Some(&(_, key)) = fixed {
            assert!(first[key].is_u64(), "{name}: {first}");
            assert_eq!(first[key], floor[key], "{name} reactor t=1");
            first.clone()
        } else {
            floor
        };
        assert_eq!(first, floor, "{name} reactor t=1");
        assert!(
            first_m.reactors >= 2 && first_m.tags > 0 && first_m.reactions_executed > 0,
            "{name}: {first_m:?}"
        );
        for model in [Model::Reactor, Model::ReactorLevel] {
            for (i, (result, m)) in run(name, model, 2, sets, 4).into_iter().enumerate() {
                assert_eq!(result, floor, "{name} {model} t=2 run {i}");
                assert_eq!(m, first_m, "{name} {model} t=2 run {i}");
            }
        }
        let (result, m) = run(name, Model::ReactorLevel, 1, sets, 1).remove(0);
        assert_eq!((result, m), (floor, first_m), "{name} reactor-level t=1");
    }
}

/// The reactor programs on shared state validate on both schedulers and on one and two workers;
/// on one worker every run gives the same result.
#[test]
fn shared_state_reactor_programs_validate() {
    for &(name, sets) in REACTOR_APPS {
        if !SHARED_STATE.contains(&name) {
            continue;
        }
        for model in [Model::Reactor, Model::ReactorLevel] {
            let one: Vec<_> = run(name, model, 1, sets, 3)
                .into_iter()
                .map(|r| r.0)
                .collect();
            assert!(
                one.iter().all(|r| *r == one[0]),
                "{name} {model} t=1: {one:?}"
            );
            run(name, model, 2, sets, 3);
        }
    }
}

/// Reactor records carry `reactors_created` (0: these programs are static), through the child
/// process that measures each cell; other models' records have no such key.
#[test]
fn reactor_records_say_how_many_reactors_were_created() {
    let dir = common::scratch("reactors-created");
    let (_, records) = common::run_writing_reports(
        common::binary().args([
            "run",
            "--bench",
            "pingpong",
            "--size",
            "n=100",
            "--model",
            "reactor,reactor-level,actor",
            "--threads",
            "1",
            "--iterations",
            "1",
            "--warmup",
            "0",
        ]),
        &dir,
        "out",
    );
    assert_eq!(records.len(), 3, "{records:?}");
    for r in &records {
        let model = r["model"].as_str().unwrap();
        assert_eq!(r["validated"], true, "{r}");
        if model.starts_with("reactor") {
            assert_eq!(r["reactors_created"], 0, "{r}");
        } else {
            assert!(r.get("reactors_created").is_none(), "{r}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
