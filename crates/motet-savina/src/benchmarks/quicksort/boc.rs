//! Quicksort in BoC(Full), after the BoC paper's port: a list's sorted result is a cown. The
//! decomposition partitions sequentially, as Savina's sorters do (pivot at `len / 2`, the values
//! below and above it in input order); a list shorter than T gets a cown and one behaviour that
//! sorts it, and a longer one returns its left part's cown after spawning one behaviour over the
//! left and right parts' cowns that appends the values equal to the pivot and the right part to
//! the left. Happens-before puts every merge after the sorts and merges it reads.
//!
//! The decomposition runs in one driver behaviour (the paper's in the scheduler's thread before the
//! run), so only the leaf sorts and the merges run in parallel: 970 one-cown and 969 two-cown
//! behaviours at the defaults, one per sorter of the actor version. The values are generated
//! inside the timed iteration, as in every variant.

use motet_boc::{when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{check, partition, quicksort_seq, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Spawns the sort of `values` below threshold `t`; returns the cown that will hold them sorted,
/// and counts the sorters (nodes of the decomposition) in `sorters`.
fn sort(h: &Handle, values: Vec<i64>, t: usize, sorters: &mut u64) -> Cown<Vec<i64>> {
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
    let left = sort(h, less, t, sorters);
    let right = sort(h, greater, t, sorters);
    let _ = when_detached((&left, &right), move |(left, right)| {
        left.extend_from_slice(&equal);
        left.append(right);
    });
    left
}

/// One timed iteration: generates the values, sorts them from a driver behaviour, reads the result
/// and checks it.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let (values, sum) = cfg.generate();
    let t = cfg.t;
    let sorted = start(rt, move |h| {
        let mut sorters = 0;
        let root = sort(h, values, t, &mut sorters);
        (root, sorters)
    })
    .and_then(|(root, sorters)| Ok((read(&root, std::mem::take)?, sorters)));
    rt.wait_quiescent();
    match sorted {
        Ok((sorted, sorters)) => check(cfg, sum, Some(&sorted), sorters),
        Err(e) => Outcome::failed(e),
    }
}
