//! The ways a program may differ from SPEC.md, by name.
//!
//! Every record names its program's deviations (`"deviations"` in the JSON), so that a reader sees
//! what a figure measures. A default model's program (`actor`, `boc`, `process`, `reactor`,
//! `floor`) should have none: it runs SPEC.md's workload, kernel, message flow and parameters with
//! the runtime's default settings. A faster kernel or a per-benchmark setting runs only under a
//! `-tuned` model ([`Model::is_tuned`](crate::bench::Model::is_tuned)), and a test checks that no
//! other model names a deviation. The Savina README's deviations table explains each name in one
//! line, and a test keeps the table and [`ALL`] the same.
//!
//! A program whose protocol differs from the actor program's by design (BoC's multi-cown
//! behaviours, LF's reactions batched per tag) is not a deviation: its variant says
//! [`own_protocol`](crate::bench::Variant::own_protocol) instead.

/// One named deviation from SPEC.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deviation {
    /// Its name, as records and the README give it.
    pub name: &'static str,
    /// What kind of difference it is.
    pub kind: Kind,
    /// What the program does instead of what SPEC.md says, in one line.
    pub what: &'static str,
}

/// The kinds of deviation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A runtime setting chosen for the benchmark (a mailbox batch, a receive in bulk).
    Tuning,
    /// A faster sequential kernel or data structure than Savina's.
    Kernel,
    /// A different message flow: other messages, actors or order.
    Flow,
    /// Different input data or parameters.
    Params,
}

impl Kind {
    /// The kind's name in the README's table.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tuning => "tuning",
            Kind::Kernel => "kernel",
            Kind::Flow => "flow",
            Kind::Params => "params",
        }
    }
}

const fn d(name: &'static str, kind: Kind, what: &'static str) -> Deviation {
    Deviation { name, kind, what }
}

/// Every deviation a program may name, by benchmark then kind.
pub const ALL: &[Deviation] = &[
    // Runtime settings.
    d("batch", Kind::Tuning, "a mailbox batch chosen for the benchmark, not the runtime's default (mailbox's receiver u32::MAX, radixsort's and sieve's stages 1024, recmatmul's Master and workers 1, barber's factory 1, philosopher's Arbitrator 5)"),
    d("recv-many", Kind::Tuning, "the receiving process drains its channel in bulk with recv_many (count's Counter, chameneos' Mall) where SPEC.md takes one message at a time"),
    d("sharded-counter", Kind::Tuning, "completions counted on 16 cache-padded counters instead of sent as N messages (fjcreate)"),
    // Message flow.
    d("no-self-message", Kind::Flow, "pingpong's Ping sends the next ping straight from its Pong behaviour (2N+2 messages), as Verona's port does, where SPEC.md's Ping sends itself a Ping after each Pong (3N+1) (boc-tuned)"),
    d("driver-actor", Kind::Flow, "a driver actor or process sends the work (fjthrput) or spawns the workers (fjcreate) where SPEC.md's main thread does"),
    d("channels-at-spawn", Kind::Flow, "each process gets its neighbours' channels when spawned instead of in a message (threadring's Data, big's Neighbors)"),
    d("init-message", Kind::Flow, "one extra Init message per actor hands out a table of addresses (tuned concdict and banking)"),
    d("main-creates-actors", Kind::Flow, "the main thread creates the actors and hands them over where SPEC.md's Master creates them (concdict)"),
    d("customer-per-message", Kind::Flow, "barber's factory makes one customer per self-message where SPEC.md makes all N in one handler, so returns interleave with arrivals differently"),
    d("row-column-payload", Kind::Flow, "apsp's blocks send each neighbour only the row or column its next step reads, and update in place, where SPEC.md broadcasts whole blocks"),
    d("ledger-search", Kind::Flow, "astar's Master owns the search ledger and workers expand one level per item, where SPEC.md's workers search up to the threshold on a shared graph"),
    d("driver-decomposition", Kind::Flow, "one driver behaviour runs the whole recursive decomposition; only leaves and merges run in parallel, as the BoC paper's ports (boc-tuned fib and quicksort)"),
    d("meal-queued-early", Kind::Flow, "philosopher's next meal is queued before the last one ran (boc-tuned)"),
    // Kernels and data structures.
    d("vec-list", Kind::Kernel, "concsll's list is a sorted Vec scanned in 64-element blocks, with an O(1) Size, where SPEC.md walks a sorted linked list"),
    d("tiled-matmul", Kind::Kernel, "recmatmul's leaves multiply in 4x8 register tiles (AVX) with B packed where SPEC.md runs a plain i-j-k loop"),
    d("lanes-fir", Kind::Kernel, "filterbank's FIR dot product sums in 8 lanes where SPEC.md sums in index order"),
    d("cube-by-multiplication", Kind::Kernel, "trapezoid computes x³ as x*x*x where SPEC.md calls pow(x, 3)"),
    d("shift-division", Kind::Kernel, "piprecision divides by 16^k with a rounded shift and precomputes the powers of ten, where SPEC.md divides BigDecimals"),
    d("in-place-quicksort", Kind::Kernel, "quicksort partitions in place (Dutch national flag, a branch-free split) where SPEC.md filters into new lists"),
    d("simd-relax", Kind::Kernel, "apsp relaxes i32 distances with AVX2, two rows a pass, where SPEC.md uses long in a plain loop"),
    d("window-board", Kind::Kernel, "nqueenk checks a board with a 32-wide vectorised window and edits one board in place, where SPEC.md copies an int[] per trial and returns at the first conflict"),
    d("tuned-hash", Kind::Kernel, "concdict's map uses an integer hasher laid out for cache locality where SPEC.md uses a plain hash map"),
    d("private-random", Kind::Kernel, "busy-waits draw from a generator per actor where SPEC.md shares Math.random() (tuned barber and astar)"),
    // Data and parameters.
    d("lcg-requests", Kind::Params, "concdict's tuned workers draw with the LCG (LF's and CAF's choice) where Savina's Akka port uses java.util.Random"),
];

