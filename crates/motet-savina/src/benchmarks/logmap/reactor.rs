//! Logistic Map Series as reactors, after LF's port.
//!
//! A Manager, a bank of S series workers and one rate computer per worker. At each tag (the
//! Manager's logical action `next`) the Manager broadcasts `next_term`; each worker sends its
//! current term to its computer, which answers `rate · term · (1 − term)` at the same tag, and the
//! worker keeps the answer as its new term. After T tags the Manager broadcasts `get_term`, and its
//! `sum` reaction adds the S final terms in series order. Savina's stash and reply mode have no
//! counterpart: a term's request and answer complete within one tag, so the next request cannot
//! overtake them. A tag is S chains of three reactions.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, next_term, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The Manager's state: the terms requested so far and the sum, once the final terms are in.
struct Manager {
    requested: u64,
    sum: Option<f64>,
}

/// What reads the result of a built program: the Manager.
pub(super) struct LogMap {
    cfg: Config,
    manager: ReactorId<Manager>,
}

/// Builds the program for `cfg.series` series of `cfg.terms` terms.
pub(super) fn build(cfg: &Config) -> (Program, LogMap) {
    let c = *cfg;
    let s = c.series;
    let mut b = ProgramBuilder::new();
    let manager = b.reactor(
        "manager",
        Manager {
            requested: 0,
            sum: None,
        },
    );
    let next_out = b.output::<(), _>(manager, "next_term");
    let get_out = b.output::<(), _>(manager, "get_term");
    let results = b.input_multiport::<f64, _>(manager, "results", s);
    let next = b.logical_action::<(), _>(manager, "next", Duration::ZERO);
    b.reaction(manager, "step")
        .trigger(Startup)
        .trigger(next)
        .effect(next_out)
        .effect(get_out)
        .effect(next)
        .body(move |m: &mut Manager, ctx| {
            if m.requested == c.terms {
                ctx.set(get_out, ());
                return;
            }
            ctx.set(next_out, ());
            m.requested += 1;
            ctx.schedule(next, (), Duration::ZERO);
        });
    b.reaction(manager, "sum")
        .trigger(results)
        .body(move |m: &mut Manager, ctx| {
            m.sum = Some(ctx.present_sorted(results).fold(0.0, |sum, (_, t)| sum + t));
        });
    let workers = b.bank(s, |b, i| {
        let w = b.reactor(&format!("series[{i}]"), Config::start_of(i));
        let next_in = b.input::<(), _>(w, "next_term");
        let get_in = b.input::<(), _>(w, "get_term");
        let compute = b.output::<f64, _>(w, "compute");
        let answer = b.input::<f64, _>(w, "answer");
        let term = b.output::<f64, _>(w, "term");
        b.reaction(w, "request")
            .trigger(next_in)
            .effect(compute)
            .body(move |t: &mut f64, ctx| ctx.set(compute, *t));
        b.reaction(w, "update")
            .trigger(answer)
            .body(move |t: &mut f64, ctx| {
                if let Some(&next) = ctx.get(answer) {
                    *t = next;
                }
            });
        b.reaction(w, "report")
            .trigger(get_in)
            .effect(term)
            .body(move |t: &mut f64, ctx| ctx.set(term, *t));
        let rc = b.reactor(&format!("computer[{i}]"), c.rate_of(i));
        let rc_in = b.input::<f64, _>(rc, "compute");
        let rc_out = b.output::<f64, _>(rc, "result");
        b.reaction(rc, "compute")
            .trigger(rc_in)
            .effect(rc_out)
            .body(move |rate: &mut f64, ctx| {
                if let Some(&t) = ctx.get(rc_in) {
                    ctx.set(rc_out, next_term(t, *rate));
                }
            });
        b.connect(compute, rc_in);
        b.connect(rc_out, answer);
        (next_in, get_in, term)
    });
    b.connect_broadcast(next_out, workers.iter().map(|x| x.0).collect::<Ports<()>>());
    b.connect_broadcast(get_out, workers.iter().map(|x| x.1).collect::<Ports<()>>());
    b.connect(workers.iter().map(|x| x.2).collect::<Ports<f64>>(), results);
    (
        b.build().expect("the logmap program is well formed"),
        LogMap { cfg: c, manager },
    )
}

impl Built for LogMap {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let sum = program.state_mut(self.manager).sum;
        check(&self.cfg, sum)
    }
}
