//! Sleeping Barber on the sequential floor: the actor program's flow (Savina's: the factory spawns
//! all N customers in its `Start` handler, busy-waiting on the shared `Math.random()` after each).

use std::collections::VecDeque;

use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::SharedWait;
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Draws, Tally};

pub(super) use super::floor_tuned::prepare_tuned;

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let barber = sys.spawn(Node::Barber(Barber {
        draws: Draws::new(cfg.haircut),
        busy: SharedWait::new(),
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
        room,
        draws: Draws::new(cfg.production),
        busy: SharedWait::new(),
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
    room: ActorId,
    draws: Draws,
    busy: SharedWait,
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
    busy: SharedWait,
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
}

impl Factory {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start => {
                // Savina's factory makes every customer in this one handler.
                let me = cx.me();
                for _ in 0..self.cfg.haircuts {
                    let customer = cx.spawn(Node::Customer(me));
                    self.tally.customers += 1;
                    self.tally.attempts += 1;
                    cx.send(self.room, Msg::Enter(customer));
                    self.busy.spin(self.draws.next_wait());
                }
                if self.cfg.haircuts == 0 {
                    self.finish(cx);
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
