//! Cigarette Smokers on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::BusyWait;
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Picks, BUSY_SEED};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let cfg = &cfg;
    let mut sys = System::new();
    let arbiter = sys.spawn(Node::Arbiter(Arbiter {
        rounds: cfg.rounds,
        played: 0,
        picks: cfg.picks(),
        smokers: Vec::new(),
        done: false,
    }));
    let smokers: Vec<ActorId> = (0..cfg.smokers)
        .map(|_| {
            sys.spawn(Node::Smoker {
                arbiter,
                busy: BusyWait::new(BUSY_SEED),
            })
        })
        .collect();
    sys.send(arbiter, Msg::Start(smokers));
    sys.run();
    let mut rounds = None;
    let mut draws = 0;
    for node in sys.actors() {
        match node {
            Node::Arbiter(a) => rounds = a.done.then_some(a.played),
            Node::Smoker { busy, .. } => draws += busy.draws(),
        }
    }
    check(cfg, rounds, draws)
}

/// The messages of Cigarette Smokers.
enum Msg {
    /// To the Arbiter: the smokers; start the first round.
    Start(Vec<ActorId>),
    /// To the Arbiter: the chosen smoker has started.
    StartedSmoking,
    /// To a smoker: smoke for this many busy-wait draws.
    StartSmoking(u32),
    /// To a smoker: stop.
    Exit,
}

/// The Arbiter and the smokers.
enum Node {
    Arbiter(Arbiter),
    Smoker { arbiter: ActorId, busy: BusyWait },
}

struct Arbiter {
    rounds: u64,
    played: u64,
    picks: Picks,
    smokers: Vec<ActorId>,
    done: bool,
}

impl Arbiter {
    fn notify_random_smoker(&mut self, cx: &mut Context<Node>) {
        let (smoker, period) = self.picks.next_pick();
        cx.send(self.smokers[smoker], Msg::StartSmoking(period));
    }
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Arbiter(a), Msg::Start(smokers)) => {
                a.smokers = smokers;
                a.notify_random_smoker(cx);
            }
            (Node::Arbiter(a), Msg::StartedSmoking) => {
                a.played += 1;
                if a.played >= a.rounds {
                    for &smoker in &a.smokers {
                        cx.send(smoker, Msg::Exit);
                    }
                    a.done = true;
                    cx.exit();
                } else {
                    a.notify_random_smoker(cx);
                }
            }
            (Node::Smoker { arbiter, busy }, Msg::StartSmoking(period)) => {
                cx.send(*arbiter, Msg::StartedSmoking);
                busy.spin(period);
            }
            (Node::Smoker { .. }, Msg::Exit) => cx.exit(),
            _ => unreachable!("cigsmok: message sent to the wrong actor"),
        }
    }
}
