//! Counting Actor on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let counter = sys.spawn(Node::Counter { count: 0 });
    let producer = sys.spawn(Node::Producer {
        counter,
        n: cfg.n,
        result: None,
    });
    sys.send(producer, Msg::Increment);
    sys.run();
    let Node::Producer { result, .. } = *sys.actor(producer) else {
        unreachable!("actor 1 is the producer")
    };
    match result {
        Some(count) => check(cfg.n, count),
        None => Outcome::failed("the producer received no result"),
    }
}

/// The messages of Counting Actor.
enum Msg {
    /// To the Producer (start) and to the Counter (add one).
    Increment,
    /// To the Counter: reply with the count to this actor.
    Retrieve(ActorId),
    /// The Counter's reply.
    Result(u64),
}

/// The two actors.
enum Node {
    Producer {
        counter: ActorId,
        n: u64,
        result: Option<u64>,
    },
    Counter {
        count: u64,
    },
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Producer { counter, n, .. }, Msg::Increment) => {
                for _ in 0..*n {
                    cx.send(*counter, Msg::Increment);
                }
                let me = cx.me();
                cx.send(*counter, Msg::Retrieve(me));
            }
            (Node::Producer { result, .. }, Msg::Result(count)) => {
                *result = Some(count);
                cx.exit();
            }
            (Node::Counter { count }, Msg::Increment) => *count += 1,
            (Node::Counter { count }, Msg::Retrieve(to)) => {
                cx.send(to, Msg::Result(*count));
                cx.exit();
            }
            _ => unreachable!("count: message sent to the wrong actor"),
        }
    }
}
