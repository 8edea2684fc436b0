//! 2. Counting Actor (micro): one producer sends `n` increments to a counter.
//!
//! Flow (SPEC.md section 3.2): the main thread sends `Increment` to the Producer; in that one
//! handler the Producer sends N `Increment`s to the Counter, then `Retrieve(self)`; the Counter adds
//! 1 per `Increment` and on `Retrieve` replies `Result(count)` and exits; the Producer records the
//! result and exits. N + 3 messages; the benchmark stresses mailbox enqueue from one sender.
//!
//! Validation: the count returned equals N.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod boc;
mod floor;
mod process;
mod reactor;

use crate::bench::{Benchmark, Outcome};

/// Counting Actor (Savina 2).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "count",
    id: 2,
    title: "Counting Actor: one producer sends N increments to a counter",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`: increments; "small" is a tenth (SPEC.md gives no LF small size).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 1_000_000.0, small = 100_000.0, min = 0,
            help = "increments sent to the counter")]
        n: u64,
    }
}

variants!(
    actor,
    process,
    process_tuned["recv-many"],
    boc(own_protocol),
    reactor(own_protocol),
    floor,
    peers,
);

/// Validates a run: the Counter's reply `count` must equal `n`. The result is `count`.
pub(crate) fn check(n: u64, count: u64) -> Outcome {
    Outcome::expect_eq("count", n, count)
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn check_compares_the_count() {
        assert!(check(5, 5).check.is_ok());
        assert!(check(5, 4).check.is_err());
    }
}
