//! Bitonic Sort on the sequential floor: the same network, built the same way (composite actors
//! spawn their parts when they start), with the same message flow on the floor's actor system.

use super::network::{After, Kind, Msg, Net, Report};
use super::{check, Config, Expected};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Computes the expected sum and checksum (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        BitonicFloor {
            cfg,
            expected: Expected::new(&cfg),
        },
        BitonicFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct BitonicFloor {
    cfg: Config,
    expected: Expected,
}

impl BitonicFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let mut sys = System::reclaiming();
        let validation = sys.spawn(Node {
            kind: Kind::validation(),
            report: None,
        });
        let adapter = sys.spawn(Node::new(Kind::DataValueAdapter { next: validation }));
        let kernel = sys.spawn(Node::new(Kind::Kernel {
            n: self.cfg.n,
            up: true,
            next: adapter,
            entry: None,
        }));
        let source = sys.spawn(Node::new(Kind::Source {
            n: self.cfg.n,
            m: self.cfg.m,
            seed: self.cfg.seed,
            next: kernel,
        }));
        sys.send(source, Msg::Start);
        sys.run();
        check(&self.cfg, &self.expected, sys.actor(validation).report)
    }
}

/// An actor of the network.
struct Node {
    kind: Kind<ActorId>,
    /// The validation actor's report, once it has exited.
    report: Option<Report>,
}

impl Node {
    fn new(kind: Kind<ActorId>) -> Node {
        Node { kind, report: None }
    }
}

/// The network's view of the floor's context.
struct FloorNet<'c> {
    cx: &'c mut Context<Node>,
}

impl Net for FloorNet<'_> {
    type Addr = ActorId;

    fn spawn(&mut self, kind: Kind<ActorId>) -> ActorId {
        self.cx.spawn(Node::new(kind))
    }

    // Always inlined, as `Context::send` is: a handler's sends then cost no call.
    #[inline(always)]
    fn send(&mut self, to: &ActorId, msg: Msg) {
        self.cx.send(*to, msg);
    }
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        self.kind.started(&mut FloorNet { cx });
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self.kind.receive(msg, &mut FloorNet { cx }) {
            After::Continue => {}
            After::Exit => cx.exit(),
            After::Report(report) => {
                self.report = Some(report);
                cx.exit();
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::Node;
    use crate::benchmarks::bitonicsort::network::{Kind, Msg};
    use crate::floor::System;

    /// The network has log n (log n + 1) / 2 layers of n/2 compare-exchange actors (SPEC.md: 78
    /// layers of 2,048 at the defaults, 159,744 in all); here n = 64: 21 layers of 32.
    #[test]
    fn the_network_has_a_layer_of_compare_exchanges_per_step() {
        let mut sys = System::new();
        let validation = sys.spawn(Node {
            kind: Kind::validation(),
            report: None,
        });
        let kernel = sys.spawn(Node::new(Kind::Kernel {
            n: 64,
            up: true,
            next: validation,
            entry: None,
        }));
        sys.send(kernel, Msg::Value(1));
        sys.send(kernel, Msg::Exit);
        sys.run();
        let exchanges = sys
            .actors()
            .iter()
            .filter(|a| matches!(a.kind, Kind::CompareExchange { .. }))
            .count();
        assert_eq!(exchanges, 21 * 32);
        assert_eq!(sys.exited(), sys.actors().len(), "Exit reaches every actor");
    }
}
