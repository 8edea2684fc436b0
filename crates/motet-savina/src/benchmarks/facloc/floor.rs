//! Online Facility Location on the sequential floor: the same actors and messages.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, opposite, Config, Point, Points, Quadrant, Report, Stream};
use crate::random::PseudoRandom;

/// Builds the floor program (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program_validated((cfg, Stream::new()), run, validate)
}

/// One timed iteration: runs the program on a fresh system, on the points where the last
/// iteration stopped; the root's report and where the points started.
fn run((cfg, stream): &(Config, Stream)) -> (Option<Report>, PseudoRandom) {
    let start = stream.start();
    (simulate(cfg, start.clone()), start)
}

/// Checks the report against the sequential run on the same points and moves the points on
/// (untimed).
pub(super) fn validate(
    (cfg, stream): &(Config, Stream),
    (report, start): (Option<Report>, PseudoRandom),
) -> Outcome {
    let outcome = check(cfg, sequential_facilities(cfg, start), report);
    stream.advance(cfg);
    outcome
}

/// The facilities the program opens run sequentially on the points from `start`: the reference
/// every variant's count is checked against.
pub(super) fn sequential_facilities(cfg: &Config, start: PseudoRandom) -> u64 {
    simulate(cfg, start).map_or(0, |r| r.facilities)
}

/// Runs the program once on the sequential actor system and returns the root's report.
fn simulate(cfg: &Config, start: PseudoRandom) -> Option<Report> {
    let mut sys = System::reclaiming();
    let root = sys.spawn(Node::Quadrant(QuadrantNode {
        q: Quadrant::root(cfg),
        parent: None,
        children: Vec::new(),
        report: None,
    }));
    sys.spawn(Node::Producer {
        root,
        points: Points::at(cfg.g, start),
        n: cfg.n,
        produced: 0,
    });
    sys.run();
    let Node::Quadrant(r) = sys.actor(root) else {
        unreachable!("actor 0 is the root quadrant")
    };
    r.report
}

/// The messages of Facility Location.
enum Msg {
    NextCustomer,
    /// A customer; from the Producer to the root it carries the Producer to answer.
    Customer(Point, Option<ActorId>),
    Facility {
        position: Option<usize>,
        depth: u32,
        point: Point,
        from_child: bool,
    },
    RequestExit,
    ConfirmExit {
        facilities: u64,
        customers: u64,
    },
}

/// The Producer and the quadrants.
enum Node {
    Producer {
        root: ActorId,
        points: Points,
        n: u64,
        produced: u64,
    },
    Quadrant(QuadrantNode),
}

struct QuadrantNode {
    q: Quadrant,
    parent: Option<ActorId>,
    children: Vec<ActorId>,
    report: Option<Report>,
}

impl QuadrantNode {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Customer(point, producer) => {
                if self.children.is_empty() {
                    if self.q.leaf_customer(point) {
                        self.partition(cx);
                    }
                } else if let Some(i) = self.q.route(point) {
                    cx.send(self.children[i], Msg::Customer(point, None));
                }
                if let Some(producer) = producer {
                    cx.send(producer, Msg::NextCustomer);
                }
            }
            Msg::Facility {
                position,
                depth,
                point,
                from_child,
            } => {
                self.q.learn_facility(point, depth, from_child);
                let to_children = Msg::Facility {
                    position: None,
                    depth: self.q.depth,
                    point,
                    from_child: false,
                };
                if from_child {
                    if let Some(parent) = self.parent {
                        cx.send(
                            parent,
                            Msg::Facility {
                                position: self.q.position,
                                depth,
                                point,
                                from_child: true,
                            },
                        );
                    }
                    if let Some(&sibling) = position.and_then(|p| self.children.get(opposite(p))) {
                        cx.send(sibling, to_children);
                    }
                } else {
                    for &child in &self.children {
                        cx.send(
                            child,
                            Msg::Facility {
                                position: None,
                                depth: self.q.depth,
                                point,
                                from_child: false,
                            },
                        );
                    }
                }
            }
            Msg::RequestExit => {
                if self.children.is_empty() {
                    self.safely_exit(cx);
                } else {
                    for &child in &self.children {
                        cx.send(child, Msg::RequestExit);
                    }
                }
            }
            Msg::ConfirmExit {
                facilities,
                customers,
            } => {
                if self.q.child_exited(facilities, customers) {
                    self.safely_exit(cx);
                }
            }
            Msg::NextCustomer => unreachable!("facloc: NextCustomer sent to a quadrant"),
        }
    }

    fn partition(&mut self, cx: &mut Context<Node>) {
        if let Some(parent) = self.parent {
            cx.send(
                parent,
                Msg::Facility {
                    position: self.q.position,
                    depth: self.q.depth,
                    point: self.q.boundary.mid(),
                    from_child: true,
                },
            );
        }
        let customers = self.q.partition();
        let me = cx.me();
        self.children = (0..4)
            .map(|position| {
                cx.spawn(Node::Quadrant(QuadrantNode {
                    q: self.q.child(position, &customers),
                    parent: Some(me),
                    children: Vec::new(),
                    report: None,
                }))
            })
            .collect();
    }

    fn safely_exit(&mut self, cx: &mut Context<Node>) {
        match self.parent {
            Some(parent) => {
                let (facilities, customers) = self.q.exit_counts();
                cx.send(
                    parent,
                    Msg::ConfirmExit {
                        facilities,
                        customers,
                    },
                );
            }
            None => self.report = Some(Report::of_root(&self.q)),
        }
        cx.exit();
    }
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Producer {
            root,
            points,
            produced,
            ..
        } = self
        {
            let me = cx.me();
            cx.send(*root, Msg::Customer(points.next_point(), Some(me)));
            *produced += 1;
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Producer {
                root,
                points,
                n,
                produced,
            } => {
                if *produced < *n {
                    let me = cx.me();
                    cx.send(*root, Msg::Customer(points.next_point(), Some(me)));
                    *produced += 1;
                } else {
                    cx.send(*root, Msg::RequestExit);
                    cx.exit();
                }
            }
            Node::Quadrant(q) => q.receive(msg, cx),
        }
    }
}
