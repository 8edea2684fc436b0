//! Sieve of Eratosthenes on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::held::Held;
use super::{check, expected, Config, Report};

/// Builds the floor program and the expected counts (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        SieveFloor {
            cfg,
            expected: expected(&cfg),
        },
        SieveFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct SieveFloor {
    cfg: Config,
    expected: Report,
}

impl SieveFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let mut sys = System::new();
        let producer = sys.spawn(Node::Producer { cfg: self.cfg });
        let first = sys.spawn(Node::Filter(Filter::new(Held::new(1, self.cfg.m, 2))));
        sys.send(producer, Msg::First(first));
        sys.run();
        let report = sys.actors().iter().find_map(|node| match node {
            Node::Filter(f) => f.report,
            Node::Producer { .. } => None,
        });
        check(self.expected, report)
    }
}

/// The messages of Sieve.
enum Msg {
    /// To the Producer: the first filter.
    First(ActorId),
    /// A number to test.
    Candidate(u64),
    /// The end of the candidates.
    Exit,
}

/// The producer and the filters.
enum Node {
    Producer { cfg: Config },
    Filter(Filter),
}

/// A filter holding up to `m` primes.
struct Filter {
    held: Held,
    next: Option<ActorId>,
    /// Set by the last filter on `Exit`.
    report: Option<Report>,
}

impl Filter {
    fn new(held: Held) -> Filter {
        Filter {
            held,
            next: None,
            report: None,
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Candidate(candidate) => {
                if !self.held.passes(candidate) {
                    return;
                }
                if let Some(next) = self.next {
                    cx.send(next, Msg::Candidate(candidate));
                } else if !self.held.hold(candidate) {
                    let next = Filter::new(self.held.successor(candidate));
                    self.next = Some(cx.spawn(Node::Filter(next)));
                }
            }
            Msg::Exit => {
                match self.next {
                    Some(next) => cx.send(next, Msg::Exit),
                    None => self.report = Some(self.held.report()),
                }
                cx.exit();
            }
            Msg::First(_) => unreachable!("sieve: First sent to a filter"),
        }
    }
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Producer { cfg }, Msg::First(first)) => {
                for candidate in cfg.candidates() {
                    cx.send(first, Msg::Candidate(candidate));
                }
                cx.send(first, Msg::Exit);
                cx.exit();
            }
            (Node::Filter(filter), msg) => filter.receive(msg, cx),
            (Node::Producer { .. }, _) => unreachable!("sieve: a candidate sent to the producer"),
        }
    }
}
