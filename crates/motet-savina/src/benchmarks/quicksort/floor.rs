//! Quicksort on the sequential floor: the same tree of sorters, spawned while the system runs.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Gathered, Kernel, Position};

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
    let sorted = root.done.then_some(root.gathered.result.as_slice());
    check(cfg, sum, sorted, root.gathered.sorters)
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
    gathered: Gathered,
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
            gathered: Gathered::new(),
            done: false,
        }
    }

    /// Sends the sorted list to the parent (the root keeps it) and exits.
    fn report(&mut self, cx: &mut Context<Self>) {
        self.done = true;
        if let Some(parent) = self.parent {
            let sorted = std::mem::take(&mut self.gathered.result);
            cx.send(
                parent,
                Msg::Result {
                    sorted,
                    position: self.position,
                    sorters: self.gathered.sorters,
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
                self.gathered.result = self.kernel.sort(values);
                self.report(cx);
            }
            Msg::Sort(values) => {
                let (threshold, kernel, me) = (self.threshold, self.kernel, cx.me());
                let pivots = kernel.split(&values, |part, position| {
                    let child = cx.spawn(Sorter::new(Some(me), position, threshold, kernel));
                    cx.send(child, Msg::Sort(part));
                });
                self.gathered.split(pivots);
            }
            Msg::Result {
                sorted,
                position,
                sorters,
            } => {
                if self.gathered.child(sorted, position, sorters) {
                    self.report(cx);
                }
            }
        }
    }
}
