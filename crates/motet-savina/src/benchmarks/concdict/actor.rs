//! Concurrent Dictionary as motet actors, Savina's flow: the Master creates the Dictionary (which
//! copies the map) and the workers as it starts, and sends each `DoWork`; a request carries the
//! worker's address, which the Dictionary answers.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

pub(super) use super::actor_tuned::prepare as prepare_tuned;
use super::{check, serve, Config, Map, Request, Requests, Tally};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Arc::new(Config::from_params(params)?), threads, run)
}

enum DictionaryMsg {
    Request {
        from: Addr<WorkerMsg>,
        request: Request,
    },
    EndWork,
}

enum WorkerMsg {
    DoWork,
    Result(Option<i32>),
}

/// A worker's `EndWork`.
struct EndWork;

struct Dictionary {
    map: Map,
    writes: u64,
    result: ResultSlot<(u64, usize)>,
}

impl Actor for Dictionary {
    type Msg = DictionaryMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: DictionaryMsg) {
        match msg {
            DictionaryMsg::Request { from, request } => {
                let value = serve(&mut self.map, &mut self.writes, request);
                let _ = from.send(WorkerMsg::Result(value));
            }
            DictionaryMsg::EndWork => {
                self.result.set((self.writes, self.map.len()));
                ctx.stop();
            }
        }
    }
}

struct Master {
    cfg: Arc<Config>,
    ended: usize,
    dictionary: Option<Addr<DictionaryMsg>>,
    report: ResultSlot<(u64, usize)>,
    /// Results and misses, summed over the workers as they stop.
    results: Arc<[AtomicU64; 2]>,
}

impl Actor for Master {
    type Msg = EndWork;

    /// Creates the Dictionary (which copies the map) and the workers, and starts the workers.
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let dictionary = ctx.spawn(Dictionary {
            map: (*self.cfg.data).clone(),
            writes: 0,
            result: self.report.clone(),
        });
        for id in 0..self.cfg.workers {
            let worker = ctx.spawn(Worker {
                requests: self.cfg.requests_of(id),
                limit: self.cfg.requests,
                count: 0,
                misses: 0,
                dictionary: dictionary.clone(),
                master: ctx.myself(),
                results: self.results.clone(),
            });
            let _ = worker.send(WorkerMsg::DoWork);
        }
        self.dictionary = Some(dictionary);
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, EndWork: EndWork) {
        self.ended += 1;
        if self.ended == self.cfg.workers {
            if let Some(dictionary) = self.dictionary.take() {
                let _ = dictionary.send(DictionaryMsg::EndWork);
            }
            ctx.stop();
        }
    }
}

struct Worker {
    requests: Requests,
    limit: u64,
    count: u64,
    dictionary: Addr<DictionaryMsg>,
    master: Addr<EndWork>,
    misses: u64,
    results: Arc<[AtomicU64; 2]>,
}

impl Actor for Worker {
    type Msg = WorkerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        if let WorkerMsg::Result(None) = msg {
            self.misses += 1;
        }
        self.count += 1;
        if self.count <= self.limit {
            let _ = self.dictionary.tell(DictionaryMsg::Request {
                from: ctx.myself(),
                request: self.requests.next_request(),
            });
        } else {
            let _ = self.master.tell(EndWork);
            self.results[0].fetch_add(self.count - 1, Ordering::Relaxed);
            self.results[1].fetch_add(self.misses, Ordering::Relaxed);
            ctx.stop();
        }
    }
}

/// One timed iteration: creates the Master (which creates the Dictionary, copying the map, and
/// the workers), runs them to quiescence and checks the result.
fn run(cfg: &Arc<Config>, rt: &Runtime) -> Outcome {
    let report = ResultSlot::new();
    let results = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let master = spawn(
        rt.handle(),
        Master {
            cfg: cfg.clone(),
            ended: 0,
            dictionary: None,
            report: report.clone(),
            results: results.clone(),
        },
    );
    drop(master);
    rt.wait_quiescent();
    let tally = report.take().map(|(writes, size)| Tally {
        results: results[0].load(Ordering::Relaxed),
        misses: results[1].load(Ordering::Relaxed),
        writes,
        size,
    });
    check(cfg, tally)
}
