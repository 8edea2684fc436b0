//! The reactor programs that create reactors while they run (mutations): Fork Join (actor
//! creation), Fibonacci, Quicksort and Unbalanced Cobwebbed Tree. Each validates on both schedulers and on 1, 2 and 8 workers, gives
//! the floor's result, reports the reactors its mutations created, and gives the same result and
//! figures on every run.

mod common;

use motet_savina::bench::Model;

/// A benchmark, a reduced size, and the reactors the mutations create at that size.
type Case = (&'static str, &'static [(&'static str, f64)], u64);

const CASES: &[Case] = &[
    ("fjcreate", &[("n", 300.0)], 300),
    ("fjcreate", &[("n", 1.0)], 1),
    ("fjcreate", &[("n", 0.0)], 0),
    // fib(12) = 144: a tree of 2 * 144 - 1 nodes, all but the root created.
    ("fib", &[("n", 12.0)], 2 * 144 - 2),
    ("fib", &[("n", 2.0)], 0),
    ("fib", &[("n", 3.0)], 2),
];

#[test]
fn mutating_reactor_programs_validate_match_the_floor_and_count_their_reactors() {
    for &(name, sets, created) in CASES {
        let params = common::params(name, sets);
        let floor = common::floor_result(name, &params);
        let mut first = None;
        for model in [Model::Reactor, Model::ReactorLevel] {
            for threads in [1, 2, 8] {
                for (i, (result, m)) in common::runs(name, model, threads, &params, 3)
                    .into_iter()
                    .enumerate()
                {
                    let m = m.unwrap_or_else(|| panic!("{name} {model}: no metrics"));
                    assert_eq!(result, floor, "{name} {sets:?} {model} t={threads} run {i}");
                    assert_eq!(m.reactors_created, created, "{name} {sets:?}");
                    match &first {
                        None => first = Some(m),
                        Some(f) => assert_eq!(&m, f, "{name} {sets:?} {model} t={threads}"),
                    }
                }
            }
        }
    }
}

/// Quicksort and Unbalanced Cobwebbed Tree, whose trees depend on the data: each validates on
/// both schedulers and on 1 and 2 workers, gives the floor's result, creates every sorter but the
/// root (every node but the Root), and gives the same figures on every run.
#[test]
fn tree_programs_create_one_reactor_per_actor_of_the_tree() {
    let cases: [(&str, &[(&str, f64)]); 7] = [
        ("quicksort", &[("n", 20_000.0), ("t", 500.0)]),
        ("quicksort", &[("n", 1.0), ("t", 1.0)]),
        ("quicksort", &[("n", 3_000.0), ("m", 10.0), ("t", 2.0)]),
        ("quicksort", &[("n", 100.0), ("t", 2_048.0)]),
        ("uct", &[("nodes", 300.0)]),
        (
            "uct",
            &[("nodes", 2_000.0), ("binomial", 3.0), ("urgent", 20.0)],
        ),
        ("uct", &[("nodes", 5.0)]),
    ];
    for (name, sets) in cases {
        let params = common::params(name, sets);
        let floor = common::floor_result(name, &params);
        // Every actor of the tree but its root is created while the program runs.
        let actors = match name {
            "quicksort" => floor["sorters"].as_u64().unwrap(),
            _ => floor.as_u64().unwrap(),
        };
        let mut first = None;
        for model in [Model::Reactor, Model::ReactorLevel] {
            for threads in [1, 2] {
                for (i, (result, m)) in common::runs(name, model, threads, &params, 2)
                    .into_iter()
                    .enumerate()
                {
                    let m = m.unwrap_or_else(|| panic!("{name} {model}: no metrics"));
                    let run = format!("{name} {sets:?} {model} t={threads} run {i}");
                    assert_eq!(result, floor, "{run}");
                    assert_eq!(m.reactors_created, actors - 1, "{run}");
                    match &first {
                        None => first = Some(m),
                        Some(f) => assert_eq!(&m, f, "{run}"),
                    }
                }
            }
        }
    }
}
