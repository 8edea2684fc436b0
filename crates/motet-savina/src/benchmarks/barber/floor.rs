//! Sleeping Barber on the sequential floor: the actor program's flow (Savina's: the factory spawns
//! all N customers in its `Start` handler, busy-waiting on the shared `Math.random()` after each).
//! `floor-tuned` is the same program as [`Variant::Tuned`], the tuned actor program's flow.

use std::collections::VecDeque;

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Draws, Tally, Variant, Wait};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, Variant::Savina), run)
}

/// The tuned program ([`Variant::Tuned`]); `threads` is ignored.
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, Variant::Tuned), run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(&(ref cfg, variant): &(Config, Variant)) -> Outcome {
    let mut sys = System::new();
    let barber = sys.spawn(Node::Barber(Barber {
        draws: Draws::new(cfg.haircut),
        busy: variant.busy_wait(),
        exited: false,
    }));
    let room = sys.spawn(Node::Room(Room {
        seats: cfg.seats,
        waiting: VecDeque::new(),
        barber,
        barber_asleep: true,
    }));
    let factory = sys.spawn(Node::Factory(Factory {
        cfg: *cfg,
        variant,
        batch: variant.factory_batch(crate::floor::BATCH as u32) as usize,
        room,
        draws: Draws::new(cfg.production),
        busy: variant.busy_wait(),
        tally: Tally::default(),
        finished: false,
    }));
    sys.send(factory, Msg::Start);
    sys.run();
    let (Node::Factory(f), Node::Barber(b)) = (sys.actor(factory), sys.actor(barber)) else {
        unreachable!("the factory and the barber are where they were spawned")
    };
    let tally = (f.finished && b.exited).then_some(Tally {
        barber_draws: b.busy.draws(),
        ..f.tally
    });
    check(cfg, tally)
}

/// The messages of Sleeping Barber.
enum Msg {
    /// To the factory: open the shop.
    Start,
    /// To the factory: create the next customer (the tuned program's factory).
    NextCustomer,
    /// To the factory: this customer was turned away.
    Returned(ActorId),
    /// To the factory: a haircut is done; to a customer: your haircut is done.
    Done,
    /// To the room: a customer comes in.
    Enter(ActorId),
    /// To the barber: serve this customer, then tell this room.
    Serve { customer: ActorId, room: ActorId },
    /// To the room: the barber is free.
    Next,
    /// To a customer or to the barber: wait.
    Wait,
    /// To a customer: no seat left.
    Full,
    /// To a customer: the haircut starts.
    Begin,
    /// To the room and the barber: close.
    Exit,
}

/// The factory, the room, the barber and the customers.
enum Node {
    Factory(Factory),
    Room(Room),
    Barber(Barber),
    Customer(ActorId),
}

struct Factory {
    cfg: Config,
    variant: Variant,
    /// Messages per turn.
    batch: usize,
    room: ActorId,
    draws: Draws,
    busy: Wait,
    tally: Tally,
    finished: bool,
}

struct Room {
    seats: usize,
    waiting: VecDeque<ActorId>,
    barber: ActorId,
    barber_asleep: bool,
}

struct Barber {
    draws: Draws,
    busy: Wait,
    exited: bool,
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Factory(f) => f.receive(msg, cx),
            Node::Room(r) => r.receive(msg, cx),
            Node::Barber(b) => b.receive(msg, cx),
            Node::Customer(factory) => match msg {
                Msg::Full => {
                    let me = cx.me();
                    cx.send(*factory, Msg::Returned(me));
                }
                Msg::Wait | Msg::Begin => {}
                Msg::Done => {
                    cx.send(*factory, Msg::Done);
                    cx.exit();
                }
                _ => unreachable!("barber: unexpected message to a customer"),
            },
        }
    }

    fn batch(&self) -> usize {
        match self {
            Node::Factory(f) => f.batch,
            _ => crate::floor::BATCH,
        }
    }
}

impl Factory {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start if self.cfg.haircuts == 0 => self.finish(cx),
            Msg::Start if self.variant == Variant::Tuned => {
                let me = cx.me();
                cx.send(me, Msg::NextCustomer);
            }
            Msg::Start => {
                // Savina's factory makes every customer in this one handler.
                for _ in 0..self.cfg.haircuts {
                    self.new_customer(cx);
                }
            }
            Msg::NextCustomer => {
                self.new_customer(cx);
                if self.tally.customers < self.cfg.haircuts {
                    let me = cx.me();
                    cx.send(me, Msg::NextCustomer);
                }
            }
            Msg::Returned(customer) => {
                self.tally.attempts += 1;
                cx.send(self.room, Msg::Enter(customer));
            }
            Msg::Done => {
                self.tally.haircuts += 1;
                if self.tally.haircuts == self.cfg.haircuts {
                    self.finish(cx);
                }
            }
            _ => unreachable!("barber: unexpected message to the factory"),
        }
    }

    /// Creates a customer, sends it to the room and busy-waits.
    fn new_customer(&mut self, cx: &mut Context<Node>) {
        let me = cx.me();
        let customer = cx.spawn(Node::Customer(me));
        self.tally.customers += 1;
        self.tally.attempts += 1;
        cx.send(self.room, Msg::Enter(customer));
        self.busy.spin(self.draws.next_wait());
    }

    fn finish(&mut self, cx: &mut Context<Node>) {
        cx.send(self.room, Msg::Exit);
        self.tally.factory_draws = self.busy.draws();
        self.finished = true;
        cx.exit();
    }
}

impl Room {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Enter(customer) => {
                if self.waiting.len() == self.seats {
                    cx.send(customer, Msg::Full);
                } else {
                    self.waiting.push_back(customer);
                    if self.barber_asleep {
                        self.barber_asleep = false;
                        let me = cx.me();
                        cx.send(me, Msg::Next);
                    } else {
                        cx.send(customer, Msg::Wait);
                    }
                }
            }
            Msg::Next => match self.waiting.pop_front() {
                Some(customer) => {
                    let room = cx.me();
                    cx.send(self.barber, Msg::Serve { customer, room });
                }
                None => {
                    cx.send(self.barber, Msg::Wait);
                    self.barber_asleep = true;
                }
            },
            Msg::Exit => {
                cx.send(self.barber, Msg::Exit);
                cx.exit();
            }
            _ => unreachable!("barber: unexpected message to the room"),
        }
    }
}

impl Barber {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Serve { customer, room } => {
                cx.send(customer, Msg::Begin);
                self.busy.spin(self.draws.next_wait());
                cx.send(customer, Msg::Done);
                cx.send(room, Msg::Next);
            }
            Msg::Wait => {}
            Msg::Exit => {
                self.exited = true;
                cx.exit();
            }
            _ => unreachable!("barber: unexpected message to the barber"),
        }
    }
}
