//! Cigarette Smokers on the sequential floor: the actor program's flow (the Arbiter creates the
//! smokers as it starts; they busy-wait on the shared `Math.random()`).

use crate::bench::{Outcome, Prepared};
use crate::benchmarks::busy_wait::SharedWait;
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Picks};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let cfg = &cfg;
    let mut sys = System::new();
    let arbiter = sys.spawn(Node::Arbiter(Arbiter {
        smokers_wanted: cfg.smokers,
        rounds: cfg.rounds,
        played: 0,
        picks: cfg.picks(),
        smokers: Vec::new(),
        done: false,
    }));
    sys.send(arbiter, Msg::Start);
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
    /// To the Arbiter: start the first round.
    Start,
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
    Smoker { arbiter: ActorId, busy: SharedWait },
}

struct Arbiter {
    smokers_wanted: usize,
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

    /// The Arbiter creates the smokers, as Savina's does in its constructor.
    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Arbiter(a) = self {
            let arbiter = cx.me();
            a.smokers = (0..a.smokers_wanted)
                .map(|_| {
                    cx.spawn(Node::Smoker {
                        arbiter,
                        busy: SharedWait::new(),
                    })
                })
                .collect();
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Arbiter(a), Msg::Start) => a.notify_random_smoker(cx),
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
