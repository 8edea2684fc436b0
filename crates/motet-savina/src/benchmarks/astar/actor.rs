//! A-star search as motet actors, Savina's flow (SPEC.md section 3.27): a Master that creates W
//! workers and forwards Work items round-robin, and workers that search the shared graph
//! ([`search`]) and send back what is left of their queue as Work items, one per node.

use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

pub(super) use super::actor_tuned::prepare as prepare_tuned;
use super::graph::Graph;
use super::nodes::{search, Nodes, Sent};
use super::{check_search, Config, Searched};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the graph and the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let graph = Arc::new(Graph::new(cfg.grid));
    let nodes = Arc::new(Nodes::new(&graph));
    let program = Program { cfg, graph, nodes };
    motet_support::prepare_validated(program, threads, run, validate)
}

/// The parameters, the graph and the search state every iteration shares.
struct Program {
    cfg: Config,
    graph: Arc<Graph>,
    nodes: Arc<Nodes>,
}

/// One timed iteration: runs the Master and the workers to quiescence; how many workers echoed
/// `Stop`, as the Master reported it.
fn run(program: &Program, rt: &Runtime) -> Option<usize> {
    let stopped = ResultSlot::new();
    let master = spawn(
        rt.handle(),
        Master {
            workers_wanted: program.cfg.workers,
            threshold: program.cfg.threshold,
            graph: program.graph.clone(),
            nodes: program.nodes.clone(),
            workers: Vec::new(),
            sent: 0,
            completed: 0,
            stopping: false,
            stopped: 0,
            result: stopped.clone(),
        },
    );
    drop(master);
    rt.wait_quiescent();
    stopped.take()
}

/// Checks the path (untimed) and clears the search state for the next iteration.
fn validate(program: &Program, stopped: Option<usize>) -> Outcome {
    let outcome = check_search(
        &program.graph,
        &Searched {
            nodes: &program.nodes,
            stopped,
            workers: program.cfg.workers,
        },
    );
    program.nodes.clear();
    outcome
}

enum MasterMsg {
    /// A node to search from, to forward to a worker.
    Work(u32),
    /// A worker has finished a Work item.
    Received,
    /// A worker has given the target its parent.
    Done,
    /// A worker's echo of `Stop`.
    Stop,
}

enum WorkerMsg {
    Work(u32),
    Stop,
}

struct Master {
    workers_wanted: usize,
    threshold: usize,
    graph: Arc<Graph>,
    nodes: Arc<Nodes>,
    workers: Vec<Addr<WorkerMsg>>,
    /// Work items sent and finished.
    sent: u64,
    completed: u64,
    stopping: bool,
    stopped: usize,
    result: ResultSlot<usize>,
}

impl Master {
    /// Savina's `sendWork`: item `sent` to worker `sent mod W`.
    fn send_work(&mut self, node: u32) {
        let to = (self.sent % self.workers.len() as u64) as usize;
        self.sent += 1;
        let _ = self.workers[to].tell(WorkerMsg::Work(node));
    }

    /// Sends every worker `Stop`, once. Work items that come after it are not forwarded: they
    /// would reach stopped workers.
    fn stop_workers(&mut self) {
        if !std::mem::replace(&mut self.stopping, true) {
            for worker in &self.workers {
                let _ = worker.tell(WorkerMsg::Stop);
            }
        }
    }
}

impl Actor for Master {
    type Msg = MasterMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        for _ in 0..self.workers_wanted {
            let worker = ctx.spawn(Worker {
                master: ctx.myself(),
                threshold: self.threshold,
                graph: self.graph.clone(),
                nodes: self.nodes.clone(),
            });
            self.workers.push(worker);
        }
        self.send_work(self.graph.origin());
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg) {
        match msg {
            MasterMsg::Work(node) => {
                if !self.stopping {
                    self.send_work(node);
                }
            }
            MasterMsg::Received => {
                self.completed += 1;
                if self.completed == self.sent {
                    self.stop_workers();
                }
            }
            MasterMsg::Done => self.stop_workers(),
            MasterMsg::Stop => {
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    self.result.set(self.stopped);
                    self.workers.clear();
                    ctx.stop();
                }
            }
        }
    }
}

struct Worker {
    master: Addr<MasterMsg>,
    threshold: usize,
    graph: Arc<Graph>,
    nodes: Arc<Nodes>,
}

impl Actor for Worker {
    type Msg = WorkerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        match msg {
            WorkerMsg::Work(start) => {
                let master = &self.master;
                search(&self.graph, &self.nodes, start, self.threshold, |sent| {
                    let _ = master.tell(match sent {
                        Sent::Done => MasterMsg::Done,
                        Sent::Work(node) => MasterMsg::Work(node),
                    });
                });
                let _ = self.master.tell(MasterMsg::Received);
            }
            WorkerMsg::Stop => {
                let _ = self.master.tell(MasterMsg::Stop);
                ctx.stop();
            }
        }
    }
}
