//! A-star search as reactors, after LF's port (a Manager and a bank of W workers, as in its
//! GuidedSearch).
//!
//! The Manager owns the search's parents and distances (the shared [`Ledger`]); at each tag (its
//! logical action `next`) it sends the Work items due on its `work` multiport, item `seq` to worker
//! `seq mod W` (Savina's round robin; a worker may get several at once). A worker expands its items
//! (busy-wait, then every neighbour proposed with the node as parent) and answers with the
//! proposals of each item. The Manager merges the answers of the tag in send order; the nodes that
//! got a parent become the next tag's Work items. When the target has a parent, or nothing is left,
//! the Manager sends only the items already cut and then nothing more. LF's port lets the workers
//! write parents into a shared grid; here the Manager alone writes them, so every run searches the
//! same nodes.
//!
//! [`Ledger`]: super::search::Ledger

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::graph::Graph;
use super::search::{expand, Ledger, Next, Proposal, Work};
use super::{check, Config, Found};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::random::JavaRandom;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters and the graph are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, Arc::new(Graph::new(cfg.grid))), threads, model, build)
}

/// The Manager's state.
struct Manager {
    graph: Arc<Graph>,
    ledger: Ledger,
    /// Work items to send at the next tag.
    outbox: Vec<Work>,
}

/// A worker's state: its busy-wait generator and the nodes it expanded.
struct Worker {
    graph: Arc<Graph>,
    random: JavaRandom,
    expanded: u64,
}

/// What reads the result of a built program: the Manager and the workers.
pub(super) struct AStar {
    graph: Arc<Graph>,
    manager: ReactorId<Option<Manager>>,
    workers: Vec<ReactorId<Worker>>,
}

/// Builds the program for `cfg.workers` workers.
fn build(&(cfg, ref graph): &(Config, Arc<Graph>)) -> (Program, AStar) {
    let w = cfg.workers;
    let mut b = ProgramBuilder::new();
    let manager = b.reactor(
        "manager",
        Some(Manager {
            graph: Arc::clone(graph),
            ledger: Ledger::new(graph, cfg.threshold, w),
            outbox: Vec::new(),
        }),
    );
    let work = b.output_multiport::<Vec<Work>, _>(manager, "work", w);
    let answers = b.input_multiport::<Vec<(u64, Vec<Proposal>)>, _>(manager, "answers", w);
    let next = b.logical_action::<(), _>(manager, "next", Duration::ZERO);
    b.reaction(manager, "start")
        .trigger(Startup)
        .effect(next)
        .body(move |m: &mut Option<Manager>, ctx| {
            let Some(m) = m else { return };
            m.outbox = m.ledger.start(&m.graph);
            ctx.schedule(next, (), Duration::ZERO);
        });
    b.reaction(manager, "send").trigger(next).effect(work).body(
        move |m: &mut Option<Manager>, ctx| {
            let Some(m) = m else { return };
            let mut batches: Vec<Vec<Work>> = (0..w).map(|_| Vec::new()).collect();
            for item in m.outbox.drain(..) {
                batches[(item.seq % w as u64) as usize].push(item);
            }
            for (i, batch) in batches.into_iter().enumerate() {
                if !batch.is_empty() {
                    ctx.set(work.channel(i), batch);
                }
            }
        },
    );
    b.reaction(manager, "merge")
        .trigger(answers)
        .effect(next)
        .body(move |m: &mut Option<Manager>, ctx| {
            let Some(m) = m else { return };
            let mut due: Vec<(u64, Vec<Proposal>)> = Vec::new();
            for (_, items) in ctx.present_unordered(answers) {
                due.extend(items.iter().map(|(seq, p)| (*seq, p.clone())));
            }
            due.sort_unstable_by_key(|x| x.0);
            for (seq, proposals) in due {
                let Next { send, .. } = m.ledger.answer(&m.graph, seq, proposals);
                m.outbox.extend(send);
            }
            if !m.outbox.is_empty() {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let workers = b.bank(w, |b, i| {
        let r = b.reactor(
            &format!("worker[{i}]"),
            Worker {
                graph: Arc::clone(graph),
                random: JavaRandom::new(i as i64),
                expanded: 0,
            },
        );
        let input = b.input::<Vec<Work>, _>(r, "work");
        let output = b.output::<Vec<(u64, Vec<Proposal>)>, _>(r, "answers");
        b.reaction(r, "expand")
            .trigger(input)
            .effect(output)
            .body(move |me: &mut Worker, ctx| {
                let Some(items) = ctx.get(input) else { return };
                let answers = items
                    .iter()
                    .map(|item| {
                        me.expanded += item.nodes.len() as u64;
                        (item.seq, expand(&me.graph, &item.nodes, &mut me.random))
                    })
                    .collect();
                ctx.set(output, answers);
            });
        (r, input, output)
    });
    b.connect(work, workers.iter().map(|x| x.1).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.2).collect::<Ports<_>>(), answers);
    (
        b.build().expect("the astar program is well formed"),
        AStar {
            graph: Arc::clone(graph),
            manager,
            workers: workers.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for AStar {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let expanded: u64 = self
            .workers
            .iter()
            .map(|&r| program.state_mut(r).expanded)
            .sum();
        let found = program.state_mut(self.manager).take().map(|m| Found {
            nodes_sent: m.ledger.nodes_sent(),
            tree: m.ledger.into_tree(),
            nodes_expanded: expanded,
        });
        check(&self.graph, found.as_ref())
    }
}
