//! Quicksort as reactors: the tree of sorters is created while the program runs, by mutations.
//!
//! A driver's startup reaction generates the values (inside the timed run, as Savina does) and
//! sends them to the root sorter. A sorter has an input `sort`, outputs `to_left` and `to_right`
//! (its children's lists), inputs `from_left` and `from_right` (their sorted lists) and an output
//! `result`. On a list shorter than T it sorts it with the benchmark's sequential kernel and sets
//! `result`. Otherwise it splits the list around its middle element with the benchmark's
//! partition, keeps the values equal to the pivot, and requests a mutation that creates its Left
//! and Right children beside it, connected both ways; a zero-delay action sends them their lists
//! at the next microstep, once they exist (Savina's send after the spawn). Each child's sorted
//! list is concatenated in left, equal, right order as it comes (on `from_left` or `from_right`,
//! which tells the part, as Savina's position does); when both have come, the sorter sets `result`
//! and deletes its children (their exit). The driver keeps the root's list, which is checked
//! inside the timed run, as Savina's root does.
//!
//! The lists move from one sorter to the next, as Savina's messages move them: a port carries a
//! [`Parcel`], which its one reader empties, so no list is copied on the way.
//!
//! Validation: the benchmark's check (length, order, the input's sum, and the sorters at the
//! defaults); the record's `reactors_created` is the sorters less the root.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use motet_reactor::{Input, Output, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, merge, partition, quicksort_seq, Config, Position};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// A list on a port, taken out by the port's one reader (every port here has exactly one), so
/// that it moves to the receiver instead of being copied.
struct Parcel(Mutex<Option<Vec<i64>>>);

impl Parcel {
    fn new(values: Vec<i64>) -> Parcel {
        Parcel(Mutex::new(Some(values)))
    }

    /// The list; empty if it was taken already (which no reader here does: the check would then
    /// find values missing).
    fn take(&self) -> Vec<i64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_default()
    }
}

/// A sorter's report: its sorted list, and the sorters of its subtree (itself included).
struct Sorted {
    list: Parcel,
    sorters: u64,
}

/// A sorter's state.
#[derive(Default)]
struct Sorter {
    /// The values equal to the pivot, then the concatenation so far.
    result: Vec<i64>,
    /// 1 once split, then one more per child's report (Savina's `fragments`).
    fragments: u8,
    sorters: u64,
    /// The children's lists, between the split and their send a microstep later.
    parts: Option<(Vec<i64>, Vec<i64>)>,
    children: Vec<ReactorId<Sorter>>,
}

/// A sorter's ports, as its parent connects them.
struct SorterPorts {
    id: ReactorId<Sorter>,
    sort: Input<Parcel>,
    result: Output<Sorted>,
}

/// Declares a sorter named `name` (in the program or in a mutation); lists shorter than
/// `threshold` it sorts itself.
fn sorter(b: &mut ProgramBuilder, name: String, threshold: usize) -> SorterPorts {
    let me = b.reactor(&name, Sorter::default());
    let sort: Input<Parcel> = b.input(me, "sort");
    let to_left: Output<Parcel> = b.output(me, "to_left");
    let to_right: Output<Parcel> = b.output(me, "to_right");
    let from_left: Input<Sorted> = b.input(me, "from_left");
    let from_right: Input<Sorted> = b.input(me, "from_right");
    let result: Output<Sorted> = b.output(me, "result");
    let send = b.logical_action::<(), _>(me, "send", Duration::ZERO);
    b.reaction(me, "sort")
        .trigger(sort)
        .effect(result)
        .effect(send)
        .mutates()
        .body(move |s: &mut Sorter, ctx| {
            let Some(parcel) = ctx.get(sort) else { return };
            let mut values = parcel.take();
            s.sorters = 1;
            if values.len() < threshold {
                quicksort_seq(&mut values);
                ctx.set(result, Sorted::new(values, 1));
                return;
            }
            let (less, equal, greater) = partition(&values);
            drop(values);
            s.result = equal;
            s.fragments = 1;
            s.parts = Some((less, greater));
            let name = name.clone();
            ctx.mutate(move |m| {
                let left = sorter(m, format!("{name}0"), threshold);
                let right = sorter(m, format!("{name}1"), threshold);
                m.connect(to_left, left.sort);
                m.connect(to_right, right.sort);
                m.connect(left.result, from_left);
                m.connect(right.result, from_right);
                if let Some(s) = m.state_mut(me) {
                    s.children = vec![left.id, right.id];
                }
            });
            ctx.schedule(send, (), Duration::ZERO);
        });
    b.reaction(me, "send")
        .trigger(send)
        .effect(to_left)
        .effect(to_right)
        .body(move |s: &mut Sorter, ctx| {
            if let Some((less, greater)) = s.parts.take() {
                ctx.set(to_left, Parcel::new(less));
                ctx.set(to_right, Parcel::new(greater));
            }
        });
    b.reaction(me, "results")
        .trigger(from_left)
        .trigger(from_right)
        .effect(result)
        .mutates()
        .body(move |s: &mut Sorter, ctx| {
            for (port, position) in [(from_left, Position::Left), (from_right, Position::Right)] {
                if let Some(child) = ctx.get(port) {
                    merge(&mut s.result, child.list.take(), position);
                    s.sorters += child.sorters;
                    s.fragments += 1;
                }
            }
            if s.fragments == 3 {
                let sorted = std::mem::take(&mut s.result);
                ctx.set(result, Sorted::new(sorted, s.sorters));
                let children = std::mem::take(&mut s.children);
                ctx.mutate(move |m| {
                    for c in children {
                        m.delete(c);
                    }
                });
            }
        });
    SorterPorts {
        id: me,
        sort,
        result,
    }
}

impl Sorted {
    fn new(list: Vec<i64>, sorters: u64) -> Sorted {
        Sorted {
            list: Parcel::new(list),
            sorters,
        }
    }
}

/// The driver's state: the input's sum, and the root's report.
struct Driver {
    sum: i128,
    sorted: Option<Vec<i64>>,
    sorters: u64,
}

/// What reads the result of a built program.
pub(super) struct Quicksort {
    cfg: Config,
    driver: ReactorId<Driver>,
}

/// Builds the program for `cfg`: the driver and the root sorter.
fn build(cfg: &Config) -> (Program, Quicksort) {
    let cfg = *cfg;
    let mut b = ProgramBuilder::new();
    let driver = b.reactor(
        "driver",
        Driver {
            sum: 0,
            sorted: None,
            sorters: 0,
        },
    );
    let start: Output<Parcel> = b.output(driver, "sort");
    let done: Input<Sorted> = b.input(driver, "done");
    b.reaction(driver, "start")
        .trigger(Startup)
        .effect(start)
        .body(move |d: &mut Driver, ctx| {
            let (values, sum) = cfg.generate();
            d.sum = sum;
            ctx.set(start, Parcel::new(values));
        });
    b.reaction(driver, "done")
        .trigger(done)
        .body(move |d: &mut Driver, ctx| {
            if let Some(root) = ctx.get(done) {
                d.sorted = Some(root.list.take());
                d.sorters = root.sorters;
            }
        });
    let root = sorter(&mut b, "sorter".into(), cfg.t);
    b.connect(start, root.sort);
    b.connect(root.result, done);
    (
        b.build().expect("the quicksort program is well formed"),
        Quicksort { cfg, driver },
    )
}

impl Built for Quicksort {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let d = program.state_mut(self.driver);
        check(&self.cfg, d.sum, d.sorted.as_deref(), d.sorters)
    }
}
