//! Actor creation as motet actors: each testee spawns its two children from its handler
//! (`Context::spawn`) and answers its parent with `Addr::send`, which gives up the address in the
//! same step.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, Msg};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Where a testee's result goes.
enum Parent {
    /// Another testee.
    Testee(Addr<Msg>),
    /// The harness (the root's result).
    Main(ResultSlot<u64>),
}

/// A node of the tree: its parent, and the results still awaited and their sum.
struct Testee {
    parent: Option<Parent>,
    pending: u8,
    leaves: u64,
}

impl Testee {
    fn new(parent: Parent) -> Testee {
        Testee {
            parent: Some(parent),
            pending: 0,
            leaves: 0,
        }
    }

    /// Sends `leaves` to the parent and exits.
    fn finish(&mut self, ctx: &mut Context<'_, Self>, leaves: u64) {
        match self.parent.take() {
            Some(Parent::Testee(parent)) => {
                let _ = parent.send(Msg::Result(leaves));
            }
            Some(Parent::Main(slot)) => slot.set(leaves),
            None => {}
        }
        ctx.stop();
    }
}

impl Actor for Testee {
    type Msg = Msg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Spread(0) => self.finish(ctx, 1),
            Msg::Spread(depth) => {
                for _ in 0..2 {
                    let child = ctx.spawn(Testee::new(Parent::Testee(ctx.myself())));
                    let _ = child.send(Msg::Spread(depth - 1));
                }
                self.pending = 2;
            }
            Msg::Result(leaves) => {
                self.leaves += leaves;
                self.pending -= 1;
                if self.pending == 0 {
                    self.finish(ctx, self.leaves);
                }
            }
        }
    }
}

/// One timed iteration: spawns the root, runs the tree to quiescence and checks the count.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let slot = ResultSlot::new();
    let root = spawn(rt.handle(), Testee::new(Parent::Main(slot.clone())));
    let _ = root.send(Msg::Spread(cfg.n));
    rt.wait_quiescent();
    check(cfg.n, slot.take())
}
