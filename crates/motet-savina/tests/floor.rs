//! Every benchmark's sequential programs (`floor`, `floor-loop`, `floor-tuned`) validate at the
//! small size, and the floor rejects bad sizes cleanly.

mod common;

use motet_savina::bench::Model;
use motet_savina::registry;

#[test]
fn every_floor_variant_validates_at_the_small_size() {
    for b in registry::all() {
        let mut ran = 0;
        for model in [Model::Floor, Model::FloorLoop, Model::FloorTuned] {
            if b.variant(model).is_some() {
                common::runs(b.name, model, 1, &common::params(b.name, &[]), 2);
                ran += 1;
            }
        }
        assert!(ran > 0, "{} has no sequential program", b.name);
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
        let floor = common::floor_result(name, &common::params(name, &[]));
        assert_eq!(floor, value, "{name}");
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
        common::floor_result(name, &common::params(name, sets));
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
        let err = common::rejected(name, Model::Floor, &common::params(name, &[(p, v)]));
        assert!(err.contains(&format!("`{p}`")), "{err}");
    }
}
