//! Mixed load on the sequential floor: the same rings, workers and collector on one thread.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, factorize, Config, Tally};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    program(Config::from_params(params)?, threads)
}

/// Builds the program for `cfg`.
pub(super) fn program(cfg: Config, _threads: usize) -> Prepared {
    crate::floor::program(cfg, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(&cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let collector = sys.spawn(Node::Collector {
        cfg,
        tally: Tally::default(),
        done: false,
    });
    let masters: Vec<ActorId> = (0..cfg.r)
        .map(|_| {
            let worker = sys.spawn(Node::Worker { collector });
            sys.spawn(Node::Master {
                cfg,
                rings_left: cfg.k,
                tokens: 0,
                next: None,
                worker,
                collector,
            })
        })
        .collect();
    for master in masters {
        sys.send(master, Msg::Build);
    }
    sys.run();
    match sys.actor(collector) {
        Node::Collector { tally, done, .. } => check(&cfg, done.then_some(tally)),
        _ => unreachable!("actor 0 is the collector"),
    }
}

/// The messages.
enum Msg {
    /// Build the first ring.
    Build,
    /// The token.
    Token(u64),
    /// Factor this number.
    Calc(u64),
    /// A factorization.
    Factors(Vec<u64>),
    /// A master is done, having seen this many tokens.
    Done(u64),
}

/// The kinds of actor.
enum Node {
    Master {
        cfg: Config,
        rings_left: u64,
        tokens: u64,
        next: Option<ActorId>,
        worker: ActorId,
        collector: ActorId,
    },
    Link {
        next: ActorId,
    },
    Worker {
        collector: ActorId,
    },
    Collector {
        cfg: Config,
        tally: Tally,
        done: bool,
    },
}

/// Spawns `cfg.l` links behind the master `me`, starts the token and the factorization; returns
/// the ring's first link (or the master itself).
fn build(cfg: &Config, worker: ActorId, cx: &mut Context<Node>) -> ActorId {
    let mut next = cx.me();
    for _ in 0..cfg.l {
        next = cx.spawn(Node::Link { next });
    }
    cx.send(next, Msg::Token(cfg.t));
    cx.send(worker, Msg::Calc(cfg.number));
    next
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (
                Node::Master {
                    cfg, next, worker, ..
                },
                Msg::Build,
            ) => *next = Some(build(cfg, *worker, cx)),
            (
                Node::Master {
                    cfg,
                    rings_left,
                    tokens,
                    next,
                    worker,
                    collector,
                },
                Msg::Token(x),
            ) => {
                *tokens += 1;
                if x > 0 {
                    if let Some(next) = *next {
                        cx.send(next, Msg::Token(x - 1));
                    }
                    return;
                }
                *rings_left -= 1;
                if *rings_left > 0 {
                    *next = Some(build(cfg, *worker, cx));
                } else {
                    *next = None;
                    cx.send(*collector, Msg::Done(*tokens));
                    cx.exit();
                }
            }
            (Node::Link { next }, Msg::Token(n)) => {
                cx.send(*next, Msg::Token(n));
                if n == 0 {
                    cx.exit();
                }
            }
            (Node::Worker { collector }, Msg::Calc(n)) => {
                cx.send(*collector, Msg::Factors(factorize(n)));
            }
            (Node::Collector { cfg, tally, done }, msg) => {
                match msg {
                    Msg::Factors(factors) => tally.factors(factors, &cfg.factors),
                    Msg::Done(tokens) => tally.done(tokens),
                    _ => unreachable!("the collector gets factors and dones"),
                }
                if tally.complete(cfg) {
                    *done = true;
                    cx.exit();
                }
            }
            _ => unreachable!("each kind of actor gets only its own messages"),
        }
    }
}
