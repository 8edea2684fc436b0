//! Sleeping Barber as motet actors, tuned (deviations `batch`, `customer-per-message`,
//! `private-random`): the factory makes one customer per message to itself and yields after each
//! (batch 1), and the factory and the barber busy-wait on generators of their own.

use std::collections::VecDeque;

use motet_actor::{spawn, Actor, Addr, Context, Spawn};
use motet_runtime::Runtime;

use super::{check, Config, Draws, Tally, BUSY_SEED};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::BusyWait;
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers; the factory yields after each customer (batch 1).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, 1), threads, run)
}

enum FactoryMsg {
    /// Open the shop: the room to send customers to.
    Start(Addr<RoomMsg>),
    /// Create the next customer.
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
    room: Option<Addr<RoomMsg>>,
    draws: Draws,
    busy: BusyWait,
    tally: Tally,
    result: ResultSlot<Tally>,
}

impl Factory {
    fn send_to_room(&self, customer: Addr<CustomerMsg>) {
        if let Some(room) = &self.room {
            let _ = room.tell(RoomMsg::Enter(customer));
        }
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
                } else {
                    let _ = ctx.myself().send(FactoryMsg::NextCustomer);
                }
            }
            FactoryMsg::NextCustomer => {
                let customer = ctx.spawn(Customer {
                    factory: ctx.myself(),
                });
                self.tally.customers += 1;
                self.tally.attempts += 1;
                self.send_to_room(customer);
                self.busy.spin(self.draws.next_wait());
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
    busy: BusyWait,
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
fn run((cfg, batch): &(Config, u32), rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let tally = ResultSlot::new();
    let barber_draws = ResultSlot::new();
    let barber = spawn(
        h,
        Barber {
            draws: Draws::new(cfg.haircut),
            busy: BusyWait::new(BUSY_SEED),
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
        room: None,
        draws: Draws::new(cfg.production),
        busy: BusyWait::new(BUSY_SEED),
        tally: Tally::default(),
        result: tally.clone(),
    })
    .batch(*batch)
    .spawn(h);
    let _ = factory.send(FactoryMsg::Start(room));
    rt.wait_quiescent();
    let tally = tally.take().map(|t| Tally {
        barber_draws: barber_draws.take().unwrap_or(0),
        ..t
    });
    check(cfg, tally)
}
