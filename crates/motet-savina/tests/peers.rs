//! Every peer variant (actix, ractor, kameo) of every benchmark validates at a tiny size, on one
//! and on two threads, several iterations in a row on the same prepared program.
#![cfg(feature = "peers")]

use motet_savina::bench::Model;
use motet_savina::params::Params;
use motet_savina::registry;

/// The peer models.
const PEERS: [Model; 3] = [Model::Actix, Model::Ractor, Model::Kameo];

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
        let mut params = Params::small(b.params);
        for &(p, v) in tiny(b.name) {
            params.set(p, v).unwrap();
        }
        for model in PEERS {
            // Not every Savina benchmark has peer versions; the CAF paper's programs all do.
            let Some(variant) = b.variant(model) else {
                assert!(b.id != 0, "{} has no {model} variant", b.name);
                continue;
            };
            for threads in [1, 2] {
                let mut program = (variant.prepare)(&params, threads)
                    .unwrap_or_else(|e| panic!("{} {model} t={threads}: {e}", b.name));
                for _ in 0..3 {
                    program.setup();
                    let outcome = program.run();
                    assert_eq!(
                        outcome.check,
                        Ok(()),
                        "{} {model} t={threads} ({params})",
                        b.name
                    );
                    assert!(
                        !outcome.result.is_null(),
                        "{} {model} has no result",
                        b.name
                    );
                }
            }
        }
    }
}

#[test]
fn peer_variants_reject_bad_sizes() {
    let b = registry::find("pingpong").unwrap();
    let mut params = Params::small(b.params);
    params.set("n", 0.0).unwrap();
    for model in PEERS {
        let variant = b.variant(model).unwrap();
        assert!(
            (variant.prepare)(&params, 1).is_err(),
            "{model} accepted n=0"
        );
    }
}
