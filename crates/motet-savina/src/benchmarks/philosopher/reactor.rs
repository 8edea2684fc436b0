//! Dining Philosophers as reactors, after LF's port.
//!
//! An Arbitrator and a bank of N philosophers joined by multiports (`hungry`, `done` and `finished`
//! in, `eat` and `denied` out). At a tag the Arbitrator first frees the forks of every philosopher
//! that is `done`, then grants or denies the requests it considers at this tag, in the order of
//! the philosophers from a position that moves on by one each tag (LF's `arbitration_id`, so no
//! philosopher is always served first), and sends the replies one microstep later through its
//! logical action `reply`, which breaks the cycle Arbitrator → philosopher → Arbitrator. A
//! philosopher told to eat counts the meal, reports `done` and is `hungry` again at once (or
//! `finished` after M meals); a denied one counts the denial and asks again.
//!
//! Savina's philosopher asks again after a meal only on its `Start`, a message it sends itself
//! with its `Done`: its next request comes a hop later than the `Done`. The Arbitrator plays that
//! hop: a request that arrives at the same tag as the philosopher's `done` is considered at the
//! next tag's arbitration (one microstep later), a request after a denial at once. The requests of
//! a round of meals therefore meet free forks: a round is one microstep of one reaction per meal
//! and the Arbitrator's two, and the only denials are those of the first round. (LF's port asks
//! again at once after a meal, so that every philosopher asks at every tag and half of them are
//! denied: two reactions per meal. A philosopher sending itself `Start` through a logical action
//! gives the same rounds at the cost of a reaction and an action per meal.) The arbitration stays
//! Savina's, request by request: a request whose forks are taken is denied. The denials differ
//! from the actors' (they depend on the order of the requests), but not between runs: the
//! arbitration order is fixed by the tags.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId};

use super::{check, Config, Forks};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The Arbitrator's state.
struct Arbitrator {
    forks: Forks,
    /// The requests considered at this tag, by philosopher (all `false` between tags).
    asking: Vec<bool>,
    /// The requests that came with their philosopher's `done`, considered at the next tag.
    held: Vec<u32>,
    /// The arbitration at which each philosopher last reported `done`.
    done_at: Vec<u64>,
    /// Arbitrations so far (the current one's number while it runs).
    round: u64,
    /// The philosophers granted at this tag, and those denied, to be answered one microstep later.
    grants: Vec<u32>,
    denials: Vec<u32>,
    /// Where this tag's arbitration starts.
    first: usize,
    /// Philosophers that finished.
    exits: usize,
}

impl Arbitrator {
    /// One tag's arbitration: frees the forks of those `done`, then grants or denies the requests
    /// held from the previous tag and the new ones that did not come with a `done` (those are
    /// held for the next tag), from `first` on and around. Returns whether the Arbitrator has
    /// anything for the next microstep (replies to send, or held requests).
    fn arbitrate(
        &mut self,
        done: impl Iterator<Item = usize>,
        hungry: impl Iterator<Item = usize>,
    ) -> bool {
        self.round += 1;
        for i in done {
            self.forks.release(i as u32);
            self.done_at[i] = self.round;
        }
        let mut asking = self.held.len();
        for &j in &self.held {
            self.asking[j as usize] = true;
        }
        self.held.clear();
        for j in hungry {
            if self.done_at[j] == self.round {
                self.held.push(j as u32);
            } else {
                self.asking[j] = true;
                asking += 1;
            }
        }
        if asking != 0 {
            let (n, first) = (self.asking.len(), self.first);
            // The order is the channels', not the order in which the requests were set.
            for j in (first..n).chain(0..first) {
                if std::mem::take(&mut self.asking[j]) {
                    if self.forks.try_grant(j as u32) {
                        self.grants.push(j as u32);
                    } else {
                        self.denials.push(j as u32);
                    }
                }
            }
            self.first = if first + 1 == n { 0 } else { first + 1 };
        }
        asking != 0 || !self.held.is_empty()
    }
}

/// A philosopher's state: meals eaten and denials.
#[derive(Clone, Copy, Default)]
struct Philosopher {
    meals: u64,
    denials: u64,
}

/// What reads the result of a built program: the Arbitrator and the philosophers.
pub(super) struct Philosophers {
    cfg: Config,
    arbitrator: ReactorId<Arbitrator>,
    philosophers: Vec<ReactorId<Philosopher>>,
}

/// Builds the program for `cfg.n` philosophers of `cfg.m` meals each.
pub(super) fn build(cfg: &Config) -> (Program, Philosophers) {
    let Config { n, m, .. } = *cfg;
    let mut b = ProgramBuilder::new();
    let arbitrator = b.reactor(
        "arbitrator",
        Arbitrator {
            forks: Forks::new(n),
            asking: vec![false; n],
            held: Vec::with_capacity(n),
            done_at: vec![0; n],
            round: 0,
            grants: Vec::with_capacity(n),
            denials: Vec::with_capacity(n),
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
            for &i in &a.grants {
                ctx.set(eat.channel(i as usize), ());
            }
            for &i in &a.denials {
                ctx.set(denied.channel(i as usize), ());
            }
            a.grants.clear();
            a.denials.clear();
        });
    // One reaction takes in what the philosophers said at a tag (two would do the same work in
    // the same order, at the cost of one more dispatch per tag); `reply` triggers it too, for
    // the requests held from the previous tag.
    b.reaction(arbitrator, "arbitrate")
        .trigger(done)
        .trigger(hungry)
        .trigger(reply)
        .effect(reply)
        .body(move |a: &mut Arbitrator, ctx| {
            let done = ctx.present_unordered(done).map(|(i, _)| i);
            if a.arbitrate(done, ctx.present_unordered(hungry).map(|(j, _)| j)) {
                ctx.schedule(reply, (), Duration::ZERO);
            }
        });
    // The last tags only: a reaction of its own, so that the tags before do not look at `finished`.
    b.reaction(arbitrator, "exit")
        .trigger(finished)
        .body(move |a: &mut Arbitrator, ctx| a.exits += ctx.present_count(finished));
    let philosophers = b.bank(n, |b, i| {
        let r = b.reactor(&format!("philosopher[{i}]"), Philosopher::default());
        let eat_in = b.input::<(), _>(r, "eat");
        let denied_in = b.input::<(), _>(r, "denied");
        let hungry_out = b.output::<(), _>(r, "hungry");
        let done_out = b.output::<(), _>(r, "done");
        let finished_out = b.output::<(), _>(r, "finished");
        reactor_support::at_startup(b, r, hungry_out, |ctx, port| ctx.set(port, ()));
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
    (
        b.build().expect("the philosopher program is well formed"),
        Philosophers {
            cfg: *cfg,
            arbitrator,
            philosophers: philosophers.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for Philosophers {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let (mut meals, mut denials) = (0, 0);
        for &r in &self.philosophers {
            let p = *program.state_mut(r);
            meals += p.meals;
            denials += p.denials;
        }
        let a = program.state_mut(self.arbitrator);
        let forks = (a.exits == self.cfg.n).then_some(&a.forks);
        check(&self.cfg, meals, denials, forks)
    }
}
