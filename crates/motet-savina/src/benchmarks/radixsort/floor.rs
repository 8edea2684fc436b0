//! Radix Sort on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Expected, Seen};

/// Builds the floor program and the expected result (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        RadixFloor {
            cfg,
            expected: Expected::of(&cfg),
        },
        RadixFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct RadixFloor {
    cfg: Config,
    expected: Expected,
}

impl RadixFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let cfg = self.cfg;
        let mut sys = System::new();
        let validation = sys.spawn(Node::Validation {
            n: cfg.n,
            seen: Seen::default(),
        });
        let source = sys.spawn(Node::Source { cfg });
        let mut next = validation;
        for radix in cfg.radices() {
            next = sys.spawn(Node::Sort {
                n: cfg.n,
                radix,
                received: 0,
                kept: Vec::new(),
                next,
            });
        }
        sys.send(source, Msg::NextActor(next));
        sys.run();
        let Node::Validation { n, seen } = sys.actor(validation) else {
            unreachable!("actor 0 is the validation stage")
        };
        check(&self.expected, (seen.count == *n).then_some(*seen))
    }
}

/// The messages of Radix Sort.
enum Msg {
    /// To the Source: the first stage.
    NextActor(ActorId),
    /// A value on its way through the pipeline.
    Value(u64),
}

/// The source, the sort stages and the validation stage.
enum Node {
    Source {
        cfg: Config,
    },
    Sort {
        n: u64,
        radix: u64,
        received: u64,
        kept: Vec<u64>,
        next: ActorId,
    },
    Validation {
        n: u64,
        seen: Seen,
    },
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Source { cfg }, Msg::NextActor(first)) => {
                for value in cfg.values() {
                    cx.send(first, Msg::Value(value));
                }
                cx.exit();
            }
            (
                Node::Sort {
                    n,
                    radix,
                    received,
                    kept,
                    next,
                },
                Msg::Value(value),
            ) => {
                *received += 1;
                if value & *radix == 0 {
                    cx.send(*next, Msg::Value(value));
                } else {
                    kept.push(value);
                }
                if *received == *n {
                    for &v in kept.iter() {
                        cx.send(*next, Msg::Value(v));
                    }
                    cx.exit();
                }
            }
            (Node::Validation { n, seen }, Msg::Value(value)) => {
                seen.push(value);
                if seen.count == *n {
                    cx.exit();
                }
            }
            _ => unreachable!("radixsort: message sent to the wrong actor"),
        }
    }
}
