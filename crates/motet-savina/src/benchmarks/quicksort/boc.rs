//! Quicksort in BoC: the actor program's flow with cowns and behaviours. Each sorter is a cown;
//! Savina's `Sort` and `Result` messages are behaviours on the receiving sorter's cown. A `Sort`
//! behaviour sorts a list shorter than T with Savina's sequential kernel and reports, or splits
//! it with Savina's filters, creating the Left and then the Right child's cown and spawning its
//! `Sort`, and keeps the values equal to the pivot; a `Result` behaviour concatenates the child's
//! part and, at the third fragment, reports to the parent's cown. The values are generated inside
//! the timed iteration, as in every variant.
//!
//! `boc-tuned` is the BoC paper's port instead (`driver-decomposition`): a list's sorted result is
//! a cown, the decomposition runs in one driver behaviour (the paper's in the scheduler's thread
//! before the run), a list shorter than T gets a cown and one behaviour that sorts it, and a longer
//! one returns its left part's cown after spawning one behaviour over the left and right parts'
//! cowns that appends the values equal to the pivot and the right part to the left; only the leaf
//! sorts and the merges run in parallel (970 one-cown and 969 two-cown behaviours at the defaults).

use motet_boc::{when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{check, merge, partition, quicksort_seq, Config, Kernel, Position};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// The BoC paper's decomposition (`driver-decomposition`); `threads` workers.
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run_driver)
}

/// A sorter's state, in its cown.
struct Sorter {
    /// The parent's cown and which part this sorter sorts; `None` for the root.
    parent: Option<(Cown<Sorter>, Position)>,
    /// Where the root reports.
    root: Option<ResultSlot<(Vec<i64>, u64)>>,
    result: Vec<i64>,
    fragments: u8,
    /// Sorters in this sorter's subtree that have reported, itself included.
    sorters: u64,
}

impl Sorter {
    fn new(parent: Option<(Cown<Sorter>, Position)>) -> Sorter {
        Sorter {
            parent,
            root: None,
            result: Vec::new(),
            fragments: 0,
            sorters: 1,
        }
    }

    /// Savina's `notifyParentAndTerminate`: the sorted list to the parent's cown (a `Result`
    /// behaviour), or to the harness from the root.
    fn report(&mut self) {
        let (sorted, sorters) = (std::mem::take(&mut self.result), self.sorters);
        if let Some((parent, position)) = self.parent.take() {
            let _ = when_detached(&parent, move |p| {
                merge(&mut p.result, sorted, position);
                p.sorters += sorters;
                p.fragments += 1;
                if p.fragments == 3 {
                    p.report();
                }
            });
        } else if let Some(root) = self.root.take() {
            root.set((sorted, sorters));
        }
    }
}

/// Spawns the `Sort(values)` behaviour on sorter `me`.
fn sort(h: &Handle, me: Cown<Sorter>, values: Vec<i64>, t: usize) {
    let (h, myself) = (h.clone(), me.clone());
    let _ = when_detached(&me, move |s| {
        if values.len() < t {
            s.result = Kernel::Savina.sort(values);
            s.report();
            return;
        }
        s.result = Kernel::Savina.split(&values, |part, position| {
            let child = Cown::new(&h, Sorter::new(Some((myself.clone(), position))));
            sort(&h, child, part, t);
        });
        s.fragments = 1;
    });
}

/// One timed iteration: generates the values, sends the root sorter its `Sort`, runs to quiescence
/// and checks the root's list.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let (values, sum) = cfg.generate();
    let result = ResultSlot::new();
    let mut root = Sorter::new(None);
    root.root = Some(result.clone());
    sort(rt.handle(), Cown::new(rt.handle(), root), values, cfg.t);
    rt.wait_quiescent();
    match result.take() {
        Some((sorted, sorters)) => check(cfg, sum, Some(&sorted), sorters),
        None => check(cfg, sum, None, 0),
    }
}

/// The BoC paper's decomposition of `values` below threshold `t`: returns the cown that will hold
/// them sorted, and counts the sorters (nodes of the decomposition) in `sorters`.
fn decompose(h: &Handle, values: Vec<i64>, t: usize, sorters: &mut u64) -> Cown<Vec<i64>> {
    *sorters += 1;
    if values.len() < t {
        let result = Cown::new(h, Vec::new());
        let _ = when_detached(&result, move |result| {
            let mut values = values;
            quicksort_seq(&mut values);
            *result = values;
        });
        return result;
    }
    let (less, equal, greater) = partition(&values);
    drop(values);
    let left = decompose(h, less, t, sorters);
    let right = decompose(h, greater, t, sorters);
    let _ = when_detached((&left, &right), move |(left, right)| {
        left.extend_from_slice(&equal);
        left.append(right);
    });
    left
}

/// One timed iteration of `boc-tuned`: generates the values, decomposes from a driver behaviour,
/// reads the result and checks it.
fn run_driver(cfg: &Config, rt: &Runtime) -> Outcome {
    let (values, sum) = cfg.generate();
    let t = cfg.t;
    let sorted = start(rt, move |h| {
        let mut sorters = 0;
        let root = decompose(h, values, t, &mut sorters);
        (root, sorters)
    })
    .and_then(|(root, sorters)| Ok((read(&root, std::mem::take)?, sorters)));
    rt.wait_quiescent();
    match sorted {
        Ok((sorted, sorters)) => check(cfg, sum, Some(&sorted), sorters),
        Err(e) => Outcome::failed(e),
    }
}
