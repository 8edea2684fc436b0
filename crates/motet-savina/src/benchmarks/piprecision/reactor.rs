//! Precise Pi as reactors, after LF's port.
//!
//! A Master and a bank of W workers joined by two multiports. Each round is one tag: the Master sets
//! channel i of `work` to the terms of the round that fall to worker i (term k to worker k mod W,
//! Savina's round robin), each worker computes its terms and sets `result`, and the Master's
//! `collect` reaction adds the round's terms in the order of k. Each term that is not yet below the
//! tolerance requests one more, as in Savina's Master; the logical action `next` sends the new
//! requests one microstep later. The first round holds `min(p, 10·W)` terms, the window Savina's
//! Master sends at the start; the same terms are added in the same order as on the floor.

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};
use num_bigint::BigUint;

use super::{bbp_term, below_tolerance, check, Config, Expected, Kernel, Sum};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters, the kernel (Savina's arithmetic) and the reference π are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare(
        (cfg, Kernel::savina(cfg.p), Arc::new(Expected::new(cfg.p))),
        threads,
        model,
        build,
    )
}

/// The Master's state.
struct Master {
    /// Terms requested so far (terms `0..requested`).
    requested: u64,
    /// Terms sent to the workers so far.
    sent: u64,
    /// Whether a term below the tolerance has been added (no more requests).
    stopped: bool,
    sum: BigUint,
    /// Terms added.
    terms: u64,
    /// The round's terms, gathered before they are added in order.
    round: Vec<(u32, BigUint)>,
}

/// What reads the result of a built program: the Master, whose state holds the sum.
pub(super) struct PiPrecision {
    expected: Arc<Expected>,
    master: ReactorId<Master>,
}

/// Builds the program for `w` workers at scale `p`.
fn build((cfg, kernel, expected): &(Config, Arc<Kernel>, Arc<Expected>)) -> (Program, PiPrecision) {
    let w = cfg.w;
    let mut b = ProgramBuilder::new();
    let master = b.reactor(
        "master",
        Master {
            requested: cfg.window(),
            sent: 0,
            stopped: false,
            sum: BigUint::ZERO,
            terms: 0,
            round: Vec::new(),
        },
    );
    let work = b.output_multiport::<Vec<u32>, _>(master, "work", w);
    let results = b.input_multiport::<Vec<(u32, BigUint)>, _>(master, "results", w);
    let next = b.logical_action::<(), _>(master, "next", Duration::ZERO);
    let dispatch = move |m: &mut Master, ctx: &motet_reactor::Ctx<'_>| {
        let mut batches: Vec<Vec<u32>> = vec![Vec::new(); w];
        for k in m.sent..m.requested {
            batches[(k % w as u64) as usize].push(k as u32);
        }
        m.sent = m.requested;
        for (i, batch) in batches.into_iter().enumerate() {
            if !batch.is_empty() {
                ctx.set(work.channel(i), batch);
            }
        }
    };
    b.reaction(master, "start")
        .trigger(Startup)
        .trigger(next)
        .effect(work)
        .body(dispatch);
    b.reaction(master, "collect")
        .trigger(results)
        .effect(next)
        .body(move |m: &mut Master, ctx| {
            let mut round = std::mem::take(&mut m.round);
            for (_, terms) in ctx.present_unordered(results) {
                round.extend(terms.iter().cloned());
            }
            round.sort_unstable_by_key(|&(k, _)| k);
            for (_, term) in round.drain(..) {
                if below_tolerance(&term) {
                    m.stopped = true;
                }
                m.sum += term;
                m.terms += 1;
                if !m.stopped {
                    m.requested += 1;
                }
            }
            m.round = round;
            if m.requested > m.sent {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let workers = b.bank(w, |b, i| {
        let r = b.reactor(&format!("worker[{i}]"), Arc::clone(kernel));
        let input = b.input::<Vec<u32>, _>(r, "work");
        let output = b.output::<Vec<(u32, BigUint)>, _>(r, "result");
        b.reaction(r, "compute").trigger(input).effect(output).body(
            move |num: &mut Arc<Kernel>, ctx| {
                if let Some(ks) = ctx.get(input) {
                    let terms = ks.iter().map(|&k| (k, bbp_term(num, k))).collect();
                    ctx.set(output, terms);
                }
            },
        );
        (input, output)
    });
    b.connect(work, workers.iter().map(|x| x.0).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.1).collect::<Ports<_>>(), results);
    (
        b.build().expect("the piprecision program is well formed"),
        PiPrecision {
            expected: Arc::clone(expected),
            master,
        },
    )
}

impl Built for PiPrecision {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let m = program.state_mut(self.master);
        let sum = Sum {
            value: std::mem::take(&mut m.sum),
            terms: m.terms,
        };
        check(&self.expected, Some(sum))
    }
}
