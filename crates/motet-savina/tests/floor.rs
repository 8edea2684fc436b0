//! Every benchmark's sequential floor validates at the small size, and rejects bad sizes cleanly.

use motet_savina::bench::Model;
use motet_savina::params::Params;
use motet_savina::registry;

#[test]
fn every_floor_variant_validates_at_the_small_size() {
    for b in registry::all() {
        let variant = b
            .variant(Model::Floor)
            .expect("every benchmark has a floor");
        let params = Params::small(b.params);
        let mut program = (variant.prepare)(&params, 1).expect("small sizes are valid");
        for _ in 0..2 {
            program.setup();
            let outcome = program.run();
            assert_eq!(outcome.check, Ok(()), "{} ({params})", b.name);
            assert!(!outcome.result.is_null(), "{} has no result", b.name);
        }
    }
}

#[test]
fn floor_results_are_the_spec_values() {
    let expect = [
        ("pingpong", serde_json::json!(4000)),
        ("count", serde_json::json!(100_000)),
        ("fjthrput", serde_json::json!(60_000)),
        ("fjcreate", serde_json::json!(4000)),
        ("threadring", serde_json::json!(0)),
        ("chameneos", serde_json::json!(40_000)),
        ("big", serde_json::json!(120)),
    ];
    for (name, value) in expect {
        let b = registry::find(name).unwrap();
        let variant = b.variant(Model::Floor).unwrap();
        let mut program = (variant.prepare)(&Params::small(b.params), 1).unwrap();
        assert_eq!(program.run().result, value, "{name}");
    }
}

#[test]
fn floor_validates_odd_sizes() {
    let cases: [(&str, &[(&str, f64)]); 5] = [
        ("threadring", &[("n", 7.0), ("r", 1000.0)]),
        ("threadring", &[("n", 1.0), ("r", 5.0)]),
        ("chameneos", &[("c", 3.0), ("m", 101.0)]),
        ("big", &[("n", 10.0), ("w", 1.0)]),
        ("pingpong", &[("n", 1.0)]),
    ];
    for (name, sets) in cases {
        let b = registry::find(name).unwrap();
        let mut params = Params::small(b.params);
        for &(p, v) in sets {
            params.set(p, v).unwrap();
        }
        let mut program = (b.variant(Model::Floor).unwrap().prepare)(&params, 1).unwrap();
        assert_eq!(program.run().check, Ok(()), "{name} {params}");
    }
}

#[test]
fn bad_sizes_fail_in_prepare() {
    let cases = [
        ("pingpong", "n", 0.0),
        ("threadring", "n", 0.0),
        ("chameneos", "c", 1.0),
        ("fjthrput", "n", 2.5),
    ];
    for (name, p, v) in cases {
        let b = registry::find(name).unwrap();
        let mut params = Params::small(b.params);
        params.set(p, v).unwrap();
        let err = (b.variant(Model::Floor).unwrap().prepare)(&params, 1)
            .err()
            .unwrap_or_else(|| panic!("{name} accepted {p}={v}"));
        assert!(err.contains(&format!("`{p}`")), "{err}");
    }
}
