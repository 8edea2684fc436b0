//! Quicksort as motet actors: each sorter spawns its two children from its handler, and the lists
//! move between sorters inside the messages.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, Gathered, Kernel, Position};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, Kernel::Savina), threads, run)
}

/// The same program with the in-place kernel (`in-place-quicksort`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(
        (Config::from_params(params)?, Kernel::InPlace),
        threads,
        run,
    )
}

enum SortMsg {
    Sort(Vec<i64>),
    /// A child's sorted list, which part it is, and how many sorters its subtree had.
    Result {
        sorted: Vec<i64>,
        position: Position,
        sorters: u64,
    },
}

/// Where a sorter reports: its parent, or the harness for the root.
enum Parent {
    Actor(Addr<SortMsg>),
    Root(ResultSlot<(Vec<i64>, u64)>),
}

struct Sorter {
    parent: Option<Parent>,
    position: Position,
    threshold: usize,
    kernel: Kernel,
    gathered: Gathered,
}

impl Sorter {
    fn new(parent: Parent, position: Position, threshold: usize, kernel: Kernel) -> Sorter {
        Sorter {
            parent: Some(parent),
            position,
            threshold,
            kernel,
            gathered: Gathered::new(),
        }
    }

    /// Sends the sorted list to the parent and stops.
    fn report(&mut self, ctx: &mut Context<'_, Self>) {
        let sorted = std::mem::take(&mut self.gathered.result);
        match self.parent.take() {
            Some(Parent::Actor(parent)) => {
                let _ = parent.send(SortMsg::Result {
                    sorted,
                    position: self.position,
                    sorters: self.gathered.sorters,
                });
            }
            Some(Parent::Root(slot)) => slot.set((sorted, self.gathered.sorters)),
            None => {}
        }
        ctx.stop();
    }
}

impl Actor for Sorter {
    type Msg = SortMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SortMsg) {
        match msg {
            SortMsg::Sort(values) if values.len() < self.threshold => {
                self.gathered.result = self.kernel.sort(values);
                self.report(ctx);
            }
            SortMsg::Sort(values) => {
                let (threshold, kernel) = (self.threshold, self.kernel);
                let pivots = kernel.split(&values, |part, position| {
                    let parent = Parent::Actor(ctx.myself());
                    let child = ctx.spawn(Sorter::new(parent, position, threshold, kernel));
                    let _ = child.send(SortMsg::Sort(part));
                });
                self.gathered.split(pivots);
            }
            SortMsg::Result {
                sorted,
                position,
                sorters,
            } => {
                if self.gathered.child(sorted, position, sorters) {
                    self.report(ctx);
                }
            }
        }
    }
}

/// One timed iteration: generates the values (timed, as in Savina), sorts them and checks the result.
fn run(&(ref cfg, kernel): &(Config, Kernel), rt: &Runtime) -> Outcome {
    let (values, sum) = cfg.generate();
    let result = ResultSlot::new();
    let root = spawn(
        rt.handle(),
        Sorter::new(Parent::Root(result.clone()), Position::Root, cfg.t, kernel),
    );
    let _ = root.send(SortMsg::Sort(values));
    rt.wait_quiescent();
    match result.take() {
        Some((sorted, sorters)) => check(cfg, sum, Some(&sorted), sorters),
        None => check(cfg, sum, None, 0),
    }
}
