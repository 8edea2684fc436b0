//! Thread Ring on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, Counts};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let Config { n, r } = *cfg;
    let mut sys = System::new();
    let ring: Vec<ActorId> = (0..n)
        .map(|_| {
            sys.spawn(RingNode {
                n: n as u64,
                next: None,
                got_zero: false,
                pings: 0,
                exited: false,
            })
        })
        .collect();
    for (i, &node) in ring.iter().enumerate() {
        sys.send(node, Msg::Data(ring[(i + 1) % n]));
    }
    sys.send(ring[0], Msg::Ping(r));
    sys.run();
    let nodes = sys.actors();
    let counts = Counts {
        zero_at: nodes.iter().position(|node| node.got_zero),
        pings: nodes.iter().map(|node| node.pings).sum(),
        exits: Some(nodes.iter().filter(|node| node.exited).count() as u64),
    };
    check(*cfg, counts)
}

/// The messages of Thread Ring.
enum Msg {
    /// From the main thread: the next actor in the ring.
    Data(ActorId),
    /// The token, with the passes left.
    Ping(u64),
    /// The exit wave, with the hops left.
    Exit(u64),
}

/// A ring actor.
struct RingNode {
    /// Actors in the ring (the length of the exit wave).
    n: u64,
    next: Option<ActorId>,
    got_zero: bool,
    /// Pings handled.
    pings: u64,
    /// Whether it handled an exit (and stopped).
    exited: bool,
}

impl RingNode {
    fn next(&self) -> ActorId {
        self.next
            .expect("threadring: Data arrives before the token")
    }
}

impl Actor for RingNode {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match msg {
            Msg::Data(next) => self.next = Some(next),
            Msg::Ping(0) => {
                self.pings += 1;
                self.got_zero = true;
                cx.send(self.next(), Msg::Exit(self.n));
            }
            Msg::Ping(k) => {
                self.pings += 1;
                cx.send(self.next(), Msg::Ping(k - 1));
            }
            Msg::Exit(e) => {
                if e > 0 {
                    cx.send(self.next(), Msg::Exit(e - 1));
                }
                self.exited = true;
                cx.exit();
            }
        }
    }
}
