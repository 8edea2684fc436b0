//! The Savina benchmark programs, one module per benchmark (SPEC.md section 3).
//!
//! Each module declares its [`Benchmark`](crate::bench::Benchmark) as `BENCHMARK`: SPEC.md's short
//! name and id, its parameters with Savina's defaults and the "small" size, and its variants, one per
//! model. A module also holds what every variant shares: the decoded parameters (`Config`, declared
//! with its parameter table by [`params!`](crate::params!)) and the validation of the result
//! (`check`), so that every model is checked identically.
//!
//! Each model lives in a submodule of the same name (`actor`, `boc`, `process`, `reactor`,
//! `floor`, `peers`), from which the `variants!` macro derives the table. A variant's `prepare` decodes the
//! parameters, makes what every iteration reads (untimed), and hands it with the iteration's
//! function to the frame of its model: `motet_support::prepare` (actors, BoC),
//! `process_support::prepare`, `reactor_support::prepare`, [`crate::floor`]'s `program`, and
//! the peers' `tokio_program` and `actix_program`. The unit tests share `testing`.

/// Declares a benchmark's `variants` function (the [`Benchmark::variants`](crate::bench::Benchmark)
/// table) from the names of its model modules, in listing order.
///
/// Each module follows one convention, so that its entry can be derived from its name:
/// `actor`, `boc`, `process` and `floor` export `prepare(params, threads)`; `reactor` exports
/// `prepare(params, threads, model)` and gives two variants, `reactor` (the readiness scheduler)
/// and `reactor-level` (LF's level scheduler); `peers` exports `variants()`, the actix, ractor
/// and kameo programs, and is listed only with the `peers` feature. `floor_loop` is a module of
/// its own, the plain-loop program of model `floor-loop`. `actor_tuned`, `boc_tuned`,
/// `process_tuned` and `floor_tuned` are `prepare_tuned` in `actor`, `boc`, `process` and
/// `floor`: the same benchmark with the deviations named.
///
/// An entry may name its program's deviations from SPEC.md in brackets (names from
/// [`crate::deviation::ALL`]; a tuned entry must), and say `(own_protocol)` where its protocol
/// differs from the actor program's by design: `variants!(actor ["init-message"], boc
/// (own_protocol), actor_tuned ["batch"], floor)`.
macro_rules! variants {
    (@entries actor) => {
        [$crate::bench::Variant::new($crate::bench::Model::Actor, actor::prepare)]
    };
    (@entries actor_tuned) => {
        [$crate::bench::Variant::new($crate::bench::Model::ActorTuned, actor::prepare_tuned)]
    };
    (@entries boc) => {
        [$crate::bench::Variant::new($crate::bench::Model::Boc, boc::prepare)]
    };
    (@entries boc_tuned) => {
        [$crate::bench::Variant::new($crate::bench::Model::BocTuned, boc::prepare_tuned)]
    };
    (@entries process) => {
        [$crate::bench::Variant::new($crate::bench::Model::Process, process::prepare)]
    };
    (@entries process_tuned) => {
        [$crate::bench::Variant::new($crate::bench::Model::ProcessTuned, process::prepare_tuned)]
    };
    (@entries floor) => {
        [$crate::bench::Variant::new($crate::bench::Model::Floor, floor::prepare)]
    };
    (@entries floor_tuned) => {
        [$crate::bench::Variant::new($crate::bench::Model::FloorTuned, floor::prepare_tuned)]
    };
    (@entries floor_loop) => {
        [$crate::bench::Variant::new($crate::bench::Model::FloorLoop, floor_loop::prepare)]
    };
    (@entries reactor) => {
        [
            $crate::bench::Variant::new($crate::bench::Model::Reactor, |params, threads| {
                reactor::prepare(params, threads, $crate::bench::Model::Reactor)
            }),
            $crate::bench::Variant::new($crate::bench::Model::ReactorLevel, |params, threads| {
                reactor::prepare(params, threads, $crate::bench::Model::ReactorLevel)
            }),
        ]
    };
    (@entries peers) => {{
        #[cfg(feature = "peers")]
        let peers = peers::variants();
        #[cfg(not(feature = "peers"))]
        let peers = Vec::<$crate::bench::Variant>::new();
        peers
    }};
    (@own) => {
        false
    };
    (@own own_protocol) => {
        true
    };
    ($($module:ident $([$($deviation:literal),* $(,)?])? $(($own:ident))?),+ $(,)?) => {
        /// The implementations, in listing order.
        fn variants() -> Vec<$crate::bench::Variant> {
            let mut variants = Vec::new();
            $(variants.extend(variants!(@entries $module).into_iter().map(|v| {
                v.with_deviations(&[$($($deviation),*)?])
                    .with_own_protocol(variants!(@own $($own)?))
            }));)+
            variants
        }
    };
}

