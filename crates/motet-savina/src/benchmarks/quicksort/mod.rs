//! 24. Quicksort (parallelism): a tree of sorter actors, created while it runs, sorts `n` values.
//!
//! Flow (SPEC.md section 3.24): the values, |next_long() mod M| from a [`PseudoRandom`] seeded with
//! S, are generated inside the timed iteration, as Savina does. A sorter gets `Sort(values)`: with
//! fewer than T values it sorts them sequentially and reports `Result(sorted, position)` to its
//! parent; otherwise it takes the middle element as pivot, creates a Left child with the values below
//! it and a Right child with those above (in input order), keeps the values equal to it, and reports
//! once both children have answered, concatenating left, equal and right. The root checks the
//! result. With the LCG the values are 16-bit, so the tree is deterministic: 1,939 sorters at the
//! defaults (970 leaves).
//!
//! Every default program (actor, BoC, floor) splits and sorts with Savina's kernel
//! ([`Kernel::Savina`]): filters into new lists, and a sequential sort that does the same. The BoC
//! program follows the actor program's flow, a cown per sorter and a behaviour per message.
//! `actor-tuned` and `floor-tuned` run the same flow with an in-place kernel
//! (`in-place-quicksort`), `boc-tuned` the BoC paper's decomposition in one driver behaviour
//! (`driver-decomposition`).
//!
//! Validation: the root's list has N values, is non-decreasing and has the input's sum
//! (32,768,134,304 at the defaults, where the tree must also have 1,939 sorters). The result is the
//! length and the number of sorters.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod boc;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::saturating_long;
use crate::random::PseudoRandom;

