//! Mailbox N:1 on the sequential floor: the same senders and receiver on one thread.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Numbered, Tally};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let receiver = sys.spawn(Node::Receiver {
        tally: Tally::new(cfg.s),
        total: cfg.total(),
        done: false,
    });
    let senders: Vec<ActorId> = (0..cfg.s)
        .map(|index| {
            sys.spawn(Node::Sender {
                index,
                m: cfg.m,
                receiver,
            })
        })
        .collect();
    for sender in senders {
        sys.send(sender, Msg::Go);
    }
    sys.run();
    match sys.actor(receiver) {
        Node::Receiver { tally, done, .. } => check(*cfg, done.then_some(tally)),
        Node::Sender { .. } => unreachable!("actor 0 is the receiver"),
    }
}

/// The messages.
enum Msg {
    /// Start sending.
    Go,
    /// One numbered message.
    Numbered(Numbered),
}

/// The two kinds of actor.
enum Node {
    Receiver {
        tally: Tally,
        total: u64,
        done: bool,
    },
    Sender {
        index: u32,
        m: u32,
        receiver: ActorId,
    },
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Receiver { tally, total, done }, Msg::Numbered(msg)) => {
                if tally.count(msg) == *total {
                    *done = true;
                    cx.exit();
                }
            }
            (Node::Sender { index, m, receiver }, Msg::Go) => {
                for seq in 0..*m {
                    cx.send(
                        *receiver,
                        Msg::Numbered(Numbered {
                            sender: *index,
                            seq,
                        }),
                    );
                }
                cx.exit();
            }
            _ => unreachable!("each kind of actor gets only its own messages"),
        }
    }
}
