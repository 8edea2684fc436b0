//! Big on the sequential floor.

use std::rc::Rc;

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;
use crate::random::PseudoRandom;

use super::{check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let Config { n, w } = *cfg;
    let mut sys = System::new();
    let sink = sys.spawn(Node::Sink(Sink {
        workers: w as u64,
        exits: 0,
        neighbors: None,
    }));
    let bigs: Rc<[ActorId]> = (0..w)
        .map(|id| {
            sys.spawn(Node::Big(Big {
                id: id as i32,
                n,
                sink,
                pings: 0,
                exp_pinger: -1,
                rng: PseudoRandom::new(id as i64),
                neighbors: None,
                pings_handled: 0,
                unexpected_pongs: 0,
            }))
        })
        .collect();
    sys.send(sink, Msg::Neighbors(bigs.clone()));
    for &big in bigs.iter() {
        sys.send(big, Msg::Neighbors(bigs.clone()));
    }
    for &big in bigs.iter() {
        sys.send(big, Msg::Pong(-1));
    }
    sys.run();
    let mut sink_exits = 0;
    let (mut pings_handled, mut unexpected_pongs) = (0, 0);
    for node in sys.actors() {
        match node {
            Node::Sink(s) => sink_exits = s.exits,
            Node::Big(b) => {
                pings_handled += b.pings_handled;
                unexpected_pongs += b.unexpected_pongs;
            }
        }
    }
    check(*cfg, sink_exits, pings_handled, unexpected_pongs)
}

/// The messages of Big.
enum Msg {
    /// Every Big actor, indexed by id.
    Neighbors(Rc<[ActorId]>),
    /// A ping from the Big actor with this id.
    Ping(i32),
    /// A pong from the Big actor with this id (−1: the start signal).
    Pong(i32),
    /// To the Sink: one Big actor is done; to a Big actor: stop.
    Exit,
}

/// The sink and the Big actors.
enum Node {
    Sink(Sink),
    Big(Big),
}

/// Counts exits; stops everyone when all W are done.
struct Sink {
    workers: u64,
    exits: u64,
    neighbors: Option<Rc<[ActorId]>>,
}

/// A Big actor.
struct Big {
    id: i32,
    n: u64,
    sink: ActorId,
    pings: u64,
    exp_pinger: i32,
    rng: PseudoRandom,
    neighbors: Option<Rc<[ActorId]>>,
    /// Pings answered.
    pings_handled: u64,
    unexpected_pongs: u64,
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Sink(sink) => sink.receive(msg, cx),
            Node::Big(big) => big.receive(msg, cx),
        }
    }
}

impl Sink {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Exit => {
                self.exits += 1;
                if self.exits == self.workers {
                    let neighbors = self.neighbors.as_ref().expect("Neighbors comes first");
                    for &big in neighbors.iter() {
                        cx.send(big, Msg::Exit);
                    }
                    cx.exit();
                }
            }
            Msg::Neighbors(all) => self.neighbors = Some(all),
            Msg::Ping(_) | Msg::Pong(_) => unreachable!("big: ping or pong sent to the sink"),
        }
    }
}

impl Big {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Ping(sender) => {
                self.pings_handled += 1;
                let to = self.neighbor(sender as usize);
                cx.send(to, Msg::Pong(self.id));
            }
            Msg::Pong(sender) => {
                if sender != self.exp_pinger {
                    self.unexpected_pongs += 1;
                }
                if self.pings == self.n {
                    cx.send(self.sink, Msg::Exit);
                } else {
                    self.send_ping(cx);
                }
            }
            Msg::Exit => cx.exit(),
            Msg::Neighbors(all) => self.neighbors = Some(all),
        }
    }

    fn neighbor(&self, i: usize) -> ActorId {
        self.neighbors.as_ref().expect("Neighbors comes first")[i]
    }

    /// Pings a random neighbor (possibly itself) and remembers which.
    fn send_ping(&mut self, cx: &mut Context<Node>) {
        let w = self.neighbors.as_ref().map_or(0, |all| all.len());
        let target = self.rng.next_int_below(w as i32);
        self.exp_pinger = target;
        cx.send(self.neighbor(target as usize), Msg::Ping(self.id));
        self.pings += 1;
    }
}
