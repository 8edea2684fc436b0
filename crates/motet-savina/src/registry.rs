//! The benchmarks this binary has, in Savina's order.

use crate::bench::{Benchmark, Model};
use crate::benchmarks::{
    actorcreation, apsp, astar, banking, barber, big, bitonicsort, bndbuffer, chameneos, cigsmok,
    concdict, concsll, count, facloc, fib, filterbank, fjcreate, fjthrput, logmap, mailbox,
    mixedload, nqueenk, philosopher, pingpong, piprecision, quicksort, radixsort,
    reasonablebanking, recmatmul, sieve, sor, threadring, trapezoid, uct,
};

/// Every benchmark, by Savina id; extra programs (id 0) after the 30.
static BENCHMARKS: &[&Benchmark] = &[
    &pingpong::BENCHMARK,
    &count::BENCHMARK,
    &fjthrput::BENCHMARK,
    &fjcreate::BENCHMARK,
    &threadring::BENCHMARK,
    &chameneos::BENCHMARK,
    &big::BENCHMARK,
    &concdict::BENCHMARK,
    &concsll::BENCHMARK,
    &bndbuffer::BENCHMARK,
    &philosopher::BENCHMARK,
    &barber::BENCHMARK,
    &cigsmok::BENCHMARK,
    &logmap::BENCHMARK,
    &banking::BENCHMARK,
    &radixsort::BENCHMARK,
    &filterbank::BENCHMARK,
    &sieve::BENCHMARK,
    &uct::BENCHMARK,
    &facloc::BENCHMARK,
    &trapezoid::BENCHMARK,
    &piprecision::BENCHMARK,
    &recmatmul::BENCHMARK,
    &quicksort::BENCHMARK,
    &apsp::BENCHMARK,
    &sor::BENCHMARK,
    &astar::BENCHMARK,
    &nqueenk::BENCHMARK,
    &fib::BENCHMARK,
    &bitonicsort::BENCHMARK,
    // Beyond Savina: the CAF paper's benchmarks (sections 5.2 to 5.4).
    &actorcreation::BENCHMARK,
    &mailbox::BENCHMARK,
    &mixedload::BENCHMARK,
    // The BoC paper's ReasonableBanking (section 5.3).
    &reasonablebanking::BENCHMARK,
];

/// Every benchmark, by Savina id.
pub fn all() -> &'static [&'static Benchmark] {
    BENCHMARKS
}

/// The benchmark with SPEC.md's short name `name`.
pub fn find(name: &str) -> Option<&'static Benchmark> {
    all().iter().copied().find(|b| b.name == name)
}

/// The short names, by Savina id.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|b| b.name).collect()
}

/// The models that at least one benchmark has a variant for, in [`Model::ALL`] order.
pub fn models() -> Vec<Model> {
    Model::ALL
        .into_iter()
        .filter(|&m| all().iter().any(|b| b.variant(m).is_some()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{all, find, models};
    use crate::bench::Model;

    #[test]
    fn names_and_ids_are_unique_and_ordered() {
        let mut last_id = 0;
        for b in all() {
            if b.id != 0 {
                assert!(b.id > last_id, "{} is out of Savina's order", b.name);
                assert!(b.id <= 30, "{} has no Savina id", b.name);
                last_id = b.id;
            } else {
                last_id = u32::MAX; // extra programs come after Savina's 30
            }
            assert!(std::ptr::eq(find(b.name).unwrap(), *b));
        }
        assert!(find("nosuch").is_none());
    }

    #[test]
    fn every_benchmark_has_a_floor_and_valid_params() {
        assert!(models().contains(&Model::Floor));
        for b in all() {
            // The message flow on one thread, or, until that is written, the plain loop.
            assert!(
                b.variant(Model::Floor).is_some() || b.variant(Model::FloorLoop).is_some(),
                "{} has no floor",
                b.name
            );
            assert!(!b.params.is_empty());
            for p in b.params {
                assert!(
                    p.small <= p.default,
                    "{}: small {} > default",
                    b.name,
                    p.name
                );
            }
        }
    }
}
