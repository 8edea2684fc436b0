//! Trapezoidal Approximation as reactors, after LF's port.
//!
//! A Master and a bank of W workers joined by two multiports: at startup the Master sets channel i
//! of `work` to worker i's range, each worker integrates its range and sets `result`, and the
//! Master's `sum` reaction adds the W results in worker order. The whole run is one tag: W + 2
//! reactions, the W workers in parallel.

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{area, check, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// A worker's range: left and right end points and the piece width.
type Range = (f64, f64, f64);

/// What reads the result of a built program: the Master, whose state holds the area once summed.
pub(super) struct Trapezoid {
    cfg: Config,
    master: ReactorId<Option<f64>>,
}

/// Builds the program for `cfg.w` workers.
pub(super) fn build(cfg: &Config) -> (Program, Trapezoid) {
    let c = *cfg;
    let mut b = ProgramBuilder::new();
    let master = b.reactor("master", None::<f64>);
    let work = b.output_multiport::<Range, _>(master, "work", c.w);
    let results = b.input_multiport::<f64, _>(master, "results", c.w);
    b.reaction(master, "start")
        .trigger(Startup)
        .effect(work)
        .body(move |_, ctx| {
            let h = c.h();
            for i in 0..c.w {
                let (l, r) = c.range(i);
                ctx.set(work.channel(i), (l, r, h));
            }
        });
    b.reaction(master, "sum")
        .trigger(results)
        .body(move |total: &mut Option<f64>, ctx| {
            let sum = ctx.present_sorted(results).fold(0.0, |s, (_, a)| s + a);
            *total = Some(sum);
        });
    let workers = b.bank(c.w, |b, i| {
        let r = b.reactor(&format!("worker[{i}]"), ());
        let input = b.input::<Range, _>(r, "work");
        let output = b.output::<f64, _>(r, "result");
        b.reaction(r, "integrate")
            .trigger(input)
            .effect(output)
            .body(move |_, ctx| {
                if let Some(&(l, r, h)) = ctx.get(input) {
                    ctx.set(output, area(l, r, h));
                }
            });
        (input, output)
    });
    b.connect(work, workers.iter().map(|x| x.0).collect::<Ports<Range>>());
    b.connect(workers.iter().map(|x| x.1).collect::<Ports<f64>>(), results);
    (
        b.build().expect("the trapezoid program is well formed"),
        Trapezoid { cfg: c, master },
    )
}

impl Built for Trapezoid {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let area = *program.state_mut(self.master);
        check(&self.cfg, area)
    }
}
