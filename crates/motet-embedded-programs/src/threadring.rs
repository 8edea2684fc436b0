//! Savina's Thread Ring (SPEC.md benchmark 5) as reactors, after LF's port: N nodes in a cycle,
//! node 0 opening the causality loop with a logical action; a node receiving `Ping(k)` passes
//! `Ping(k - 1)` if k > 0, and the node receiving `Ping(0)` reports its index to the initializer,
//! which also starts the ring with `Ping(R)` at node 0. Validated as SPEC.md says: the zero ping
//! arrives at node R mod N.

use alloc::format;
use core::time::Duration;

use motet_reactor_core::{BuildError, Ports, Program, ProgramBuilder, ReactorId, Startup};

use crate::Outcome;

/// Nodes in the ring on the board (Savina's default).
pub const BOARD_NODES: usize = 100;
/// Passes on the board (Savina's default is 100,000; fewer keep the emulated run short). Not a
/// multiple of the node count, so that the validation tells the nodes apart.
pub const BOARD_PASSES: u64 = 10_037;

/// The built program and what is needed to read its outcome.
pub struct ThreadRing {
    /// The program, to run.
    pub program: Program,
    init: ReactorId<Option<usize>>,
    nodes: usize,
    passes: u64,
}

/// Builds a ring of `nodes` nodes (at least one) passing a counter `passes` times.
pub fn build(nodes: usize, passes: u64) -> Result<ThreadRing, BuildError> {
    let n = nodes;
    let mut b = ProgramBuilder::new();
    let init = b.reactor("init", None::<usize>);
    let start = b.output::<u64, _>(init, "start");
    let done = b.input_multiport::<(), _>(init, "done", n);
    b.reaction(init, "start")
        .trigger(Startup)
        .effect(start)
        .body(move |_, ctx| ctx.set(start, passes));
    b.reaction(init, "done")
        .trigger(done)
        .body(move |zero_at: &mut Option<usize>, ctx| {
            *zero_at = ctx.present_unordered(done).next().map(|(i, _)| i);
        });
    let ring = b.bank(n, |b, i| {
        let node = b.reactor(&format!("node[{i}]"), ());
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
                .body(move |_, ctx| {
                    let Some(&k) = ctx.get(input).or_else(|| ctx.get(first)) else {
                        return;
                    };
                    if k > 0 {
                        ctx.schedule(pass, k - 1, Duration::ZERO);
                    } else {
                        ctx.set(finished, ());
                    }
                });
            (input, out, finished, Some(first))
        } else {
            b.reaction(node, "pass")
                .trigger(input)
                .effect(out)
                .effect(finished)
                .body(move |_, ctx| {
                    let Some(&k) = ctx.get(input) else { return };
                    if k > 0 {
                        ctx.set(out, k - 1);
                    } else {
                        ctx.set(finished, ());
                    }
                });
            (input, out, finished, None)
        }
    });
    let outs: Ports<u64> = ring.iter().map(|x| x.1).collect();
    let ins: Ports<u64> = ring.iter().cycle().skip(1).take(n).map(|x| x.0).collect();
    b.connect(outs, ins);
    let finished: Ports<()> = ring.iter().map(|x| x.2).collect();
    b.connect(finished, done);
    if let Some(first) = ring.first().and_then(|x| x.3) {
        b.connect(start, first);
    }
    drop(ring);
    Ok(ThreadRing {
        program: b.build()?,
        init,
        nodes,
        passes,
    })
}

impl ThreadRing {
    /// The index of the node the zero ping reached, validated against R mod N.
    pub fn outcome(&mut self) -> Outcome {
        let at = *self.program.state_mut(self.init);
        let expected = (self.passes % self.nodes.max(1) as u64) as usize;
        Outcome {
            result: at.map(|i| i as u64),
            validated: at == Some(expected),
        }
    }
}
