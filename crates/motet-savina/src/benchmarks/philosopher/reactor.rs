//! Dining Philosophers as reactors, after LF's port.
//!
//! An Arbitrator and a bank of N philosophers joined by multiports (`hungry`, `done` and `finished`
//! in, `eat` and `denied` out). At a tag the Arbitrator first frees the forks of every philosopher
//! that is `done`, then grants or denies every `hungry` one, starting from a position that moves
//! on by one each tag (LF's `arbitration_id`, so no philosopher is always served first), and sends
//! the replies one microstep later through its logical action `reply`, which breaks the cycle
//! Arbitrator → philosopher → Arbitrator. A philosopher told to eat counts the meal, reports
//! `done` and is hungry again at once (or `finished` after M meals); a denied one asks again. The
//! denials differ from the actors' (they depend on the order of the requests), but not between
//! runs: the arbitration order is fixed by the tags.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config, Forks};
use crate::bench::{Iteration, Model, Outcome};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// The readiness scheduler (model `reactor`).
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    reactor_support::prepare(Config::from_params(params)?, threads, Model::Reactor, build)
}

/// LF's level scheduler (model `reactor-level`).
pub(super) fn prepare_level(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    reactor_support::prepare(
        Config::from_params(params)?,
        threads,
        Model::ReactorLevel,
        build,
    )
}

/// A reply of the Arbitrator.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reply {
    Eat,
    Denied,
}

/// The Arbitrator's state.
struct Arbitrator {
    forks: Forks,
    /// The replies of this tag, by philosopher.
    replies: Vec<Option<Reply>>,
    /// The philosophers hungry at this tag (all `false` between tags).
    asking: Vec<bool>,
    /// Where this tag's arbitration starts.
    first: usize,
    /// Philosophers that finished.
    exits: usize,
}

/// A philosopher's state: meals eaten and denials.
#[derive(Clone, Copy, Default)]
struct Philosopher {
    meals: u64,
    denials: u64,
}

/// The built program, the Arbitrator and the philosophers.
pub(super) struct Philosophers {
    program: Program,
    cfg: Config,
    arbitrator: ReactorId<Arbitrator>,
    philosophers: Vec<ReactorId<Philosopher>>,
}

/// Builds the program for `cfg.n` philosophers of `cfg.m` meals each.
pub(super) fn build(cfg: &Config) -> Philosophers {
    let Config { n, m } = *cfg;
    let mut b = ProgramBuilder::new();
    let arbitrator = b.reactor(
        "arbitrator",
        Arbitrator {
            forks: Forks::new(n),
            replies: vec![None; n],
            asking: vec![false; n],
            first: 0,
            exits: 0,
        },
    );
    let hungry = b.input_multiport::<(), _>(arbitrator, "hungry", n);
    let done = b.input_multiport::<(), _>(arbitrator, "done", n);
    let finished = b.input_multiport::<(), _>(arbitrator, "finished", n);
    let eat = b.output_multiport::<(), _>(arbitrator, "eat", n);
    let denied = b.output_multiport::<(), _>(arbitrator, "denied", n);
    let reply = b.logical_action::<(), _>(arbitrator, "reply", Duration::ZERO);
    b.reaction(arbitrator, "reply")
        .trigger(reply)
        .effect(eat)
        .effect(denied)
        .body(move |a: &mut Arbitrator, ctx| {
            for (i, r) in a.replies.iter_mut().enumerate() {
                match r.take() {
                    Some(Reply::Eat) => ctx.set(eat.channel(i), ()),
                    Some(Reply::Denied) => ctx.set(denied.channel(i), ()),
                    None => {}
                }
            }
        });
    // One reaction takes in everything the philosophers said at a tag: it frees the forks of
    // those `done`, counts those `finished`, then arbitrates among the `hungry` (three reactions
    // would do the same work in the same order, at the cost of two more dispatches per tag).
    b.reaction(arbitrator, "arbitrate")
        .trigger(done)
        .trigger(finished)
        .trigger(hungry)
        .effect(reply)
        .body(move |a: &mut Arbitrator, ctx| {
            for (i, _) in ctx.present(done) {
                a.forks.release(i as u32);
            }
            a.exits += ctx.present_count(finished);
            let mut asking = 0;
            for (j, _) in ctx.present(hungry) {
                a.asking[j] = true;
                asking += 1;
            }
            if asking == 0 {
                return;
            }
            for k in 0..n {
                let j = (a.first + k) % n;
                if std::mem::take(&mut a.asking[j]) {
                    a.replies[j] = Some(if a.forks.try_grant(j as u32) {
                        Reply::Eat
                    } else {
                        Reply::Denied
                    });
                }
            }
            a.first = (a.first + 1) % n;
            ctx.schedule(reply, (), Duration::ZERO);
        });
    let philosophers = b.bank(n, |b, i| {
        let r = b.reactor(&format!("philosopher[{i}]"), Philosopher::default());
        let eat_in = b.input::<(), _>(r, "eat");
        let denied_in = b.input::<(), _>(r, "denied");
        let hungry_out = b.output::<(), _>(r, "hungry");
        let done_out = b.output::<(), _>(r, "done");
        let finished_out = b.output::<(), _>(r, "finished");
        b.reaction(r, "start")
            .trigger(Startup)
            .effect(hungry_out)
            .body(move |_, ctx| ctx.set(hungry_out, ()));
        b.reaction(r, "eat")
            .trigger(eat_in)
            .effect(hungry_out)
            .effect(done_out)
            .effect(finished_out)
            .body(move |p: &mut Philosopher, ctx| {
                p.meals += 1;
                ctx.set(done_out, ());
                if p.meals == m {
                    ctx.set(finished_out, ());
                } else {
                    ctx.set(hungry_out, ());
                }
            });
        b.reaction(r, "denied")
            .trigger(denied_in)
            .effect(hungry_out)
            .body(move |p: &mut Philosopher, ctx| {
                p.denials += 1;
                ctx.set(hungry_out, ());
            });
        (r, eat_in, denied_in, hungry_out, done_out, finished_out)
    });
    b.connect(eat, philosophers.iter().map(|x| x.1).collect::<Ports<()>>());
    b.connect(
        denied,
        philosophers.iter().map(|x| x.2).collect::<Ports<()>>(),
    );
    b.connect(
        philosophers.iter().map(|x| x.3).collect::<Ports<()>>(),
        hungry,
    );
    b.connect(
        philosophers.iter().map(|x| x.4).collect::<Ports<()>>(),
        done,
    );
    b.connect(
        philosophers.iter().map(|x| x.5).collect::<Ports<()>>(),
        finished,
    );
    Philosophers {
        program: b.build().expect("the philosopher program is well formed"),
        cfg: *cfg,
        arbitrator,
        philosophers: philosophers.into_iter().map(|x| x.0).collect(),
    }
}

impl Built for Philosophers {
    fn program(&mut self) -> &mut Program {
        &mut self.program
    }

    fn outcome(&mut self) -> Outcome {
        let (mut meals, mut denials) = (0, 0);
        for &r in &self.philosophers {
            let p = *self.program.state_mut(r);
            meals += p.meals;
            denials += p.denials;
        }
        let a = self.program.state_mut(self.arbitrator);
        let forks = (a.exits == self.cfg.n).then_some(&a.forks);
        check(&self.cfg, meals, denials, forks)
    }
}
