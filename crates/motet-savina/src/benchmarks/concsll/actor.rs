//! Concurrent Sorted Linked List as motet actors.
//!
//! Savina's flow: the Master creates the List and the workers as it starts and sends each
//! `DoWork`; a request carries the worker's address, which the List answers. The List keeps
//! SPEC.md's linked list; under `actor-tuned` a vector (deviation `vec-list`). The Master and the
//! workers are the [`request_actors`] scaffolding Concurrent Dictionary shares.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_runtime::Runtime;

use super::{check, Config, ListKind, Request, Requests, SortedList};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::request_actors::{self, Client, Plan, Serve, WorkerMsg};
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

/// The List's state.
struct List {
    list: SortedList,
    result: ResultSlot<SortedList>,
}

impl Serve for List {
    type Request = Request;
    /// The List's answer (Savina's workers ignore its value).
    type Response = ();

    #[inline]
    fn serve(&mut self, request: Request) {
        std::hint::black_box(self.list.serve(request));
    }

    fn end(&mut self) {
        self.result.set(std::mem::take(&mut self.list));
    }
}

/// A worker's requests.
struct Asker {
    requests: Requests,
    /// Results, summed over the workers as they stop.
    results: Arc<AtomicU64>,
}

impl Client for Asker {
    type Request = Request;
    type Response = ();

    #[inline]
    fn next_request(&mut self) -> Request {
        self.requests.next_request()
    }

    #[inline]
    fn answered(&mut self, _msg: WorkerMsg<()>) {}

    fn finished(&mut self, answers: u64) {
        self.results.fetch_add(answers, Ordering::Relaxed);
    }
}

/// One run's List and workers.
struct Lists {
    cfg: Config,
    kind: ListKind,
    report: ResultSlot<SortedList>,
    results: Arc<AtomicU64>,
}

impl Plan for Lists {
    type Server = List;
    type Client = Asker;

    fn server(&self) -> List {
        List {
            list: SortedList::new(self.kind),
            result: self.report.clone(),
        }
    }

    fn client(&self, id: usize) -> Asker {
        Asker {
            requests: self.cfg.requests_of(id),
            results: self.results.clone(),
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run((cfg, kind): &(Config, ListKind), rt: &Runtime) -> Outcome {
    let report = ResultSlot::new();
    let results = Arc::new(AtomicU64::new(0));
    let plan = Lists {
        cfg: *cfg,
        kind: *kind,
        report: report.clone(),
        results: results.clone(),
    };
    request_actors::run(rt, plan, cfg.workers, cfg.requests);
    let final_list = report.take();
    check(cfg, results.load(Ordering::Relaxed), final_list.as_ref())
}