pub mod actorcreation;
pub mod apsp;
pub mod astar;
pub mod banking;
pub mod barber;
pub mod big;
pub mod bitonicsort;
pub mod bndbuffer;
pub mod chameneos;
pub mod cigsmok;
pub mod concdict;
pub mod concsll;
pub mod count;
pub mod facloc;
pub mod fib;
pub mod filterbank;
pub mod fjcreate;
pub mod fjthrput;
pub mod logmap;
pub mod mailbox;
pub mod mixedload;
pub mod nqueenk;
pub mod philosopher;
pub mod pingpong;
pub mod piprecision;
pub mod quicksort;
pub mod radixsort;
pub mod reasonablebanking;
pub mod recmatmul;
pub mod sieve;
pub mod sor;
pub mod threadring;
pub mod trapezoid;
pub mod uct;

use crate::params::{ParamSpec, Params};

mod boc_driver;
mod busy_wait;
mod request_actors;
mod request_workers;
#[cfg(test)]
mod testing;

/// `-w`: the worker actors of Savina's parallelism benchmarks (astar, nqueenk, piprecision,
/// recmatmul), 20 at both sizes.
pub(crate) const WORKERS: ParamSpec = ParamSpec {
    name: "w",
    default: 20.0,
    small: 20.0,
    help: "worker actors",
};

/// Decodes [`WORKERS`] as astar, nqueenk and recmatmul take it: at least 1, more than 2^20 taken
/// as 2^20.
pub(crate) fn workers(params: &Params, name: &str) -> Result<usize, String> {
    Ok(params.integer(name, 1)?.min(1 << 20) as usize)
}

/// `-p`: the message priorities of Savina's priority-mailbox variants (astar, nqueenk,
/// recmatmul), `default` at both sizes. Accepted so that Savina's command lines run, and unused.
pub(crate) const fn priorities(default: f64) -> ParamSpec {
    ParamSpec {
        name: "p",
        default,
        small: default,
        help:
            "message priorities (used only by Savina's priority-mailbox variant; accepted, unused)",
    }
}

/// The argument Savina's fork-join benchmarks pass to [`perform_computation`].
pub(crate) const FJ_THETA: f64 = 37.2;

/// Savina's fork-join work unit: `sin(theta)²`, which must be positive.
///
/// Both fjthrput and fjcreate do this once per message. `theta` goes through
/// [`std::hint::black_box`] so that the compiler cannot fold the computation away, and the result is
/// checked as Savina does ("throws if the result is ≤ 0").
///
/// # Panics
/// If the result is not positive (Savina throws; the harness reports the panic as a failed run).
#[inline]
pub(crate) fn perform_computation(theta: f64) -> f64 {
    let sint = std::hint::black_box(theta).sin();
    let res = sint * sint;
    assert!(
        res > 0.0,
        "fork-join computation: sin({theta})^2 = {res} is not positive"
    );
    res
}

#[cfg(test)]
mod tests {
    use super::testing::{self, BOC};
    use super::{chameneos, count, fjcreate, fjthrput, perform_computation, pingpong, FJ_THETA};
    use crate::bench::Benchmark;

    type Sets = &'static [(&'static str, f64)];

    /// The BoC versions of the micro benchmarks: two iterations on one prepared program, on one
    /// and on two workers, at a reduced size (where each gives the expected result) and at an edge
    /// size.
    #[test]
    fn micro_benchmarks_boc_validate() {
        let cases: [(&Benchmark, Sets, u64, Sets); 5] = [
            (
                &pingpong::BENCHMARK,
                &[("n", 1_000.0)],
                1_000,
                &[("n", 1.0)],
            ),
            (&count::BENCHMARK, &[("n", 1_000.0)], 1_000, &[("n", 0.0)]),
            (
                &fjthrput::BENCHMARK,
                &[("n", 50.0), ("a", 7.0)],
                350,
                &[("n", 1.0), ("a", 1.0)],
            ),
            (&fjcreate::BENCHMARK, &[("n", 500.0)], 500, &[("n", 0.0)]),
            (
                &chameneos::BENCHMARK,
                &[("c", 7.0), ("m", 1_000.0)],
                2_000,
                &[("c", 2.0), ("m", 0.0)],
            ),
        ];
        for (bench, sets, result, edge) in cases {
            testing::expect_result(bench, BOC, sets, serde_json::json!(result));
            testing::boc_validates(bench, edge);
        }
    }

    #[test]
    fn fork_join_work_is_positive() {
        let r = perform_computation(FJ_THETA);
        assert!(r > 0.0 && r <= 1.0);
    }

    #[test]
    #[should_panic(expected = "not positive")]
    fn fork_join_work_rejects_zero() {
        perform_computation(0.0);
    }
}
