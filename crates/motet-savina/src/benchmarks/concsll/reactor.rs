//! Concurrent Sorted Linked List as reactors, after LF's port (the design of Concurrent
//! Dictionary's port, with the List in place of the Dictionary).
//!
//! A Manager, the List and a bank of E workers. The Manager's `do_work` reaches every worker at
//! startup; a worker sends its next request on `request` whenever it starts or gets an answer, and
//! after M answers reports `finished` to the Manager instead. The List serves the requests of a tag
//! in worker order (its multiport's channel order) and answers them one microstep later through
//! its logical action `answer`, which breaks the cycle List → worker → List. Once every worker has
//! finished, the Manager tells the List to end.

use std::time::Duration;

use motet_reactor::{Ctx, Input, Program, ProgramBuilder, ReactorId};

use super::{check, Config, ListKind, Request, Requests, SortedList};
use crate::bench::{Model, Outcome, Prepared};
use crate::benchmarks::request_workers::{self, Client, Worker};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The List's state.
struct List {
    list: SortedList,
    /// The answers of the current tag, by worker.
    answers: Vec<Option<i32>>,
    /// Whether the Manager ended the run.
    done: bool,
}

/// A worker asks its [`Requests`] and notes nothing of the answers.
impl Client for Requests {
    type Request = Request;
    type Response = i32;

    #[inline]
    fn next_request(&mut self) -> Request {
        Requests::next_request(self)
    }

    #[inline]
    fn answered(&mut self, _: &Ctx<'_>, _: Input<i32>) {}
}

/// What reads the result of a built program: the List and the workers.
pub(super) struct ConcSll {
    cfg: Config,
    list: ReactorId<List>,
    workers: Vec<ReactorId<Worker<Requests>>>,
}

/// Builds the program for `cfg.workers` workers.
pub(super) fn build(cfg: &Config) -> (Program, ConcSll) {
    let e = cfg.workers;
    let limit = cfg.requests;
    let mut b = ProgramBuilder::new();
    let manager = request_workers::manager(&mut b, e);
    let list = b.reactor(
        "list",
        List {
            list: SortedList::new(ListKind::Linked),
            answers: vec![None; e],
            done: false,
        },
    );
    let requests = b.input_multiport::<Request, _>(list, "request", e);
    let responses = b.output_multiport::<i32, _>(list, "response", e);
    let end_in = b.input::<(), _>(list, "end");
    let answer = b.logical_action::<(), _>(list, "answer", Duration::ZERO);
    b.reaction(list, "answer")
        .trigger(answer)
        .effect(responses)
        .body(move |l: &mut List, ctx| {
            for (i, a) in l.answers.iter_mut().enumerate() {
                if let Some(value) = a.take() {
                    ctx.set(responses.channel(i), value);
                }
            }
        });
    b.reaction(list, "serve")
        .trigger(requests)
        .effect(answer)
        .body(move |l: &mut List, ctx| {
            for (i, &request) in ctx.present_sorted(requests) {
                l.answers[i] = Some(std::hint::black_box(l.list.serve(request)));
            }
            ctx.schedule(answer, (), Duration::ZERO);
        });
    b.reaction(list, "end")
        .trigger(end_in)
        .body(move |l: &mut List, _| l.done = true);
    b.connect(manager.end, end_in);
    let workers = request_workers::workers(&mut b, &manager, limit, requests, responses, |id| {
        cfg.requests_of(id)
    });
    (
        b.build().expect("the concsll program is well formed"),
        ConcSll {
            cfg: *cfg,
            list,
            workers,
        },
    )
}

impl Built for ConcSll {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let results: u64 = self
            .workers
            .iter()
            .map(|&r| program.state_mut(r).count.saturating_sub(1))
            .sum();
        let l = program.state_mut(self.list);
        let list = l.done.then_some(&l.list);
        check(&self.cfg, results, list)
    }
}
