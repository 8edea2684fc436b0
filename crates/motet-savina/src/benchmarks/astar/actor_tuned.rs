//! A-star search as motet actors: a Master that owns the parents and W workers that expand the
//! nodes it sends them.

use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::graph::Graph;
use super::search::{expand, Ledger, Next, Proposal, Work};
use super::{check, Config, Found};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;
use crate::random::JavaRandom;

/// Builds the graph and the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let program = Program {
        cfg,
        graph: Arc::new(Graph::new(cfg.grid)),
    };
    motet_support::prepare(program, threads, run)
}

/// The parameters and the graph every iteration shares.
struct Program {
    cfg: Config,
    graph: Arc<Graph>,
}

/// One timed iteration: runs the search and checks it.
fn run(program: &Program, rt: &Runtime) -> Outcome {
    let found = search(&program.cfg, program.graph.clone(), rt);
    check(&program.graph, found.as_ref())
}

/// Runs the Master and the workers to quiescence; what the Master reported.
pub(super) fn search(cfg: &Config, graph: Arc<Graph>, rt: &Runtime) -> Option<Found> {
    let result = ResultSlot::new();
    let ledger = Ledger::new(&graph, cfg.threshold, cfg.workers);
    let master = spawn(
        rt.handle(),
        Master {
            workers_wanted: cfg.workers,
            graph,
            ledger: Some(ledger),
            workers: Vec::new(),
            stopping: false,
            stopped: 0,
            expanded: 0,
            result: result.clone(),
        },
    );
    drop(master);
    rt.wait_quiescent();
    result.take()
}

enum MasterMsg {
    /// A worker's proposals for Work item `seq`.
    Answer { seq: u64, proposals: Vec<Proposal> },
    /// A worker's echo of `Stop`, with how many nodes it expanded.
    Stopped { expanded: u64 },
}

enum WorkerMsg {
    Work(Work),
    Stop,
}

struct Master {
    workers_wanted: usize,
    graph: Arc<Graph>,
    ledger: Option<Ledger>,
    workers: Vec<Addr<WorkerMsg>>,
    stopping: bool,
    stopped: usize,
    expanded: u64,
    result: ResultSlot<Found>,
}

impl Master {
    /// Sends each item round-robin (item `seq` to worker `seq mod W`, as Savina counts).
    fn send(&self, items: Vec<Work>) {
        for work in items {
            let to = (work.seq % self.workers.len() as u64) as usize;
            let _ = self.workers[to].tell(WorkerMsg::Work(work));
        }
    }

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
        for i in 0..self.workers_wanted {
            let worker = ctx.spawn(Worker {
                master: ctx.myself(),
                graph: self.graph.clone(),
                random: JavaRandom::new(i as i64),
                expanded: 0,
            });
            self.workers.push(worker);
        }
        let first = match &mut self.ledger {
            Some(ledger) => ledger.start(&self.graph),
            None => Vec::new(),
        };
        self.send(first);
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg) {
        match msg {
            MasterMsg::Answer { seq, proposals } => {
                let Some(ledger) = &mut self.ledger else {
                    return;
                };
                let Next { send, stop } = ledger.answer(&self.graph, seq, proposals);
                self.send(send);
                if stop {
                    self.stop_workers();
                }
            }
            MasterMsg::Stopped { expanded } => {
                self.expanded += expanded;
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    if let Some(ledger) = self.ledger.take() {
                        self.result.set(Found {
                            nodes_sent: ledger.nodes_sent(),
                            tree: ledger.into_tree(),
                            nodes_expanded: self.expanded,
                        });
                    }
                    self.workers.clear();
                    ctx.stop();
                }
            }
        }
    }
}

struct Worker {
    master: Addr<MasterMsg>,
    graph: Arc<Graph>,
    /// The busy-wait's generator.
    random: JavaRandom,
    expanded: u64,
}

impl Actor for Worker {
    type Msg = WorkerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        match msg {
            WorkerMsg::Work(work) => {
                let proposals = expand(&self.graph, &work.nodes, &mut self.random);
                self.expanded += work.nodes.len() as u64;
                let _ = self.master.tell(MasterMsg::Answer {
                    seq: work.seq,
                    proposals,
                });
            }
            WorkerMsg::Stop => {
                let _ = self.master.tell(MasterMsg::Stopped {
                    expanded: self.expanded,
                });
                ctx.stop();
            }
        }
    }
}
