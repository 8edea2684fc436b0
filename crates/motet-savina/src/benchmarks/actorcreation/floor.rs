//! Actor creation on the sequential floor: the same spawn tree on one thread.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Msg};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::reclaiming();
    let root = sys.spawn(Testee::new(None));
    sys.send(root, Msg::Spread(cfg.n));
    sys.run();
    let root = sys.actor(root);
    check(cfg.n, root.done.then_some(root.leaves))
}

/// A node of the tree (the root has no parent: its result stays in its state).
struct Testee {
    parent: Option<ActorId>,
    pending: u8,
    leaves: u64,
    done: bool,
}

impl Testee {
    fn new(parent: Option<ActorId>) -> Testee {
        Testee {
            parent,
            pending: 0,
            leaves: 0,
            done: false,
        }
    }

    fn finish(&mut self, cx: &mut Context<Self>, leaves: u64) {
        self.leaves = leaves;
        self.done = true;
        if let Some(parent) = self.parent {
            cx.send(parent, Msg::Result(leaves));
        }
        cx.exit();
    }
}

impl Actor for Testee {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match msg {
            Msg::Spread(0) => self.finish(cx, 1),
            Msg::Spread(depth) => {
                for _ in 0..2 {
                    let me = cx.me();
                    let child = cx.spawn(Testee::new(Some(me)));
                    cx.send(child, Msg::Spread(depth - 1));
                }
                self.pending = 2;
            }
            Msg::Result(leaves) => {
                self.leaves += leaves;
                self.pending -= 1;
                if self.pending == 0 {
                    self.finish(cx, self.leaves);
                }
            }
        }
    }
}
