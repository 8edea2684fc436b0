//! A-star search as reactors, with the actor program's flow (a Manager and a bank of W workers, as
//! LF's GuidedSearch is shaped).
//!
//! At each tag (its logical action `next`) the Manager sends the Work items it has to forward on
//! its `work` multiport, item `sent` to worker `sent mod W` (Savina's round robin; a worker may get
//! several at once). A worker runs Savina's search from each item's node on the shared search
//! state ([`Nodes`], the parents set by compare-and-swap, each node after the busy-wait on the one
//! shared `Math.random()`), as the actors do, and answers with what the actor sends the Master, in
//! order: the nodes left in its queue as Work items, or `Done`, then `Received`. The Manager takes
//! a tag's answers in worker order and forwards the Work items at the next tag; on `Done`, or once
//! every item sent is received, it sends the workers `Stop`, which they echo. As with the actors,
//! the workers of one tag search the shared state in parallel, so the nodes searched and the path
//! found depend on timing (SPEC.md sections 3.27 and 6).
//!
//! The search state is cleared when the next iteration's program is built (untimed), and the
//! path is checked after the run (untimed, as Savina's `cleanupIteration`).

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::graph::Graph;
use super::nodes::{search, Nodes, Sent};
use super::{check_search, Config, Searched};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters, the graph and the search state are made once, untimed, for every iteration's
/// program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    let graph = Arc::new(Graph::new(cfg.grid));
    let nodes = Arc::new(Nodes::new(&graph));
    reactor_support::prepare((cfg, graph, nodes), threads, model, build)
}

/// What a worker sends the Manager, in the order the actor sends it.
#[derive(Clone, Copy, Debug)]
enum Report {
    /// A node left in the queue, as a Work item.
    Work(u32),
    /// The search gave the target its parent.
    Done,
    /// A Work item finished.
    Received,
}

/// The Manager's state (Savina's Master).
struct Manager {
    workers: usize,
    /// Work items to forward at the next tag, each with the worker it goes to.
    outbox: Vec<(usize, u32)>,
    sent: u64,
    completed: u64,
    stopping: bool,
    /// Workers that echoed `Stop`.
    stopped: usize,
}

impl Manager {
    /// Savina's `sendWork`: item `sent` goes to worker `sent mod W` (sent at the next tag).
    fn forward(&mut self, node: u32) {
        let to = (self.sent % self.workers as u64) as usize;
        self.sent += 1;
        self.outbox.push((to, node));
    }
}

/// A worker's state.
struct Worker {
    graph: Arc<Graph>,
    nodes: Arc<Nodes>,
    threshold: usize,
}

/// What reads the result of a built program: the Manager, and the search state to check.
pub(super) struct AStar {
    graph: Arc<Graph>,
    nodes: Arc<Nodes>,
    workers: usize,
    manager: ReactorId<Manager>,
    /// The Manager's count of `Stop` echoes, read after the run.
    stopped: Option<usize>,
}

