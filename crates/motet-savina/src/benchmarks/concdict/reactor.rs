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

use motet_reactor::{Ctx, Input, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, serve, Config, Map, Request, Requests, Tally};
use crate::bench::{Model, Outcome, Prepared};
use crate::benchmarks::request_workers::{self, Client, Worker};
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

/// A worker's requests, and the reads it got no value for.
struct Asker {
    requests: Requests,
    misses: u64,
}

impl Client for Asker {
    type Request = Request;
    type Response = Option<i32>;

    #[inline]
    fn next_request(&mut self) -> Request {
        self.requests.next_request()
    }

    #[inline]
    fn answered(&mut self, ctx: &Ctx<'_>, response: Input<Option<i32>>) {
        if let Some(None) = ctx.get(response) {
            self.misses += 1;
        }
    }
}

/// What reads the result of a built program: the Dictionary and the workers.
pub(super) struct ConcDict {
    cfg: Config,
    dictionary: ReactorId<Dictionary>,
    workers: Vec<ReactorId<Worker<Asker>>>,
}

/// Builds the program for `cfg.workers` workers.
pub(super) fn build(cfg: &Config) -> (Program, ConcDict) {
    let e = cfg.workers;
    let limit = cfg.requests;
    let mut b = ProgramBuilder::new();
    let manager = request_workers::manager(&mut b, e);
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
    b.connect(manager.end, end_in);
    let workers =
        request_workers::workers(&mut b, &manager, limit, requests, responses, |id| Asker {
            requests: cfg.requests_of(id),
            misses: 0,
        });
    (
        b.build().expect("the concdict program is well formed"),
        ConcDict {
            cfg: cfg.clone(),
            dictionary,
            workers,
        },
    )
}

impl Built for ConcDict {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let (mut results, mut misses) = (0, 0);
        for &r in &self.workers {
            let w = program.state_mut(r);
            results += w.count.saturating_sub(1);
            misses += w.client.misses;
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
