//! Sleeping Barber as reactors, after LF's port (a CustomerFactory, the WaitingRoom, the Barber and
//! a bank of N customers in place of Savina's dynamically created ones).
//!
//! The factory creates one customer per tag (its logical action `next`), busy-waiting after each as
//! Savina's factory does, and sends the customers entering at the tag to the room (new ones and
//! those sent back in, in order). The room turns a customer away (`full`, to that customer) when
//! its seats are taken, hands the first waiting customer to the Barber whenever the Barber is idle,
//! and otherwise lets the customers wait. The Barber cuts (busy-waits) and reports the end one
//! microstep later through its action `done`: the customer gets `done` and the room `next`. A
//! customer turned away tells the factory, which sends it back in one microstep later (its action
//! `again`). LF's port uses physical actions for the busy-waits and the returns, which makes its
//! runs differ; logical actions keep this program deterministic. The customers' `wait` and `start`
//! notices, which carry nothing, are left out.

use std::collections::VecDeque;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config, Draws, Tally};
use crate::bench::{Model, Outcome, Prepared};
use crate::benchmarks::busy_wait::SharedWait;
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The factory's state.
struct Factory {
    draws: Draws,
    busy: SharedWait,
    tally: Tally,
}

/// The room's state.
struct Room {
    waiting: VecDeque<usize>,
    barber_idle: bool,
}

/// The Barber's state.
struct Barber {
    draws: Draws,
    busy: SharedWait,
}

/// What reads the result of a built program: the factory and the Barber.
pub(super) struct SleepingBarber {
    cfg: Config,
    factory: ReactorId<Factory>,
    barber: ReactorId<Barber>,
}

/// Builds the program for `cfg.haircuts` customers.
pub(super) fn build(cfg: &Config) -> (Program, SleepingBarber) {
    let c = *cfg;
    let n = c.haircuts as usize;
    let mut b = ProgramBuilder::new();
    let factory = b.reactor(
        "factory",
        Factory {
            draws: Draws::new(c.production),
            busy: SharedWait::new(),
            tally: Tally::default(),
        },
    );
    let send = b.output::<Vec<usize>, _>(factory, "send");
    let returned = b.input_multiport::<(), _>(factory, "returned", n);
    let served = b.input_multiport::<(), _>(factory, "done", n);
    let next = b.logical_action::<(), _>(factory, "next", Duration::ZERO);
    let again = b.logical_action::<Vec<usize>, _>(factory, "again", Duration::ZERO);
    b.reaction(factory, "send")
        .trigger(Startup)
        .trigger(next)
        .trigger(again)
        .effect(send)
        .effect(next)
        .body(move |f: &mut Factory, ctx| {
            let mut entering = ctx.get(again).cloned().unwrap_or_default();
            f.tally.attempts += entering.len() as u64;
            let create = ctx.is_present(next) || ctx.is_present(Startup);
            if create && (f.tally.customers as usize) < n {
                entering.push(f.tally.customers as usize);
                f.tally.customers += 1;
                f.tally.attempts += 1;
                f.busy.spin(f.draws.next_wait());
                if (f.tally.customers as usize) < n {
                    ctx.schedule(next, (), Duration::ZERO);
                }
            }
            if !entering.is_empty() {
                ctx.set(send, entering);
            }
        });
    b.reaction(factory, "returned")
        .trigger(returned)
        .effect(again)
        .body(move |_, ctx| {
            let back: Vec<usize> = ctx.present_sorted(returned).map(|(i, _)| i).collect();
            ctx.schedule(again, back, Duration::ZERO);
        });
    b.reaction(factory, "done")
        .trigger(served)
        .body(move |f: &mut Factory, ctx| {
            f.tally.haircuts += ctx.present_count(served) as u64;
        });

    let room = b.reactor(
        "room",
        Room {
            waiting: VecDeque::new(),
            barber_idle: true,
        },
    );
    let enter = b.input::<Vec<usize>, _>(room, "enter");
    let barber_next = b.input::<(), _>(room, "barber_next");
    let full = b.output_multiport::<(), _>(room, "full", n);
    let to_barber = b.output::<usize, _>(room, "barber_enter");
    b.reaction(room, "admit")
        .trigger(enter)
        .trigger(barber_next)
        .effect(full)
        .effect(to_barber)
        .body(move |r: &mut Room, ctx| {
            if ctx.is_present(barber_next) {
                r.barber_idle = true;
            }
            for &customer in ctx.get(enter).into_iter().flatten() {
                if r.waiting.len() == c.seats {
                    ctx.set(full.channel(customer), ());
                } else {
                    r.waiting.push_back(customer);
                }
            }
            if r.barber_idle {
                if let Some(customer) = r.waiting.pop_front() {
                    r.barber_idle = false;
                    ctx.set(to_barber, customer);
                }
            }
        });

    let barber = b.reactor(
        "barber",
        Barber {
            draws: Draws::new(c.haircut),
            busy: SharedWait::new(),
        },
    );
    let serve = b.input::<usize, _>(barber, "enter");
    let done_cutting = b.output_multiport::<(), _>(barber, "done_cutting", n);
    let next_out = b.output::<(), _>(barber, "next");
    let finished = b.logical_action::<usize, _>(barber, "done", Duration::ZERO);
    b.reaction(barber, "done")
        .trigger(finished)
        .effect(done_cutting)
        .effect(next_out)
        .body(move |_, ctx| {
            if let Some(&customer) = ctx.get(finished) {
                ctx.set(done_cutting.channel(customer), ());
                ctx.set(next_out, ());
            }
        });
    b.reaction(barber, "cut")
        .trigger(serve)
        .effect(finished)
        .body(move |br: &mut Barber, ctx| {
            if let Some(&customer) = ctx.get(serve) {
                br.busy.spin(br.draws.next_wait());
                ctx.schedule(finished, customer, Duration::ZERO);
            }
        });

    let customers = b.bank(n, |b, i| {
        let r = b.reactor(&format!("customer[{i}]"), ());
        let full_in = b.input::<(), _>(r, "full");
        let done_in = b.input::<(), _>(r, "done");
        let returned_out = b.output::<(), _>(r, "returned");
        let done_out = b.output::<(), _>(r, "done");
        b.reaction(r, "turned_away")
            .trigger(full_in)
            .effect(returned_out)
            .body(move |_, ctx| ctx.set(returned_out, ()));
        b.reaction(r, "served")
            .trigger(done_in)
            .effect(done_out)
            .body(move |_, ctx| ctx.set(done_out, ()));
        (full_in, done_in, returned_out, done_out)
    });
    b.connect(send, enter);
    b.connect(next_out, barber_next);
    b.connect(to_barber, serve);
    b.connect(full, customers.iter().map(|x| x.0).collect::<Ports<()>>());
    b.connect(
        done_cutting,
        customers.iter().map(|x| x.1).collect::<Ports<()>>(),
    );
    b.connect(
        customers.iter().map(|x| x.2).collect::<Ports<()>>(),
        returned,
    );
    b.connect(customers.iter().map(|x| x.3).collect::<Ports<()>>(), served);
    (
        b.build().expect("the barber program is well formed"),
        SleepingBarber {
            cfg: c,
            factory,
            barber,
        },
    )
}

impl Built for SleepingBarber {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let barber_draws = program.state_mut(self.barber).busy.draws();
        let f = program.state_mut(self.factory);
        let done = f.tally.haircuts == self.cfg.haircuts;
        let tally = Tally {
            barber_draws,
            factory_draws: f.busy.draws(),
            ..f.tally
        };
        check(&self.cfg, done.then_some(tally))
    }
}
