//! Concurrent Sorted Linked List as motet actors.
//!
//! Savina's flow: the Master creates the List and the workers as it starts and sends each
//! `DoWork`; a request carries the worker's address, which the List answers. The List keeps
//! SPEC.md's linked list; under `actor-tuned` a vector (deviation `vec-list`).

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
    Request {
        from: Addr<WorkerMsg>,
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
    result: ResultSlot<SortedList>,
}

impl Actor for List {
    type Msg = ListMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ListMsg) {
        match msg {
            ListMsg::Request { from, request } => {
                std::hint::black_box(self.list.serve(request));
                let _ = from.send(WorkerMsg::Result);
            }
            ListMsg::EndWork => {
                self.result.set(std::mem::take(&mut self.list));
                ctx.stop();
            }
        }
    }
}

struct Master {
    cfg: Config,
    kind: ListKind,
    ended: usize,
    list: Option<Addr<ListMsg>>,
    report: ResultSlot<SortedList>,
    results: Arc<AtomicU64>,
}

impl Actor for Master {
    type Msg = EndWork;

    /// Creates the List and the workers, and starts the workers.
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let list = ctx.spawn(List {
            list: SortedList::new(self.kind),
            result: self.report.clone(),
        });
        for id in 0..self.cfg.workers {
            let worker = ctx.spawn(Worker {
                requests: self.cfg.requests_of(id),
                limit: self.cfg.requests,
                count: 0,
                list: list.clone(),
                master: ctx.myself(),
                results: self.results.clone(),
            });
            let _ = worker.send(WorkerMsg::DoWork);
        }
        self.list = Some(list);
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, EndWork: EndWork) {
        self.ended += 1;
        if self.ended == self.cfg.workers {
            if let Some(list) = self.list.take() {
                let _ = list.send(ListMsg::EndWork);
            }
            ctx.stop();
        }
    }
}

struct Worker {
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
                from: ctx.myself(),
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
    let report = ResultSlot::new();
    let results = Arc::new(AtomicU64::new(0));
    let master = spawn(
        rt.handle(),
        Master {
            cfg: *cfg,
            kind: *kind,
            ended: 0,
            list: None,
            report: report.clone(),
            results: results.clone(),
        },
    );
    drop(master);
    rt.wait_quiescent();
    let final_list = report.take();
    check(cfg, results.load(Ordering::Relaxed), final_list.as_ref())
}