/// Quicksort (Savina 24).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "quicksort",
    id: 24,
    title: "Quicksort: a tree of sorter actors created while it runs",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n` values, `-m` bound, `-t` sequential threshold, `-s` seed; "small" sorts a tenth.
    const PARAMS: &[ParamSpec] = [n, m, t, seed];

    /// The decoded parameters, shared by every variant (`m` and `s` are checked first).
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(crate) struct Config {
        #[param("m", default = (1u64 << 60) as f64, small = (1u64 << 60) as f64, min = 1,
            help = "values are below this bound")]
        m: i64,
        #[param("s", default = 1_024.0, small = 1_024.0, parse = saturating_long(0),
            help = "seed of the generator")]
        seed: i64,
        #[param("n", default = 1_000_000.0, small = 100_000.0, min = 1, help = "values to sort")]
        n: usize,
        #[param("t", default = 2_048.0, small = 2_048.0, min = 1,
            help = "lists shorter than this are sorted sequentially")]
        t: usize,
    }
}

variants!(
    actor,
    actor_tuned["in-place-quicksort"],
    boc(own_protocol),
    boc_tuned["driver-decomposition"](own_protocol),
    floor,
    floor_tuned["in-place-quicksort"],
    reactor,
);

/// Savina's defaults, and SPEC.md's values for them: the input's sum and the sorters.
const DEFAULTS: Config = Config {
    n: 1_000_000,
    m: 1 << 60,
    t: 2_048,
    seed: 1_024,
};
const DEFAULT_SUM: i128 = 32_768_134_304;
const DEFAULT_SORTERS: u64 = 1_939;

impl Config {
    /// Savina's `randomlyInitArray`: the input, and its sum.
    pub(crate) fn generate(&self) -> (Vec<i64>, i128) {
        let mut rng = PseudoRandom::new(self.seed);
        let values: Vec<i64> = (0..self.n)
            .map(|_| (rng.next_long() % self.m).abs())
            .collect();
        let sum = values.iter().map(|&v| v as i128).sum();
        (values, sum)
    }
}

/// Which part of its parent's list a sorter sorts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    Left,
    Right,
    Root,
}

/// The sequential kernel a sorter runs: Savina's, or the in-place one of the tuned programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Savina's: every split filters the list into new lists (`filterLessThan`,
    /// `filterGreaterThan`, `filterEqualsTo`, each with room for the whole list), and the
    /// sequential sort (`quicksortSeq`) does the same recursively and concatenates into a new list.
    Savina,
    /// The tuned programs' (`in-place-quicksort`): a branch-free split and an in-place Dutch
    /// national flag sort.
    InPlace,
}

impl Kernel {
    /// A sorter's split of `values` (at least one value) around the element at `len / 2`, in
    /// Savina's order: the values below the pivot go to `child` as the Left part, then those above
    /// it as the Right part (each in input order); returns the values equal to it, which the
    /// sorter keeps.
    pub(crate) fn split(
        self,
        values: &[i64],
        mut child: impl FnMut(Vec<i64>, Position),
    ) -> Vec<i64> {
        let pivot = values[values.len() / 2];
        match self {
            Kernel::Savina => {
                child(filter(values, |v| v < pivot), Position::Left);
                child(filter(values, |v| v > pivot), Position::Right);
                filter(values, |v| v == pivot)
            }
            Kernel::InPlace => {
                let (less, equal, greater) = partition_branch_free(values);
                child(less, Position::Left);
                child(greater, Position::Right);
                equal
            }
        }
    }

    /// A leaf sorter's sequential sort.
    pub(crate) fn sort(self, mut values: Vec<i64>) -> Vec<i64> {
        match self {
            Kernel::Savina => quicksort_seq(&mut values),
            Kernel::InPlace => quicksort_in_place(&mut values),
        }
        values
    }
}

/// Savina's `filterLessThan`, `filterEqualsTo` and `filterGreaterThan`: the values that `keep`, in
/// input order, in a new list with room for all of `values` (Savina's `new ArrayList(dataLength)`).
fn filter(values: &[i64], keep: impl Fn(i64) -> bool) -> Vec<i64> {
    let mut kept = Vec::with_capacity(values.len());
    for &v in values {
        if keep(v) {
            kept.push(v);
        }
    }
    kept
}

/// Splits `values` around the element at `len / 2` with Savina's filters: the values below it and
/// above it, each in input order, and those equal to it.
pub(crate) fn partition(values: &[i64]) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let pivot = values[values.len() / 2];
    (
        filter(values, |v| v < pivot),
        filter(values, |v| v == pivot),
        filter(values, |v| v > pivot),
    )
}

/// Savina's `quicksortSeq`: sorts `values` by a recursive three-way partition around the middle
/// element into new lists (below, equal, above, each filtered in input order), concatenated into a
/// new list.
pub(crate) fn quicksort_seq(values: &mut Vec<i64>) {
    *values = savina_sort(std::mem::take(values));
}

/// `quicksortSeq` on an owned list: a list of fewer than 2 values is returned as it is.
fn savina_sort(data: Vec<i64>) -> Vec<i64> {
    if data.len() < 2 {
        return data;
    }
    let pivot = data[data.len() / 2];
    let left = savina_sort(filter(&data, |v| v < pivot));
    let equal = filter(&data, |v| v == pivot);
    let right = savina_sort(filter(&data, |v| v > pivot));
    let mut sorted = Vec::with_capacity(data.len());
    sorted.extend_from_slice(&left);
    sorted.extend_from_slice(&equal);
    sorted.extend_from_slice(&right);
    sorted
}

/// The tuned split (`in-place-quicksort`): the values below, equal to and above the element at
/// `len / 2`, below and above each in input order.
///
/// Branch-free: every value is written to both outputs and only the count of the side it belongs
/// to advances (the comparisons on random data defeat a branch predictor).
fn partition_branch_free(values: &[i64]) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let pivot = values[values.len() / 2];
    let mut less = Vec::with_capacity(values.len());
    let mut greater = Vec::with_capacity(values.len());
    let (mut below, mut above) = (0, 0);
    {
        let (l, g) = (less.spare_capacity_mut(), greater.spare_capacity_mut());
        for &v in values {
            // `below` and `above` count values already seen, so both stay below `values.len()`.
            l[below].write(v);
            g[above].write(v);
            below += usize::from(v < pivot);
            above += usize::from(v > pivot);
        }
    }
    // SAFETY: the first `below` (`above`) slots of `less` (`greater`) were written in the loop, each
    // with a value below (above) the pivot, and both counts are within the capacity.
    unsafe {
        less.set_len(below);
        greater.set_len(above);
    }
    let equal = vec![pivot; values.len() - below - above];
    (less, equal, greater)
}

/// The tuned sequential sort (`in-place-quicksort`): a recursive three-way partition around the
/// middle element in place, then the part below and the part above the pivot sorted the same way.
fn quicksort_in_place(values: &mut [i64]) {
    if values.len() < 2 {
        return;
    }
    let pivot = values[values.len() / 2];
    // Dutch national flag: [0, lt) < pivot, [lt, i) == pivot, (gt, len) > pivot.
    let (mut lt, mut i, mut gt) = (0, 0, values.len());
    while i < gt {
        if values[i] < pivot {
            values.swap(lt, i);
            lt += 1;
            i += 1;
        } else if values[i] > pivot {
            gt -= 1;
            values.swap(i, gt);
        } else {
            i += 1;
        }
    }
    let (below, rest) = values.split_at_mut(lt);
    quicksort_in_place(below);
    quicksort_in_place(&mut rest[gt - lt..]);
}

/// Savina's handling of a child's `Result`: a non-empty sorted part is concatenated with the
/// parent's into a new list, the Left part before, the Right part after.
pub(crate) fn merge(mine: &mut Vec<i64>, theirs: Vec<i64>, position: Position) {
    if theirs.is_empty() {
        return;
    }
    let (first, second) = match position {
        Position::Left => (&theirs, &*mine),
        Position::Right | Position::Root => (&*mine, &theirs),
    };
    let mut joined = Vec::new();
    joined.extend_from_slice(first);
    joined.extend_from_slice(second);
    *mine = joined;
}

/// What a sorter gathers: its sorted list (its own, then with its children's parts merged in) and
/// how many sorters its subtree had, with Savina's count of the fragments in (the pivots and the
/// two children's parts).
pub(crate) struct Gathered {
    /// The sorted list so far.
    pub(crate) result: Vec<i64>,
    fragments: u8,
    /// Sorters in the subtree, this one included.
    pub(crate) sorters: u64,
}

impl Gathered {
    /// Nothing gathered yet; one sorter.
    pub(crate) fn new() -> Gathered {
        Gathered {
            result: Vec::new(),
            fragments: 0,
            sorters: 1,
        }
    }

    /// The sorter has split its list and keeps `pivots`: the first of three fragments.
    pub(crate) fn split(&mut self, pivots: Vec<i64>) {
        self.result = pivots;
        self.fragments = 1;
    }

    /// Merges a child's `Result` (see [`merge`]); whether every fragment is in.
    #[inline]
    pub(crate) fn child(&mut self, sorted: Vec<i64>, position: Position, sorters: u64) -> bool {
        merge(&mut self.result, sorted, position);
        self.sorters += sorters;
        self.fragments += 1;
        self.fragments == 3
    }
}

/// Validates a run: the root's list `sorted` (None if it never reported) must hold N values in order
/// with the input's `sum`; at the defaults the tree must have had 1,939 sorters. The result is the
/// length and the sorter count.
pub(crate) fn check(cfg: &Config, sum: i128, sorted: Option<&[i64]>, sorters: u64) -> Outcome {
    let Some(sorted) = sorted else {
        return Outcome::failed("the root sorter reported no result");
    };
    let result = serde_json::json!({ "length": sorted.len(), "sorters": sorters });
    let check = if sorted.len() != cfg.n {
        Err(format!(
            "{} values sorted, expected {}",
            sorted.len(),
            cfg.n
        ))
    } else if let Some(i) = sorted.windows(2).position(|w| w[0] > w[1]) {
        Err(format!(
            "not sorted at index {}: {} > {}",
            i,
            sorted[i],
            sorted[i + 1]
        ))
    } else if sorted.iter().map(|&v| v as i128).sum::<i128>() != sum {
        Err("the sorted values are not the input's".into())
    } else if *cfg == DEFAULTS && (sum != DEFAULT_SUM || sorters != DEFAULT_SORTERS) {
        Err(format!(
            "at the defaults: sum {sum} and {sorters} sorters, expected {DEFAULT_SUM} and {DEFAULT_SORTERS}"
        ))
    } else {
        Ok(())
    };
    Outcome { result, check }
}

#[cfg(test)]
mod tests {
    use super::{
        check, merge, partition, quicksort_seq, Config, Kernel, Position, BENCHMARK, DEFAULTS,
    };
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, validates};

    #[test]
    fn default_input_has_savinas_sum() {
        let (values, sum) = DEFAULTS.generate();
        assert_eq!(values.len(), 1_000_000);
        assert!(values.iter().all(|&v| (0..65_536).contains(&v)));
        assert_eq!(sum, 32_768_134_304);
    }

    #[test]
    fn sequential_sort_and_partition_agree_with_std() {
        let cfg = Config {
            n: 5_000,
            m: 1_000,
            t: 10,
            seed: 7,
        };
        let (values, _) = cfg.generate();
        let mut want = values.clone();
        want.sort_unstable();
        let mut mine = values.clone();
        quicksort_seq(&mut mine);
        assert_eq!(mine, want);
        let pivot = values[values.len() / 2];
        let (less, equal, greater) = partition(&values);
        assert!(less.iter().all(|&v| v < pivot) && greater.iter().all(|&v| v > pivot));
        assert!(equal.iter().all(|&v| v == pivot));
        assert_eq!(less.len() + equal.len() + greater.len(), values.len());
        for kernel in [Kernel::Savina, Kernel::InPlace] {
            assert_eq!(kernel.sort(values.clone()), want, "{kernel:?}");
            let mut parts = Vec::new();
            let kept = kernel.split(&values, |part, position| parts.push((part, position)));
            assert_eq!(kept, equal, "{kernel:?}");
            assert_eq!(
                parts,
                [
                    (less.clone(), Position::Left),
                    (greater.clone(), Position::Right)
                ],
                "{kernel:?}: the Left part first, each in input order"
            );
        }
        let mut joined = vec![pivot];
        merge(&mut joined, vec![1, 2], Position::Left);
        merge(&mut joined, vec![], Position::Left);
        merge(&mut joined, vec![9], Position::Right);
        assert_eq!(joined, [1, 2, pivot, 9]);
    }

    #[test]
    fn check_wants_every_value_in_order() {
        let cfg = Config { n: 3, ..DEFAULTS };
        assert!(check(&cfg, 6, Some(&[1, 2, 3]), 1).check.is_ok());
        assert!(check(&cfg, 6, Some(&[2, 1, 3]), 1).check.is_err());
        assert!(check(&cfg, 6, Some(&[1, 2]), 1).check.is_err());
        assert!(check(&cfg, 7, Some(&[1, 2, 3]), 1).check.is_err());
        assert!(check(&cfg, 6, None, 1).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        let outcomes = validates(&BENCHMARK, &[("n", 20_000.0), ("t", 500.0)]);
        let sorters = &outcomes[0].result["sorters"];
        assert!(sorters.as_u64().unwrap() > 1, "{sorters}");
        for outcome in &outcomes {
            assert_eq!(
                &outcome.result["sorters"], sorters,
                "the tree is deterministic"
            );
        }
        validates(&BENCHMARK, &[("n", 1.0), ("t", 1.0)]);
        validates(&BENCHMARK, &[("n", 3_000.0), ("m", 10.0), ("t", 2.0)]);
    }

    /// The BoC program has the actor tree's sorters, one cown per sorter.
    #[test]
    fn boc_validates_at_a_reduced_size() {
        let sets = [("n", 20_000.0), ("t", 500.0)];
        let actor = &validates(&BENCHMARK, &sets)[0].result["sorters"];
        for outcome in testing::boc_validates(&BENCHMARK, &sets) {
            assert_eq!(&outcome.result["sorters"], actor);
        }
        testing::boc_validates(&BENCHMARK, &[("n", 1.0), ("t", 1.0)]);
        testing::boc_validates(&BENCHMARK, &[("n", 3_000.0), ("m", 10.0), ("t", 2.0)]);
    }

    /// The tuned programs (the in-place kernel, the BoC paper's decomposition) have the same tree.
    #[test]
    fn tuned_programs_validate_with_the_same_tree() {
        let sets = [("n", 20_000.0), ("t", 500.0)];
        let actor = &validates(&BENCHMARK, &sets)[0].result["sorters"];
        let tuned = [Model::ActorTuned, Model::BocTuned, Model::FloorTuned];
        let cells = testing::on_one_and_two(&tuned, 2);
        for sets in [&sets[..], &[("n", 3_000.0), ("m", 10.0), ("t", 2.0)]] {
            for outcome in testing::cells(&BENCHMARK, &cells, sets) {
                assert_eq!(outcome.check, Ok(()));
                if sets.len() == 2 {
                    assert_eq!(&outcome.result["sorters"], actor);
                }
            }
        }
    }
}
