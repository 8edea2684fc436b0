//! Concurrent Dictionary as motet actors, tuned (deviations `init-message`, `main-creates-actors`,
//! `tuned-hash`, `lcg-requests`).
//!
//! A request carries the worker's id, and the Dictionary answers through its table of the workers'
//! addresses (handed over in `Init`), so no address is cloned per request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check_tuned as check, serve, Config, Request, Requests, Tally, TunedMap as Map};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum DictionaryMsg {
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
    Result(Option<i32>),
}

/// A worker's `EndWork`.
struct EndWork;

struct Dictionary {
    map: Map,
    workers: Vec<Addr<WorkerMsg>>,
    writes: u64,
    result: ResultSlot<(u64, usize)>,
}

impl Actor for Dictionary {
    type Msg = DictionaryMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: DictionaryMsg) {
        match msg {
            DictionaryMsg::Init(workers) => self.workers = workers,
            DictionaryMsg::Request { from, request } => {
                let value = serve(&mut self.map, &mut self.writes, request);
                let _ = self.workers[from as usize].tell(WorkerMsg::Result(value));
            }
            DictionaryMsg::EndWork => {
                self.workers.clear();
                self.result.set((self.writes, self.map.len()));
                ctx.stop();
            }
        }
    }
}

struct Master {
    workers: usize,
    ended: usize,
    dictionary: Option<Addr<DictionaryMsg>>,
}

impl Actor for Master {
    type Msg = EndWork;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, EndWork: EndWork) {
        self.ended += 1;
        if self.ended == self.workers {
            if let Some(dictionary) = self.dictionary.take() {
                let _ = dictionary.send(DictionaryMsg::EndWork);
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
    dictionary: Addr<DictionaryMsg>,
    master: Addr<EndWork>,
    misses: u64,
    /// Results and misses, summed over the workers as they stop.
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
                from: self.id,
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

/// One timed iteration: copies the map into the Dictionary (timed, as in Savina), creates the
/// actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let report = ResultSlot::new();
    let results = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let dictionary = spawn(
        h,
        Dictionary {
            map: (*cfg.tuned_data).clone(),
            workers: Vec::new(),
            writes: 0,
            result: report.clone(),
        },
    );
    let master = spawn(
        h,
        Master {
            workers: cfg.workers,
            ended: 0,
            dictionary: Some(dictionary.clone()),
        },
    );
    let workers: Vec<Addr<WorkerMsg>> = (0..cfg.workers)
        .map(|id| {
            spawn(
                h,
                Worker {
                    id: id as u32,
                    requests: cfg.tuned_requests_of(id),
                    limit: cfg.requests,
                    count: 0,
                    misses: 0,
                    dictionary: dictionary.clone(),
                    master: master.clone(),
                    results: results.clone(),
                },
            )
        })
        .collect();
    drop(master);
    let _ = dictionary.send(DictionaryMsg::Init(workers.clone()));
    for worker in workers {
        let _ = worker.send(WorkerMsg::DoWork);
    }
    rt.wait_quiescent();
    let tally = report.take().map(|(writes, size)| Tally {
        results: results[0].load(Ordering::Relaxed),
        misses: results[1].load(Ordering::Relaxed),
        writes,
        size,
    });
    check(cfg, tally)
}
