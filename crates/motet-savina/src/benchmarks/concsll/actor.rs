//! Concurrent Sorted Linked List as motet actors.
//!
//! A request carries the worker's id, and the List answers through its table of the workers'
//! addresses (handed over in `Init`), so no address is cloned per request. The List keeps SPEC.md's
//! linked list; under `actor-tuned` a vector (deviation `vec-list`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, ListKind, Request, Requests, SortedList};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(
        (Config::from_params(params)?, ListKind::Linked),
        threads,
        run,
    )
}

/// [`prepare`] with the List in a vector (deviation `vec-list`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, ListKind::Vec), threads, run)
}

enum ListMsg {
    /// The workers' addresses, by id.
    Init(Vec<Addr<WorkerMsg>>),
    Request {
        from: u32,
        request: Request,
    },
    EndWork,
}

enum WorkerMsg {
    DoWork,
    /// The List's answer (Savina's workers ignore its value).
    Result,
}

/// A worker's `EndWork`.
struct EndWork;

struct List {
    list: SortedList,
    workers: Vec<Addr<WorkerMsg>>,
    result: ResultSlot<SortedList>,
}

impl Actor for List {
    type Msg = ListMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ListMsg) {
        match msg {
            ListMsg::Init(workers) => self.workers = workers,
            ListMsg::Request { from, request } => {
                std::hint::black_box(self.list.serve(request));
                let _ = self.workers[from as usize].tell(WorkerMsg::Result);
            }
            ListMsg::EndWork => {
                self.workers.clear();
                self.result.set(std::mem::take(&mut self.list));
                ctx.stop();
            }
        }
    }
}

struct Master {
    workers: usize,
    ended: usize,
    list: Option<Addr<ListMsg>>,
}

impl Actor for Master {
    type Msg = EndWork;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, EndWork: EndWork) {
        self.ended += 1;
        if self.ended == self.workers {
            if let Some(list) = self.list.take() {
                let _ = list.send(ListMsg::EndWork);
            }
            ctx.stop();
        }
    }
}

struct Worker {
    id: u32,
    requests: Requests,
    limit: u64,
    count: u64,
    list: Addr<ListMsg>,
    master: Addr<EndWork>,
    results: Arc<AtomicU64>,
}

impl Actor for Worker {
    type Msg = WorkerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: WorkerMsg) {
        self.count += 1;
        if self.count <= self.limit {
            let _ = self.list.tell(ListMsg::Request {
                from: self.id,
                request: self.requests.next_request(),
            });
        } else {
            let _ = self.master.tell(EndWork);
            self.results.fetch_add(self.count - 1, Ordering::Relaxed);
            ctx.stop();
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run((cfg, kind): &(Config, ListKind), rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let report = ResultSlot::new();
    let results = Arc::new(AtomicU64::new(0));
    let list = spawn(
        h,
        List {
            list: SortedList::new(*kind),
            workers: Vec::new(),
            result: report.clone(),
        },
    );
    let master = spawn(
        h,
        Master {
            workers: cfg.workers,
            ended: 0,
            list: Some(list.clone()),
        },
    );
    let workers: Vec<Addr<WorkerMsg>> = (0..cfg.workers)
        .map(|id| {
            spawn(
                h,
                Worker {
                    id: id as u32,
                    requests: cfg.requests_of(id),
                    limit: cfg.requests,
                    count: 0,
                    list: list.clone(),
                    master: master.clone(),
                    results: results.clone(),
                },
            )
        })
        .collect();
    drop(master);
    let _ = list.send(ListMsg::Init(workers.clone()));
    for worker in workers {
        let _ = worker.send(WorkerMsg::DoWork);
    }
    rt.wait_quiescent();
    let final_list = report.take();
    check(cfg, results.load(Ordering::Relaxed), final_list.as_ref())
}
