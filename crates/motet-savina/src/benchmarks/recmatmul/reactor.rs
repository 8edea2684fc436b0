//! Recursive Matrix Multiplication as reactors, after LF's port.
//!
//! A Manager and a bank of W workers. The Manager keeps a queue of Work items; at each tag (its
//! logical action `next`) it sends every queued item on its `work` multiport, grouped by the worker
//! that owns it (`(srC + scC) mod W`, Savina's routing). A worker splits an item above the
//! threshold into its eight half-size products and returns them; it multiplies a leaf into the
//! shared C with SPEC.md's i-j-k loop, as every default program. LF's port hands the items out one
//! per worker and tag, so two leaves of one block of C can run at once; here the leaves of one
//! block all go to one worker, as in Savina, so no block has two writers at a time. The Manager
//! zeroes C when the run starts. A tag is one level of the decomposition tree.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, Startup};

use super::{check, Config, Inputs, Leaf, SharedC, Work};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters and the matrices A, B and C are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    let matrices = Matrices {
        inputs: Arc::new(Inputs::new(cfg.n)),
        c: Arc::new(SharedC::new(&cfg)),
    };
    reactor_support::prepare((cfg, matrices), threads, model, build)
}

/// A and B, read by the workers, and the C they add into.
struct Matrices {
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
}

/// A worker's state: the matrices.
struct Worker {
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
}

/// What reads the result of a built program: C.
pub(super) struct MatMul {
    cfg: Config,
    c: Arc<SharedC>,
}

/// Builds the program for `cfg.workers` workers.
fn build(&(cfg, ref matrices): &(Config, Matrices)) -> (Program, MatMul) {
    let w = cfg.workers;
    let mut b = ProgramBuilder::new();
    let manager = b.reactor("manager", VecDeque::<Work>::new());
    let c = Arc::clone(&matrices.c);
    let work = b.output_multiport::<Vec<Work>, _>(manager, "work", w);
    let more = b.input_multiport::<Vec<Work>, _>(manager, "more", w);
    let next = b.logical_action::<(), _>(manager, "next", Duration::ZERO);
    b.reaction(manager, "start")
        .trigger(Startup)
        .effect(next)
        .body(move |queue: &mut VecDeque<Work>, ctx| {
            c.clear();
            queue.push_back(cfg.root_work());
            ctx.schedule(next, (), Duration::ZERO);
        });
    b.reaction(manager, "send").trigger(next).effect(work).body(
        move |queue: &mut VecDeque<Work>, ctx| {
            let mut batches: Vec<Vec<Work>> = vec![Vec::new(); w];
            for item in queue.drain(..) {
                batches[cfg.worker_of(&item)].push(item);
            }
            for (i, batch) in batches.into_iter().enumerate() {
                if !batch.is_empty() {
                    ctx.set(work.channel(i), batch);
                }
            }
        },
    );
    b.reaction(manager, "collect")
        .trigger(more)
        .effect(next)
        .body(move |queue: &mut VecDeque<Work>, ctx| {
            for (_, items) in ctx.present_sorted(more) {
                queue.extend(items.iter().copied());
            }
            if !queue.is_empty() {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let workers = b.bank(w, |b, i| {
        let r = b.reactor(
            &format!("worker[{i}]"),
            Worker {
                inputs: Arc::clone(&matrices.inputs),
                c: Arc::clone(&matrices.c),
            },
        );
        let input = b.input::<Vec<Work>, _>(r, "work");
        let output = b.output::<Vec<Work>, _>(r, "more");
        b.reaction(r, "multiply")
            .trigger(input)
            .effect(output)
            .body(move |me: &mut Worker, ctx| {
                let Some(items) = ctx.get(input) else { return };
                let mut split = Vec::new();
                for item in items {
                    if item.num_blocks > cfg.threshold {
                        split.extend(item.split());
                    } else {
                        let mut block = me.c.block_for(item);
                        me.inputs.multiply_leaf(Leaf::Plain, item, &mut block);
                    }
                }
                if !split.is_empty() {
                    ctx.set(output, split);
                }
            });
        (input, output)
    });
    b.connect(work, workers.iter().map(|x| x.0).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.1).collect::<Ports<_>>(), more);
    (
        b.build().expect("the recmatmul program is well formed"),
        MatMul {
            cfg,
            c: Arc::clone(&matrices.c),
        },
    )
}

impl Built for MatMul {
    /// The run has left the product in C; the check waits for [`Built::validate`].
    fn outcome(&mut self, _program: &mut Program) -> Outcome {
        Outcome {
            result: serde_json::Value::Null,
            check: Ok(()),
        }
    }

    /// Checks C after the run (untimed, as Savina's `cleanupIteration`).
    fn validate(&mut self, _outcome: Outcome) -> Outcome {
        check(&self.cfg, Some(&self.c))
    }
}
