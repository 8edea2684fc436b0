//! Fibonacci as reactors: the tree of nodes is created while the program runs, by mutations.
//!
//! A node has an input `request`, outputs `to_left` and `to_right` (its children's requests),
//! inputs `from_left` and `from_right` (their responses) and an output `response`. On
//! `Request(n)` with n ≤ 2 it responds 1. Otherwise it requests a mutation that creates its two
//! children beside it and connects `to_left -> left.request`, `to_right -> right.request`,
//! `left.response -> from_left` and `right.response -> from_right`, and schedules a zero-delay
//! action: at the next microstep the children exist and its `send` reaction sends them
//! `Request(n − 1)` and `Request(n − 2)` (Savina's send after the spawn). When both responses have
//! come it responds with their sum and deletes the children (their exit). A driver sends the root
//! `Request(N)` at startup; the root keeps its result.
//!
//! Validation: the root's result is fib(N); the record's `reactors_created` is 2·fib(N) − 2 (every
//! node but the root).

use std::time::Duration;

use motet_reactor::{Input, Output, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// A node's state.
#[derive(Default)]
struct Node {
    n: u32,
    result: u64,
    responses: u8,
    children: Vec<ReactorId<Node>>,
}

/// A node's ports, as its parent connects them.
struct NodePorts {
    id: ReactorId<Node>,
    request: Input<u32>,
    response: Output<u64>,
}

/// Declares a node named `name` (in the program or in a mutation).
fn node(b: &mut ProgramBuilder, name: String) -> NodePorts {
    let me = b.reactor(&name, Node::default());
    let request: Input<u32> = b.input(me, "request");
    let to_left: Output<u32> = b.output(me, "to_left");
    let to_right: Output<u32> = b.output(me, "to_right");
    let from_left: Input<u64> = b.input(me, "from_left");
    let from_right: Input<u64> = b.input(me, "from_right");
    let response: Output<u64> = b.output(me, "response");
    let send = b.logical_action::<(), _>(me, "send", Duration::ZERO);
    b.reaction(me, "request")
        .trigger(request)
        .effect(response)
        .effect(send)
        .mutates()
        .body(move |s: &mut Node, ctx| {
            let n = *ctx.get(request).expect("triggered by a request");
            s.n = n;
            if n <= 2 {
                s.result = 1;
                ctx.set(response, 1);
                return;
            }
            let name = name.clone();
            ctx.mutate(move |m| {
                let left = node(m, format!("{name}0"));
                let right = node(m, format!("{name}1"));
                m.connect(to_left, left.request);
                m.connect(to_right, right.request);
                m.connect(left.response, from_left);
                m.connect(right.response, from_right);
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
        .body(move |s: &mut Node, ctx| {
            ctx.set(to_left, s.n - 1);
            ctx.set(to_right, s.n - 2);
        });
    b.reaction(me, "responses")
        .trigger(from_left)
        .trigger(from_right)
        .effect(response)
        .mutates()
        .body(move |s: &mut Node, ctx| {
            for v in [ctx.get(from_left), ctx.get(from_right)]
                .into_iter()
                .flatten()
            {
                s.result += v;
                s.responses += 1;
            }
            if s.responses == 2 {
                ctx.set(response, s.result);
                let children = std::mem::take(&mut s.children);
                ctx.mutate(move |m| {
                    for c in children {
                        m.delete(c);
                    }
                });
            }
        });
    NodePorts {
        id: me,
        request,
        response,
    }
}

/// What reads the result of a built program.
pub(super) struct Fibonacci {
    cfg: Config,
    root: ReactorId<Node>,
}

/// Builds the program for fib(`cfg.n`).
pub(super) fn build(cfg: &Config) -> (Program, Fibonacci) {
    let mut b = ProgramBuilder::new();
    let driver = b.reactor("driver", ());
    let start: Output<u32> = b.output(driver, "request");
    let n = cfg.n;
    b.reaction(driver, "start")
        .trigger(Startup)
        .effect(start)
        .body(move |_, ctx| ctx.set(start, n));
    let root = node(&mut b, "fib".into());
    b.connect(start, root.request);
    (
        b.build().expect("the Fibonacci program is well formed"),
        Fibonacci {
            cfg: *cfg,
            root: root.id,
        },
    )
}

impl Built for Fibonacci {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let root = program.state_mut(self.root);
        let done = root.n <= 2 || root.responses == 2;
        check(&self.cfg, done.then_some(root.result))
    }
}
