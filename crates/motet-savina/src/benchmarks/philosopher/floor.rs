//! Dining Philosophers on the sequential floor: the actor program's flow (`Hungry` carries the
//! philosopher's address).

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Forks, ARBITRATOR_BATCH};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, crate::floor::BATCH), run)
}

/// As [`prepare`], with the Arbitrator's batch [`ARBITRATOR_BATCH`] (deviation `batch`).
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(
        (Config::from_params(params)?, ARBITRATOR_BATCH as usize),
        run,
    )
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run((cfg, batch): &(Config, usize)) -> Outcome {
    let Config { n, m, .. } = *cfg;
    let mut sys = System::new();
    let arbitrator = sys.spawn(Node::Arbitrator(Arbitrator {
        batch: *batch,
        philosophers: n,
        forks: Forks::new(n),
        exited: 0,
    }));
    let philosophers: Vec<ActorId> = (0..n)
        .map(|id| {
            sys.spawn(Node::Philosopher(Philosopher {
                id: id as u32,
                rounds: m,
                eaten: 0,
                denials: 0,
                arbitrator,
            }))
        })
        .collect();
    for &philosopher in &philosophers {
        sys.send(philosopher, Msg::Start);
    }
    sys.run();
    let (mut meals, mut denials) = (0, 0);
    let mut forks = None;
    for node in sys.actors() {
        match node {
            Node::Arbitrator(a) if a.exited == n => forks = Some(&a.forks),
            Node::Arbitrator(_) => {}
            Node::Philosopher(p) => {
                meals += p.eaten;
                denials += p.denials;
            }
        }
    }
    check(cfg, meals, denials, forks)
}

/// The messages of Dining Philosophers.
enum Msg {
    /// To the Arbitrator, from philosopher `id` at this address.
    Hungry(ActorId, u32),
    /// To the Arbitrator: philosopher `id` has eaten; free its forks.
    Done(u32),
    /// To the Arbitrator: a philosopher has eaten all its rounds.
    Exit,
    /// To a philosopher: get hungry.
    Start,
    /// To a philosopher: a fork is taken; ask again.
    Denied,
    /// To a philosopher: both forks are yours.
    Eat,
}

/// The Arbitrator and the philosophers.
enum Node {
    Arbitrator(Arbitrator),
    Philosopher(Philosopher),
}

struct Arbitrator {
    /// Messages per turn.
    batch: usize,
    philosophers: usize,
    forks: Forks,
    exited: usize,
}

struct Philosopher {
    id: u32,
    rounds: u64,
    eaten: u64,
    denials: u64,
    arbitrator: ActorId,
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Arbitrator(a) => a.receive(msg, cx),
            Node::Philosopher(p) => p.receive(msg, cx),
        }
    }

    fn batch(&self) -> usize {
        match self {
            Node::Arbitrator(a) => a.batch,
            Node::Philosopher(_) => crate::floor::BATCH,
        }
    }
}

impl Arbitrator {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Hungry(from, id) => {
                let answer = if self.forks.try_grant(id) {
                    Msg::Eat
                } else {
                    Msg::Denied
                };
                cx.send(from, answer);
            }
            Msg::Done(id) => self.forks.release(id),
            Msg::Exit => {
                self.exited += 1;
                if self.exited == self.philosophers {
                    cx.exit();
                }
            }
            Msg::Start | Msg::Denied | Msg::Eat => {
                unreachable!("philosopher: philosopher message sent to the arbitrator")
            }
        }
    }
}

impl Philosopher {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start => {
                let me = cx.me();
                cx.send(self.arbitrator, Msg::Hungry(me, self.id));
            }
            Msg::Denied => {
                self.denials += 1;
                let me = cx.me();
                cx.send(self.arbitrator, Msg::Hungry(me, self.id));
            }
            Msg::Eat => {
                self.eaten += 1;
                cx.send(self.arbitrator, Msg::Done(self.id));
                if self.eaten < self.rounds {
                    let me = cx.me();
                    cx.send(me, Msg::Start);
                } else {
                    cx.send(self.arbitrator, Msg::Exit);
                    cx.exit();
                }
            }
            _ => unreachable!("philosopher: arbitrator message sent to a philosopher"),
        }
    }
}
