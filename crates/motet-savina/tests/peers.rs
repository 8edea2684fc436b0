//! Every peer variant (actix, actix-one, ractor, kameo) of every benchmark validates at a tiny size, on one
//! and on two threads, several iterations in a row on the same prepared program.
#![cfg(feature = "peers")]

mod common;

use motet_savina::bench::Model;
use motet_savina::registry;

/// The peer models.
const PEERS: [Model; 4] = [Model::Actix, Model::ActixOne, Model::Ractor, Model::Kameo];

/// Tiny sizes, some chosen so that the checked value is not the trivial one (threadring's zero ping
/// lands on actor 7, chameneos has an odd number of creatures).
fn tiny(name: &str) -> &'static [(&'static str, f64)] {
    match name {
        "pingpong" => &[("n", 1000.0)],
        "count" => &[("n", 1000.0)],
        "fjthrput" => &[("n", 100.0), ("a", 6.0)],
        "fjcreate" => &[("n", 200.0)],
        "threadring" => &[("n", 10.0), ("r", 1007.0)],
        "chameneos" => &[("c", 11.0), ("m", 1000.0)],
        "big" => &[("n", 100.0), ("w", 12.0)],
        "actorcreation" => &[("n", 9.0)],
        "mailbox" => &[("s", 5.0), ("m", 1000.0)],
        // One factorization of the paper's number: the rings are what is tested here.
        "mixedload" => &[("r", 1.0), ("l", 5.0), ("t", 20.0), ("k", 1.0)],
        // Benchmarks added later run at their small size.
        _ => &[],
    }
}

#[test]
fn every_peer_variant_validates_on_one_and_two_threads() {
    for b in registry::all() {
        if PEERS.iter().all(|&m| b.variant(m).is_none()) {
            continue; // a benchmark without peer versions
        }
        let params = common::params(b.name, tiny(b.name));
        for model in PEERS {
            // Not every Savina benchmark has peer versions; the CAF paper's programs all do.
            let Some(variant) = b.variant(model) else {
                assert!(b.id != 0, "{} has no {model} variant", b.name);
                continue;
            };
            for threads in [1, 2] {
                common::runs(b.name, variant.model, threads, &params, 3);
            }
        }
    }
}

#[test]
fn peer_variants_reject_bad_sizes() {
    let params = common::params("pingpong", &[("n", 0.0)]);
    for model in PEERS {
        common::rejected("pingpong", model, &params);
    }
}

#[test]
fn peer_pingpong_runs_one_pair_only() {
    let params = common::params("pingpong", &[("p", 2.0)]);
    for model in PEERS {
        let err = common::rejected("pingpong", model, &params);
        assert!(err.contains("`p`"), "{model}: {err}");
    }
}
