//! Concurrent Dictionary as motet actors, Savina's flow: the Master creates the Dictionary (which
//! copies the map) and the workers as it starts, and sends each `DoWork`; a request carries the
//! worker's address, which the Dictionary answers. The Master and the workers are the
//! [`request_actors`] scaffolding Concurrent Sorted Linked List shares.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_runtime::Runtime;

pub(super) use super::actor_tuned::prepare as prepare_tuned;
use super::{check, serve, Config, Map, Request, Requests, Tally};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::request_actors::{self, Client, Plan, Serve, WorkerMsg};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Arc::new(Config::from_params(params)?), threads, run)
}

/// The Dictionary's state.
struct Dictionary {
    map: Map,
    writes: u64,
    result: ResultSlot<(u64, usize)>,
}

impl Serve for Dictionary {
    type Request = Request;
    type Response = Option<i32>;

    #[inline]
    fn serve(&mut self, request: Request) -> Option<i32> {
        serve(&mut self.map, &mut self.writes, request)
    }

    fn end(&mut self) {
        self.result.set((self.writes, self.map.len()));
    }
}

/// A worker's requests and the reads that found no value.
struct Asker {
    requests: Requests,
    misses: u64,
    /// Results and misses, summed over the workers as they stop.
    results: Arc<[AtomicU64; 2]>,
}

impl Client for Asker {
    type Request = Request;
    type Response = Option<i32>;

    #[inline]
    fn next_request(&mut self) -> Request {
        self.requests.next_request()
    }

    #[inline]
    fn answered(&mut self, msg: WorkerMsg<Option<i32>>) {
        if let WorkerMsg::Result(None) = msg {
            self.misses += 1;
        }
    }

    fn finished(&mut self, answers: u64) {
        self.results[0].fetch_add(answers, Ordering::Relaxed);
        self.results[1].fetch_add(self.misses, Ordering::Relaxed);
    }
}

/// One run's Dictionary (a copy of the map, made as the Master starts) and workers.
struct Dict {
    cfg: Arc<Config>,
    report: ResultSlot<(u64, usize)>,
    results: Arc<[AtomicU64; 2]>,
}

impl Plan for Dict {
    type Server = Dictionary;
    type Client = Asker;

    fn server(&self) -> Dictionary {
        Dictionary {
            map: (*self.cfg.data).clone(),
            writes: 0,
            result: self.report.clone(),
        }
    }

    fn client(&self, id: usize) -> Asker {
        Asker {
            requests: self.cfg.requests_of(id),
            misses: 0,
            results: self.results.clone(),
        }
    }
}

/// One timed iteration: creates the Master (which creates the Dictionary, copying the map, and
/// the workers), runs them to quiescence and checks the result.
fn run(cfg: &Arc<Config>, rt: &Runtime) -> Outcome {
    let report = ResultSlot::new();
    let results = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let plan = Dict {
        cfg: cfg.clone(),
        report: report.clone(),
        results: results.clone(),
    };
    request_actors::run(rt, plan, cfg.workers, cfg.requests);
    let tally = report.take().map(|(writes, size)| Tally {
        results: results[0].load(Ordering::Relaxed),
        misses: results[1].load(Ordering::Relaxed),
        writes,
        size,
    });
    check(cfg, tally)
}
