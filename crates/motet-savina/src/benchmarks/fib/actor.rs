//! Fibonacci as motet actors: each actor spawns its two children from its handler.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum FibMsg {
    Request(u32),
    Response(u64),
}

/// Where an actor reports: its parent, or the harness for the root.
enum Parent {
    Actor(Addr<FibMsg>),
    Root(ResultSlot<u64>),
}

struct Fib {
    parent: Option<Parent>,
    result: u64,
    responses: u8,
}

impl Fib {
    fn new(parent: Parent) -> Fib {
        Fib {
            parent: Some(parent),
            result: 0,
            responses: 0,
        }
    }

    /// Reports the result to the parent and stops.
    fn report(&mut self, ctx: &mut Context<'_, Self>) {
        match self.parent.take() {
            Some(Parent::Actor(parent)) => {
                let _ = parent.send(FibMsg::Response(self.result));
            }
            Some(Parent::Root(slot)) => slot.set(self.result),
            None => {}
        }
        ctx.stop();
    }
}

impl Actor for Fib {
    type Msg = FibMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: FibMsg) {
        match msg {
            FibMsg::Request(n) if n <= 2 => {
                self.result = 1;
                self.report(ctx);
            }
            FibMsg::Request(n) => {
                for k in [n - 1, n - 2] {
                    let child = ctx.spawn(Fib::new(Parent::Actor(ctx.myself())));
                    let _ = child.send(FibMsg::Request(k));
                }
            }
            FibMsg::Response(value) => {
                self.result += value;
                self.responses += 1;
                if self.responses == 2 {
                    self.report(ctx);
                }
            }
        }
    }
}

/// One timed iteration: creates the root, runs the tree to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let root = spawn(rt.handle(), Fib::new(Parent::Root(result.clone())));
    let _ = root.send(FibMsg::Request(cfg.n));
    rt.wait_quiescent();
    check(cfg, result.take())
}
