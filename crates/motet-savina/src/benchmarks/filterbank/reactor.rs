//! Filter Bank as reactors, after LF's port: a pipeline that fans out into parallel banks.
//!
//! The Source sends one input value per tag (its logical action `next` plays Savina's
//! Producer/Source handshake) to every bank; each of the `chan` banks is a chain of five reactors,
//! Delay(`col`−1) → FIR(H[j]) → SampleFilter(`col`) → Delay(`col`−1) → FIR(F[j]); Combine reads
//! the banks' outputs on one multiport and sums them in bank order, and the Sink totals the sums.
//! The banks run in lockstep (every bank drops its FIRs' first `col`−1 inputs), so the values of
//! one tag form one group, and Savina's Integrator, which only regroups values, is not needed. A
//! tag is `chan` chains of five reactions side by side: the level scheduler waits for all banks at
//! each of the five levels, the readiness scheduler runs each chain as soon as it is free.

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{Input, Output, Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{
    check, combine, expected, Coefficients, Config, Delay, Fir, FirSum, Sample, SinkTotals,
};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters and the coefficients and the expected totals are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    let coef = Coefficients::new(&cfg, FirSum::InIndexOrder);
    let expected = expected(&cfg, &coef);
    reactor_support::prepare((cfg, coef, expected), threads, model, build)
}

/// What reads the result of a built program: the Sink.
pub(super) struct FilterBank {
    expected: SinkTotals,
    sink: ReactorId<SinkTotals>,
}

/// Builds the program for `cfg.chan` banks.
fn build(
    &(cfg, ref coef, expected): &(Config, Arc<Coefficients>, SinkTotals),
) -> (Program, FilterBank) {
    let mut b = ProgramBuilder::new();
    let source = b.reactor("source", 0u64);
    let out = b.output::<f64, _>(source, "value");
    let next = b.logical_action::<(), _>(source, "next", Duration::ZERO);
    b.reaction(source, "send")
        .trigger(Startup)
        .trigger(next)
        .effect(out)
        .effect(next)
        .body(move |k: &mut u64, ctx| {
            if *k == cfg.sim {
                return;
            }
            ctx.set(out, Config::input(*k));
            *k += 1;
            if *k < cfg.sim {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let banks = b.bank(cfg.chan, |b, j| {
        let (input, delay1) = stage(
            b,
            &format!("bank[{j}].delay1"),
            Delay::new(cfg.col - 1),
            |d, v| Some(d.push(v)),
        );
        let (fir1_in, fir1) = stage(
            b,
            &format!("bank[{j}].fir1"),
            Fir::new(Arc::clone(&coef.h[j]), coef.sum),
            Fir::push,
        );
        let (sample_in, sample) = stage(
            b,
            &format!("bank[{j}].sample"),
            Sample::new(cfg.col),
            |s, v| Some(s.push(v)),
        );
        let (delay2_in, delay2) = stage(
            b,
            &format!("bank[{j}].delay2"),
            Delay::new(cfg.col - 1),
            |d, v| Some(d.push(v)),
        );
        let (fir2_in, fir2) = stage(
            b,
            &format!("bank[{j}].fir2"),
            Fir::new(Arc::clone(&coef.f[j]), coef.sum),
            Fir::push,
        );
        b.connect(delay1, fir1_in);
        b.connect(fir1, sample_in);
        b.connect(sample, delay2_in);
        b.connect(delay2, fir2_in);
        (input, fir2)
    });
    b.connect_broadcast(out, banks.iter().map(|x| x.0).collect::<Ports<f64>>());
    let combiner = b.reactor("combine", vec![0.0; cfg.chan]);
    let values = b.input_multiport::<f64, _>(combiner, "values", cfg.chan);
    let sum = b.output::<f64, _>(combiner, "sum");
    b.reaction(combiner, "combine")
        .trigger(values)
        .effect(sum)
        .body(move |group: &mut Vec<f64>, ctx| {
            if ctx.present_count(values) < group.len() {
                return;
            }
            for (j, &v) in ctx.present_unordered(values) {
                group[j] = v;
            }
            ctx.set(sum, combine(group));
        });
    b.connect(banks.iter().map(|x| x.1).collect::<Ports<f64>>(), values);
    let (sink, input) = reactor_support::sink(
        &mut b,
        "sink",
        SinkTotals::default(),
        "sum",
        "total",
        SinkTotals::push,
    );
    b.connect(sum, input);
    (
        b.build().expect("the filterbank program is well formed"),
        FilterBank { expected, sink },
    )
}

/// Declares a one-reaction filter stage with state `state`: `f` maps an input to the output, if any.
fn stage<S: Send + 'static>(
    b: &mut ProgramBuilder,
    name: &str,
    state: S,
    f: fn(&mut S, f64) -> Option<f64>,
) -> (Input<f64>, Output<f64>) {
    let r = b.reactor(name, state);
    let input = b.input::<f64, _>(r, "in");
    let output = b.output::<f64, _>(r, "out");
    b.reaction(r, "filter")
        .trigger(input)
        .effect(output)
        .body(move |s: &mut S, ctx| {
            if let Some(out) = ctx.get(input).and_then(|&v| f(s, v)) {
                ctx.set(output, out);
            }
        });
    (input, output)
}

impl Built for FilterBank {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let totals = *program.state_mut(self.sink);
        check(&self.expected, Some(totals), FirSum::InIndexOrder)
    }
}