/// Builds the program for `cfg.workers` workers, on a cleared search state.
fn build((cfg, graph, nodes): &(Config, Arc<Graph>, Arc<Nodes>)) -> (Program, AStar) {
    nodes.clear();
    let w = cfg.workers;
    let mut b = ProgramBuilder::new();
    let manager = b.reactor(
        "manager",
        Manager {
            workers: w,
            outbox: Vec::new(),
            sent: 0,
            completed: 0,
            stopping: false,
            stopped: 0,
        },
    );
    let work = b.output_multiport::<Vec<u32>, _>(manager, "work", w);
    let stop = b.output_multiport::<(), _>(manager, "stop", w);
    let reports = b.input_multiport::<Vec<Report>, _>(manager, "reports", w);
    let echoes = b.input_multiport::<(), _>(manager, "echoes", w);
    let next = b.logical_action::<(), _>(manager, "next", Duration::ZERO);
    let origin = graph.origin();
    b.reaction(manager, "start")
        .trigger(Startup)
        .effect(next)
        .body(move |m: &mut Manager, ctx| {
            m.forward(origin);
            ctx.schedule(next, (), Duration::ZERO);
        });
    b.reaction(manager, "send")
        .trigger(next)
        .effect(work)
        .body(move |m: &mut Manager, ctx| {
            let mut batches: Vec<Vec<u32>> = vec![Vec::new(); m.workers];
            for (to, node) in m.outbox.drain(..) {
                batches[to].push(node);
            }
            for (i, batch) in batches.into_iter().enumerate() {
                if !batch.is_empty() {
                    ctx.set(work.channel(i), batch);
                }
            }
        });
    b.reaction(manager, "answers")
        .trigger(reports)
        .effect(next)
        .effect(stop)
        .body(move |m: &mut Manager, ctx| {
            let mut stop_now = false;
            for (_, reports) in ctx.present(reports) {
                for &report in reports {
                    match report {
                        Report::Work(node) if !m.stopping && !stop_now => m.forward(node),
                        Report::Work(_) => {}
                        Report::Done => stop_now = true,
                        Report::Received => {
                            m.completed += 1;
                            stop_now |= m.completed == m.sent;
                        }
                    }
                }
            }
            if stop_now && !std::mem::replace(&mut m.stopping, true) {
                // Items not yet forwarded would reach stopped workers.
                m.outbox.clear();
                for i in 0..m.workers {
                    ctx.set(stop.channel(i), ());
                }
            }
            if !m.outbox.is_empty() {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    b.reaction(manager, "echoes")
        .trigger(echoes)
        .body(move |m: &mut Manager, ctx| m.stopped += ctx.present_count(echoes));
    let workers = b.bank(w, |b, i| {
        let r = b.reactor(
            &format!("worker[{i}]"),
            Worker {
                graph: Arc::clone(graph),
                nodes: Arc::clone(nodes),
                threshold: cfg.threshold,
            },
        );
        let input = b.input::<Vec<u32>, _>(r, "work");
        let stop_in = b.input::<(), _>(r, "stop");
        let output = b.output::<Vec<Report>, _>(r, "reports");
        let echo = b.output::<(), _>(r, "echo");
        b.reaction(r, "search")
            .trigger(input)
            .effect(output)
            .body(move |me: &mut Worker, ctx| {
                let Some(items) = ctx.get(input) else { return };
                let mut out = Vec::new();
                for &start in items {
                    search(&me.graph, &me.nodes, start, me.threshold, |sent| {
                        out.push(match sent {
                            Sent::Done => Report::Done,
                            Sent::Work(node) => Report::Work(node),
                        })
                    });
                    out.push(Report::Received);
                }
                ctx.set(output, out);
            });
        b.reaction(r, "stop")
            .trigger(stop_in)
            .effect(echo)
            .body(move |_: &mut Worker, ctx| ctx.set(echo, ()));
        (input, stop_in, output, echo)
    });
    b.connect(work, workers.iter().map(|x| x.0).collect::<Ports<_>>());
    b.connect(stop, workers.iter().map(|x| x.1).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.2).collect::<Ports<_>>(), reports);
    b.connect(workers.iter().map(|x| x.3).collect::<Ports<_>>(), echoes);
    (
        b.build().expect("the astar program is well formed"),
        AStar {
            graph: Arc::clone(graph),
            nodes: Arc::clone(nodes),
            workers: w,
            manager,
            stopped: None,
        },
    )
}

impl Built for AStar {
    /// Reads the Manager's count of `Stop` echoes; the check waits for [`Built::validate`].
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let m = program.state_mut(self.manager);
        self.stopped = m.stopping.then_some(m.stopped);
        Outcome {
            result: serde_json::Value::Null,
            check: Ok(()),
        }
    }

    /// Savina's check, untimed: every worker echoed `Stop` and the parents lead from the target
    /// to the origin.
    fn validate(&mut self, _outcome: Outcome) -> Outcome {
        check_search(
            &self.graph,
            &Searched {
                nodes: &self.nodes,
                stopped: self.stopped,
                workers: self.workers,
            },
        )
    }
}
