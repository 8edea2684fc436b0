//! Sleeping Barber in BoC(Full), after the BoC paper's port: a haircut is one behaviour over the
//! Barber's cown and the Customer's, spawned by the Waiting Room when it seats the customer, so
//! the room needs no queue and the barber no `Next`/`Wait` protocol: the runtime queues the
//! haircuts on the Barber's cown in the order the customers sat down.
//!
//! The Factory's first behaviour creates the N customers (a cown each), in that one behaviour as
//! Savina's factory does, sending each in (a behaviour on the room) and busy-waiting after each.
//! The room turns a customer away when its seats are taken (a behaviour on the customer, which
//! goes back to the Factory, which counts the attempt and sends it in again), or takes a seat and
//! spawns the haircut. The haircut frees the seat (a behaviour on the room), busy-waits, tells
//! the Factory (a behaviour on the Factory), and ends with an empty behaviour over the Barber and
//! the room, where the paper's port marks the barber asleep or awake. At the defaults: N two-cown
//! haircuts and N two-cown barber-and-room behaviours; three one-cown behaviours per haircut and
//! three per customer turned away.

use motet_boc::{when, when_detached, Cown};
use motet_runtime::Runtime;

use super::{check, Config, Draws, Tally};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::SharedWait;
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

struct Factory {
    room: Cown<Room>,
    draws: Draws,
    busy: SharedWait,
    tally: Tally,
}

struct Room {
    seats: usize,
    taken: usize,
    barber: Cown<Barber>,
}

struct Barber {
    draws: Draws,
    busy: SharedWait,
}

/// A customer knows its way back to the Factory and into the room: the room's handle, cloned once
/// when the customer is created, serves every attempt and its haircut, so a customer turned away
/// (Verona's port turns about 18,000 away at the defaults on one worker) costs no clone of it.
struct Customer {
    factory: Cown<Factory>,
    room: Cown<Room>,
}

/// The Factory's first behaviour: creates the customers, each followed by a busy-wait.
fn produce(factory: &Cown<Factory>, haircuts: u64) {
    let me = factory.clone();
    let _ = when_detached(factory, move |f| {
        for _ in 0..haircuts {
            f.tally.customers += 1;
            f.tally.attempts += 1;
            let customer = Cown::new(
                f.room.runtime(),
                Customer {
                    factory: me.clone(),
                    room: f.room.clone(),
                },
            );
            enter(&f.room, customer);
            f.busy.spin(f.draws.next_wait());
        }
    });
}

/// A customer comes into the room: turned away if every seat is taken, else seated, with its
/// haircut spawned.
fn enter(room: &Cown<Room>, customer: Cown<Customer>) {
    let _ = when_detached(room, move |r| {
        if r.taken == r.seats {
            turned_away(customer);
            return;
        }
        r.taken += 1;
        let barber = r.barber.clone();
        let _ = when_detached((&r.barber, &customer), move |(b, c)| {
            let _ = when_detached(&c.room, |r| r.taken -= 1);
            b.busy.spin(b.draws.next_wait());
            let _ = when_detached(&c.factory, |f| f.tally.haircuts += 1);
            let _ = when_detached((&barber, &c.room), |_| {});
        });
    });
}

/// A customer turned away goes back to the Factory, which sends it in again.
fn turned_away(customer: Cown<Customer>) {
    let me = customer.clone();
    let _ = when_detached(&customer, move |c| {
        let _ = when_detached(&c.factory, move |f| {
            f.tally.attempts += 1;
            enter(&f.room, me);
        });
    });
}

/// One timed iteration: opens the shop, runs it to quiescence and checks the tally.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let barber = Cown::new(
        h,
        Barber {
            draws: Draws::new(cfg.haircut),
            busy: SharedWait::new(),
        },
    );
    let room = Cown::new(
        h,
        Room {
            seats: cfg.seats,
            taken: 0,
            barber: barber.clone(),
        },
    );
    let factory = Cown::new(
        h,
        Factory {
            room,
            draws: Draws::new(cfg.production),
            busy: SharedWait::new(),
            tally: Tally::default(),
        },
    );
    produce(&factory, cfg.haircuts);
    rt.wait_quiescent();
    let tally = when((&factory, &barber), |(f, b)| Tally {
        factory_draws: f.busy.draws(),
        barber_draws: b.busy.draws(),
        ..f.tally
    })
    .wait();
    match tally {
        Ok(tally) => check(cfg, Some(tally)),
        Err(e) => Outcome::failed(format!("reading the tally failed: {e}")),
    }
}
