//! Thread Ring as reactors, after LF's port.
//!
//! The ring is N reactors connected in a cycle: node i's `out` to node i+1's `in`, the last back to
//! node 0. Node 0 opens the causality loop with a logical action: what it receives it passes on at
//! the next microstep; the other nodes pass the token on at once, so one turn of the ring is one
//! tag. A node receiving `Ping(k)` passes `Ping(k − 1)` if k > 0; the node receiving `Ping(0)`
//! reports its index on `done` to an initializer, which also starts the ring with `Ping(R)` at
//! node 0. (LF's port stops at the zero ping too; Savina's exit wave has no counterpart, so the
//! check counts the pings each node received but no exits.)

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config, Counts};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The initializer's state: the node that received the zero ping.
type ZeroAt = Option<usize>;

/// What reads the result of a built program: the initializer, which holds the result, and the
/// nodes, whose state counts the pings each received.
pub(super) struct ThreadRing {
    cfg: Config,
    init: ReactorId<ZeroAt>,
    nodes: Vec<ReactorId<u64>>,
}

/// Builds a ring of `cfg.n` nodes for `cfg.r` passes.
pub(super) fn build(cfg: &Config) -> (Program, ThreadRing) {
    let Config { n, r } = *cfg;
    let mut b = ProgramBuilder::new();
    let init = b.reactor("init", None::<usize>);
    let start = b.output::<u64, _>(init, "start");
    let done = b.input_multiport::<(), _>(init, "done", n);
    b.reaction(init, "start")
        .trigger(Startup)
        .effect(start)
        .body(move |_, ctx| ctx.set(start, r));
    b.reaction(init, "done")
        .trigger(done)
        .body(move |zero_at: &mut ZeroAt, ctx| {
            *zero_at = ctx.present_unordered(done).next().map(|(i, _)| i);
        });
    let nodes = b.bank(n, |b, i| {
        let node = b.reactor(&format!("node[{i}]"), 0u64);
        let input = b.input::<u64, _>(node, "in");
        let out = b.output::<u64, _>(node, "out");
        let finished = b.output::<(), _>(node, "done");
        if i == 0 {
            // The loop opener: what it receives goes on at the next microstep.
            let pass = b.logical_action::<u64, _>(node, "pass", Duration::ZERO);
            let first = b.input::<u64, _>(node, "start");
            b.reaction(node, "send")
                .trigger(pass)
                .effect(out)
                .body(move |_, ctx| {
                    if let Some(&k) = ctx.get(pass) {
                        ctx.set(out, k);
                    }
                });
            b.reaction(node, "receive")
                .trigger(input)
                .trigger(first)
                .effect(pass)
                .effect(finished)
                .body(move |pings: &mut u64, ctx| {
                    let Some(&k) = ctx.get(input).or_else(|| ctx.get(first)) else {
                        return;
                    };
                    *pings += 1;
                    if k > 0 {
                        ctx.schedule(pass, k - 1, Duration::ZERO);
                    } else {
                        ctx.set(finished, ());
                    }
                });
            (node, input, out, finished, Some(first))
        } else {
            b.reaction(node, "pass")
                .trigger(input)
                .effect(out)
                .effect(finished)
                .body(move |pings: &mut u64, ctx| {
                    let Some(&k) = ctx.get(input) else { return };
                    *pings += 1;
                    if k > 0 {
                        ctx.set(out, k - 1);
                    } else {
                        ctx.set(finished, ());
                    }
                });
            (node, input, out, finished, None)
        }
    });
    let outs: Ports<u64> = nodes.iter().map(|x| x.2).collect();
    let ins: Ports<u64> = nodes.iter().cycle().skip(1).take(n).map(|x| x.1).collect();
    b.connect(outs, ins);
    let finished: Ports<()> = nodes.iter().map(|x| x.3).collect();
    b.connect(finished, done);
    if let Some(first) = nodes[0].4 {
        b.connect(start, first);
    }
    (
        b.build().expect("the thread-ring program is well formed"),
        ThreadRing {
            cfg: *cfg,
            init,
            nodes: nodes.iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for ThreadRing {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let zero_at = *program.state_mut(self.init);
        let pings = self.nodes.iter().map(|&r| *program.state_mut(r)).sum();
        let counts = Counts {
            zero_at,
            pings,
            exits: None,
        };
        check(self.cfg, counts)
    }
}