/// The heading of the Savina README's section that explains every deviation.
pub const README_SECTION: &str = "## Deviations from SPEC.md";

/// The deviation named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Deviation> {
    ALL.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::{find, ALL, README_SECTION};
    use crate::bench::Model;

    #[test]
    fn names_are_distinct_and_explained() {
        for (i, d) in ALL.iter().enumerate() {
            assert!(
                ALL[..i].iter().all(|e| e.name != d.name),
                "{} twice",
                d.name
            );
            assert!(!d.what.is_empty() && !d.what.contains('|'), "{}", d.name);
            assert_eq!(find(d.name), Some(d));
        }
    }

    /// Every name a variant gives is in [`ALL`], a tuned model names at least one, and every other
    /// model (the defaults and the peer crates) names none.
    #[test]
    fn variants_name_known_deviations() {
        for b in crate::registry::all() {
            for v in (b.variants)() {
                for name in v.deviations {
                    assert!(
                        find(name).is_some(),
                        "{} {}: unknown {name}",
                        b.name,
                        v.model
                    );
                }
                if v.model.is_tuned() {
                    assert!(
                        !v.deviations.is_empty(),
                        "{} {} names none",
                        b.name,
                        v.model
                    );
                } else {
                    assert!(
                        v.deviations.is_empty(),
                        "{} {}: an untuned model deviates ({:?}); run it as -tuned",
                        b.name,
                        v.model,
                        v.deviations
                    );
                }
                if matches!(
                    v.model,
                    Model::Actix | Model::ActixOne | Model::Ractor | Model::Kameo
                ) {
                    assert!(!v.own_protocol, "{} {}", b.name, v.model);
                }
            }
        }
    }

    /// The Savina README explains every deviation in its table (the section headed
    /// [`README_SECTION`]), and explains no other.
    #[test]
    fn the_readme_table_lists_every_deviation() {
        let readme = include_str!("../README.md");
        let start = readme
            .find(README_SECTION)
            .expect("the README has a deviations section");
        let section = &readme[start + README_SECTION.len()..];
        let section = &section[..section.find("\n## ").unwrap_or(section.len())];
        let rows: Vec<&str> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        for d in ALL {
            assert!(
                rows.contains(&d.name),
                "the README's deviations table lacks `{}`",
                d.name
            );
        }
        for name in &rows {
            assert!(find(name).is_some(), "the README explains unknown `{name}`");
        }
        assert_eq!(rows.len(), ALL.len(), "a deviation listed twice");
    }
}
