//! Quicksort on the sequential floor: the same tree of sorters, spawned while the system runs.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, merge, Config, Kernel, Position};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, Kernel::Savina), run)
}

/// The same program with the in-place kernel (`in-place-quicksort`).
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, Kernel::InPlace), run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(&(ref cfg, kernel): &(Config, Kernel)) -> Outcome {
    let (values, sum) = cfg.generate();
    let mut sys = System::reclaiming();
    let root = sys.spawn(Sorter::new(None, Position::Root, cfg.t, kernel));
    sys.send(root, Msg::Sort(values));
    sys.run();
    let root = sys.actor(root);
    let sorted = root.done.then_some(root.result.as_slice());
    check(cfg, sum, sorted, root.sorters)
}

/// The messages of Quicksort.
enum Msg {
    Sort(Vec<i64>),
    /// A child's sorted list, which part it is, and how many sorters its subtree had.
    Result {
        sorted: Vec<i64>,
        position: Position,
        sorters: u64,
    },
}

/// A sorter.
struct Sorter {
    parent: Option<ActorId>,
    position: Position,
    threshold: usize,
    kernel: Kernel,
    result: Vec<i64>,
    fragments: u8,
    sorters: u64,
    done: bool,
}

impl Sorter {
    fn new(
        parent: Option<ActorId>,
        position: Position,
        threshold: usize,
        kernel: Kernel,
    ) -> Sorter {
        Sorter {
            parent,
            position,
            threshold,
            kernel,
            result: Vec::new(),
            fragments: 0,
            sorters: 1,
            done: false,
        }
    }

    /// Sends the sorted list to the parent (the root keeps it) and exits.
    fn report(&mut self, cx: &mut Context<Self>) {
        self.done = true;
        if let Some(parent) = self.parent {
            let sorted = std::mem::take(&mut self.result);
            cx.send(
                parent,
                Msg::Result {
                    sorted,
                    position: self.position,
                    sorters: self.sorters,
                },
            );
        }
        cx.exit();
    }
}

impl Actor for Sorter {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match msg {
            Msg::Sort(values) if values.len() < self.threshold => {
                self.result = self.kernel.sort(values);
                self.report(cx);
            }
            Msg::Sort(values) => {
                let (threshold, kernel, me) = (self.threshold, self.kernel, cx.me());
                self.result = kernel.split(&values, |part, position| {
                    let child = cx.spawn(Sorter::new(Some(me), position, threshold, kernel));
                    cx.send(child, Msg::Sort(part));
                });
                self.fragments = 1;
            }
            Msg::Result {
                sorted,
                position,
                sorters,
            } => {
                merge(&mut self.result, sorted, position);
                self.sorters += sorters;
                self.fragments += 1;
                if self.fragments == 3 {
                    self.report(cx);
                }
            }
        }
    }
}
