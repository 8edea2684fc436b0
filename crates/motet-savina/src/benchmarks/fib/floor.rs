//! Fibonacci on the sequential floor: the same tree of actors, spawned while the system runs.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::reclaiming();
    let root = sys.spawn(Fib::new(None));
    sys.send(root, Msg::Request(cfg.n));
    sys.run();
    let root = sys.actor(root);
    check(
        cfg,
        (root.responses == 2 || root.result == 1).then_some(root.result),
    )
}

/// The messages of Fibonacci.
enum Msg {
    Request(u32),
    Response(u64),
}

/// One node of the call tree.
struct Fib {
    parent: Option<ActorId>,
    result: u64,
    responses: u8,
}

impl Fib {
    fn new(parent: Option<ActorId>) -> Fib {
        Fib {
            parent,
            result: 0,
            responses: 0,
        }
    }

    fn report(&mut self, cx: &mut Context<Self>) {
        if let Some(parent) = self.parent {
            cx.send(parent, Msg::Response(self.result));
        }
        cx.exit();
    }
}

impl Actor for Fib {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match msg {
            Msg::Request(n) if n <= 2 => {
                self.result = 1;
                self.report(cx);
            }
            Msg::Request(n) => {
                let me = cx.me();
                for k in [n - 1, n - 2] {
                    let child = cx.spawn(Fib::new(Some(me)));
                    cx.send(child, Msg::Request(k));
                }
            }
            Msg::Response(value) => {
                self.result += value;
                self.responses += 1;
                if self.responses == 2 {
                    self.report(cx);
                }
            }
        }
    }
}
