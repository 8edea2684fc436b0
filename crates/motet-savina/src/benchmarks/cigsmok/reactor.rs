//! Cigarette Smokers as reactors, after LF's port.
//!
//! An Arbiter and a bank of S smokers joined by the Arbiter's `start_smoking` multiport. Each round
//! is one tag (the Arbiter's logical action `choose`): the Arbiter draws a smoker and a period from
//! Savina's generator and sets that smoker's channel; the smoker busy-waits the period. As in LF's
//! port the Arbiter does not wait for `StartedSmoking`: the smoker starts logically at once, so the
//! next round is scheduled in the same reaction, and a smoker's busy-wait runs beside the
//! Arbiter's next round only as far as the tags allow (one round per tag). After R rounds the
//! Arbiter stops scheduling and the program ends.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config, Picks};
use crate::bench::{Model, Outcome, Prepared};
use crate::benchmarks::busy_wait::SharedWait;
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The Arbiter's state.
struct Arbiter {
    picks: Picks,
    rounds: u64,
}

/// What reads the result of a built program: the Arbiter and the smokers.
pub(super) struct CigSmok {
    cfg: Config,
    arbiter: ReactorId<Arbiter>,
    smokers: Vec<ReactorId<SharedWait>>,
}

/// Builds the program for `cfg.smokers` smokers.
pub(super) fn build(cfg: &Config) -> (Program, CigSmok) {
    let c = *cfg;
    let mut b = ProgramBuilder::new();
    let arbiter = b.reactor(
        "arbiter",
        Arbiter {
            picks: c.picks(),
            rounds: 0,
        },
    );
    let start = b.output_multiport::<u32, _>(arbiter, "start_smoking", c.smokers);
    let choose = b.logical_action::<(), _>(arbiter, "choose", Duration::ZERO);
    b.reaction(arbiter, "choose")
        .trigger(Startup)
        .trigger(choose)
        .effect(start)
        .effect(choose)
        .body(move |a: &mut Arbiter, ctx| {
            let (smoker, period) = a.picks.next_pick();
            ctx.set(start.channel(smoker), period);
            a.rounds += 1;
            if a.rounds < c.rounds {
                ctx.schedule(choose, (), Duration::ZERO);
            }
        });
    let smokers = b.bank(c.smokers, |b, i| {
        let r = b.reactor(&format!("smoker[{i}]"), SharedWait::new());
        let input = b.input::<u32, _>(r, "start_smoking");
        b.reaction(r, "smoke")
            .trigger(input)
            .body(move |busy: &mut SharedWait, ctx| {
                if let Some(&period) = ctx.get(input) {
                    busy.spin(period);
                }
            });
        (r, input)
    });
    b.connect(start, smokers.iter().map(|x| x.1).collect::<Ports<u32>>());
    (
        b.build().expect("the cigsmok program is well formed"),
        CigSmok {
            cfg: c,
            arbiter,
            smokers: smokers.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for CigSmok {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let draws: u64 = self
            .smokers
            .iter()
            .map(|&r| program.state_mut(r).draws())
            .sum();
        let rounds = program.state_mut(self.arbiter).rounds;
        check(&self.cfg, Some(rounds), draws)
    }
}
