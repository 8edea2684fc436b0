//! Concurrent Dictionary as reactors, after LF's port.
//!
//! A Manager, the Dictionary and a bank of E workers. The Manager's `do_work` reaches every worker
//! at startup; a worker sends its next request on `request` whenever it starts or gets an answer,
//! and after M answers reports `finished` to the Manager instead. The Dictionary serves the
//! requests of a tag in worker order (its multiport's channel order, so every run serves the same
//! sequence) and answers them one microstep later through its logical action `answer`, which
//! breaks the cycle Dictionary → worker → Dictionary. The Dictionary copies Savina's 524,287-entry
//! map at startup, inside the timed run as Savina does. Once every worker has finished, the Manager
//! asks the Dictionary for its size. A run is about 2M tags of E requests each.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, serve, Config, Map, Request, Requests, Tally};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The Dictionary's state.
struct Dictionary {
    map: Map,
    writes: u64,
    /// The answers of the current tag, with their workers, in ascending worker order.
    answers: Vec<(u32, Option<i32>)>,
    /// The size reported at the end.
    size: Option<usize>,
}

/// A worker's state.
struct Worker {
    requests: Requests,
    count: u64,
    misses: u64,
}

/// What reads the result of a built program: the Dictionary and the workers.
pub(super) struct ConcDict {
    cfg: Config,
    dictionary: ReactorId<Dictionary>,
    workers: Vec<ReactorId<Worker>>,
}

/// Builds the program for `cfg.workers` workers.
pub(super) fn build(cfg: &Config) -> (Program, ConcDict) {
    let e = cfg.workers;
    let limit = cfg.requests;
    let mut b = ProgramBuilder::new();
    let manager = b.reactor("manager", 0usize);
    let do_work = b.output::<(), _>(manager, "do_work");
    let finished = b.input_multiport::<(), _>(manager, "finished", e);
    let end = b.output::<(), _>(manager, "end");
    b.reaction(manager, "start")
        .trigger(Startup)
        .effect(do_work)
        .body(move |_, ctx| ctx.set(do_work, ()));
    b.reaction(manager, "count")
        .trigger(finished)
        .effect(end)
        .body(move |ended: &mut usize, ctx| {
            *ended += ctx.present_count(finished);
            if *ended == e {
                ctx.set(end, ());
            }
        });
    let data = cfg.data.clone();
    let dictionary = b.reactor(
        "dictionary",
        Dictionary {
            map: Map::default(),
            writes: 0,
            answers: Vec::with_capacity(e),
            size: None,
        },
    );
    let requests = b.input_multiport::<Request, _>(dictionary, "request", e);
    let responses = b.output_multiport::<Option<i32>, _>(dictionary, "response", e);
    let end_in = b.input::<(), _>(dictionary, "end");
    let answer = b.logical_action::<(), _>(dictionary, "answer", Duration::ZERO);
    b.reaction(dictionary, "copy")
        .trigger(Startup)
        .body(move |d: &mut Dictionary, _| d.map = (*data).clone());
    b.reaction(dictionary, "answer")
        .trigger(answer)
        .effect(responses)
        .body(move |d: &mut Dictionary, ctx| {
            // In descending order: on one worker the workers then run in ascending order (a level's
            // reactions are taken last in, first out), so their requests arrive sorted and
            // `present_sorted` finds them so in one scan (any order is correct, only slower).
            for &(i, value) in d.answers.iter().rev() {
                ctx.set(responses.channel(i as usize), value);
            }
            d.answers.clear();
        });
    b.reaction(dictionary, "serve")
        .trigger(requests)
        .effect(answer)
        .body(move |d: &mut Dictionary, ctx| {
            for (i, &request) in ctx.present_sorted(requests) {
                let value = serve(&mut d.map, &mut d.writes, request);
                d.answers.push((i as u32, value));
            }
            ctx.schedule(answer, (), Duration::ZERO);
        });
    b.reaction(dictionary, "end")
        .trigger(end_in)
        .body(move |d: &mut Dictionary, _| d.size = Some(d.map.len()));
    b.connect(end, end_in);
    let workers = b.bank(e, |b, id| {
        let r = b.reactor(
            &format!("worker[{id}]"),
            Worker {
                requests: cfg.requests_of(id),
                count: 0,
                misses: 0,
            },
        );
        let do_work_in = b.input::<(), _>(r, "do_work");
        let response = b.input::<Option<i32>, _>(r, "response");
        let request = b.output::<Request, _>(r, "request");
        let done = b.output::<(), _>(r, "finished");
        b.reaction(r, "next")
            .trigger(do_work_in)
            .trigger(response)
            .effect(request)
            .effect(done)
            .body(move |w: &mut Worker, ctx| {
                if let Some(None) = ctx.get(response) {
                    w.misses += 1;
                }
                w.count += 1;
                if w.count <= limit {
                    ctx.set(request, w.requests.next_request());
                } else {
                    ctx.set(done, ());
                }
            });
        (r, do_work_in, response, request, done)
    });
    b.connect_broadcast(do_work, workers.iter().map(|x| x.1).collect::<Ports<()>>());
    b.connect(responses, workers.iter().map(|x| x.2).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.3).collect::<Ports<_>>(), requests);
    b.connect(workers.iter().map(|x| x.4).collect::<Ports<_>>(), finished);
    (
        b.build().expect("the concdict program is well formed"),
        ConcDict {
            cfg: cfg.clone(),
            dictionary,
            workers: workers.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for ConcDict {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let (mut results, mut misses) = (0, 0);
        for &r in &self.workers {
            let w = program.state_mut(r);
            results += w.count.saturating_sub(1);
            misses += w.misses;
        }
        let d = program.state_mut(self.dictionary);
        let tally = d.size.map(|size| Tally {
            results,
            misses,
            writes: d.writes,
            size,
        });
        check(&self.cfg, tally)
    }
}
