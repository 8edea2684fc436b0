//! Sleeping Barber as motet actors, Savina's flow: the factory spawns all N customers in its
//! `Start` handler, busy-waiting after each, and a customer's address travels in the messages
//! (factory → room → barber), as Savina's references do. The factory and the barber busy-wait on
//! the one shared `Math.random()`.
//!
//! `actor-tuned` is the same program as [`Variant::Tuned`]: the factory makes one customer per
//! message to itself and yields after each (batch 1), and the factory and the barber busy-wait on
//! generators of their own (deviations `batch`, `customer-per-message`, `private-random`).

use std::collections::VecDeque;

use motet_actor::{spawn, Actor, Addr, Context, Spawn, DEFAULT_BATCH};
use motet_runtime::Runtime;

use super::{check, Config, Draws, Tally, Variant, Wait};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(
        (Config::from_params(params)?, Variant::Savina),
        threads,
        run,
    )
}

/// The tuned program ([`Variant::Tuned`]); `threads` workers.
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, Variant::Tuned), threads, run)
}

enum FactoryMsg {
    /// Open the shop: the room to send customers to.
    Start(Addr<RoomMsg>),
    /// Create the next customer (the tuned program's factory).
    NextCustomer,
    Returned(Addr<CustomerMsg>),
    Done,
}

enum RoomMsg {
    Enter(Addr<CustomerMsg>),
    Next,
    Exit,
}

enum BarberMsg {
    Enter {
        customer: Addr<CustomerMsg>,
        room: Addr<RoomMsg>,
    },
    Wait,
    Exit,
}

enum CustomerMsg {
    Full,
    Wait,
    Start,
    Done,
}

struct Factory {
    cfg: Config,
    variant: Variant,
    room: Option<Addr<RoomMsg>>,
    draws: Draws,
    busy: Wait,
    tally: Tally,
    result: ResultSlot<Tally>,
}

impl Factory {
    fn send_to_room(&self, customer: Addr<CustomerMsg>) {
        if let Some(room) = &self.room {
            let _ = room.tell(RoomMsg::Enter(customer));
        }
    }

    /// Creates a customer, sends it to the room and busy-waits.
    fn new_customer(&mut self, ctx: &mut Context<'_, Self>) {
        let customer = ctx.spawn(Customer {
            factory: ctx.myself(),
        });
        self.tally.customers += 1;
        self.tally.attempts += 1;
        self.send_to_room(customer);
        self.busy.spin(self.draws.next_wait());
    }
}

impl Actor for Factory {
    type Msg = FactoryMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: FactoryMsg) {
        match msg {
            FactoryMsg::Start(room) => {
                self.room = Some(room);
                if self.cfg.haircuts == 0 {
                    self.finish(ctx);
                } else if self.variant == Variant::Tuned {
                    let _ = ctx.myself().send(FactoryMsg::NextCustomer);
                } else {
                    // Savina's factory makes every customer in this one handler.
                    for _ in 0..self.cfg.haircuts {
                        self.new_customer(ctx);
                    }
                }
            }
            FactoryMsg::NextCustomer => {
                self.new_customer(ctx);
                if self.tally.customers < self.cfg.haircuts {
                    let _ = ctx.myself().send(FactoryMsg::NextCustomer);
                }
            }
            FactoryMsg::Returned(customer) => {
                self.tally.attempts += 1;
                self.send_to_room(customer);
            }
            FactoryMsg::Done => {
                self.tally.haircuts += 1;
                if self.tally.haircuts == self.cfg.haircuts {
                    self.finish(ctx);
                }
            }
        }
    }
}

impl Factory {
    /// Closes the shop: `Exit` to the room, the tally to the harness, and stops.
    fn finish(&mut self, ctx: &mut Context<'_, Self>) {
        if let Some(room) = self.room.take() {
            let _ = room.send(RoomMsg::Exit);
        }
        self.tally.factory_draws = self.busy.draws();
        self.result.set(self.tally);
        ctx.stop();
    }
}

struct Room {
    seats: usize,
    waiting: VecDeque<Addr<CustomerMsg>>,
    barber: Addr<BarberMsg>,
    barber_asleep: bool,
}

impl Actor for Room {
    type Msg = RoomMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: RoomMsg) {
        match msg {
            RoomMsg::Enter(customer) => {
                if self.waiting.len() == self.seats {
                    let _ = customer.send(CustomerMsg::Full);
                } else if self.barber_asleep {
                    self.waiting.push_back(customer);
                    self.barber_asleep = false;
                    let _ = ctx.myself().send(RoomMsg::Next);
                } else {
                    let _ = customer.tell(CustomerMsg::Wait);
                    self.waiting.push_back(customer);
                }
            }
            RoomMsg::Next => match self.waiting.pop_front() {
                Some(customer) => {
                    let _ = self.barber.tell(BarberMsg::Enter {
                        customer,
                        room: ctx.myself(),
                    });
                }
                None => {
                    let _ = self.barber.tell(BarberMsg::Wait);
                    self.barber_asleep = true;
                }
            },
            RoomMsg::Exit => {
                let _ = self.barber.tell(BarberMsg::Exit);
                ctx.stop();
            }
        }
    }
}

struct Barber {
    draws: Draws,
    busy: Wait,
    result: ResultSlot<u64>,
}

impl Actor for Barber {
    type Msg = BarberMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: BarberMsg) {
        match msg {
            BarberMsg::Enter { customer, room } => {
                let _ = customer.tell(CustomerMsg::Start);
                self.busy.spin(self.draws.next_wait());
                let _ = customer.send(CustomerMsg::Done);
                let _ = room.send(RoomMsg::Next);
            }
            BarberMsg::Wait => {}
            BarberMsg::Exit => {
                self.result.set(self.busy.draws());
                ctx.stop();
            }
        }
    }
}

struct Customer {
    factory: Addr<FactoryMsg>,
}

impl Actor for Customer {
    type Msg = CustomerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: CustomerMsg) {
        match msg {
            CustomerMsg::Full => {
                let _ = self.factory.tell(FactoryMsg::Returned(ctx.myself()));
            }
            CustomerMsg::Wait | CustomerMsg::Start => {}
            CustomerMsg::Done => {
                let _ = self.factory.tell(FactoryMsg::Done);
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(&(ref cfg, variant): &(Config, Variant), rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let tally = ResultSlot::new();
    let barber_draws = ResultSlot::new();
    let barber = spawn(
        h,
        Barber {
            draws: Draws::new(cfg.haircut),
            busy: variant.busy_wait(),
            result: barber_draws.clone(),
        },
    );
    let room = spawn(
        h,
        Room {
            seats: cfg.seats,
            waiting: VecDeque::new(),
            barber,
            barber_asleep: true,
        },
    );
    let factory = Spawn::new(Factory {
        cfg: *cfg,
        variant,
        room: None,
        draws: Draws::new(cfg.production),
        busy: variant.busy_wait(),
        tally: Tally::default(),
        result: tally.clone(),
    })
    .batch(variant.factory_batch(DEFAULT_BATCH))
    .spawn(h);
    let _ = factory.send(FactoryMsg::Start(room));
    rt.wait_quiescent();
    let tally = tally.take().map(|t| Tally {
        barber_draws: barber_draws.take().unwrap_or(0),
        ..t
    });
    check(cfg, tally)
}
