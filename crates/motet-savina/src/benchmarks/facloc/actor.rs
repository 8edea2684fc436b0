//! Online Facility Location as motet actors; a partitioning quadrant creates its four children from
//! its handler.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{opposite, Config, Point, Points, Quadrant, Report, Stream};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;
use crate::random::PseudoRandom;

/// Builds the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare_validated((cfg, Stream::new()), threads, run, validate)
}

/// Checks the report against the sequential run on the same points and moves the points on
/// (untimed).
fn validate(program: &(Config, Stream), ended: (Option<Report>, PseudoRandom)) -> Outcome {
    super::floor::validate(program, ended)
}

/// The Producer's one message.
struct NextCustomer;

enum QuadMsg {
    /// A customer; from the Producer to the root it carries the Producer to answer.
    Customer(Point, Option<Addr<NextCustomer>>),
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

/// Sends the customers one at a time, each after the root's `NextCustomer`.
struct Producer {
    root: Addr<QuadMsg>,
    points: Points,
    n: u64,
    produced: u64,
}

impl Producer {
    fn produce(&mut self, ctx: &mut Context<'_, Self>) {
        let point = self.points.next_point();
        let _ = self.root.tell(QuadMsg::Customer(point, Some(ctx.myself())));
        self.produced += 1;
    }
}

impl Actor for Producer {
    type Msg = NextCustomer;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.produce(ctx);
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, _msg: NextCustomer) {
        if self.produced < self.n {
            self.produce(ctx);
        } else {
            let _ = self.root.tell(QuadMsg::RequestExit);
            ctx.stop();
        }
    }
}

/// A quadrant of the grid.
struct QuadrantActor {
    q: Quadrant,
    parent: Option<Addr<QuadMsg>>,
    children: Vec<Addr<QuadMsg>>,
    /// The root's report goes here.
    result: Option<ResultSlot<Report>>,
}

impl QuadrantActor {
    fn partition(&mut self, ctx: &mut Context<'_, Self>) {
        if let Some(parent) = &self.parent {
            let _ = parent.tell(QuadMsg::Facility {
                position: self.q.position,
                depth: self.q.depth,
                point: self.q.boundary.mid(),
                from_child: true,
            });
        }
        let customers = self.q.partition();
        self.children = (0..4)
            .map(|position| {
                ctx.spawn(QuadrantActor {
                    q: self.q.child(position, &customers),
                    parent: Some(ctx.myself()),
                    children: Vec::new(),
                    result: None,
                })
            })
            .collect();
    }

    fn safely_exit(&mut self, ctx: &mut Context<'_, Self>) {
        match self.parent.take() {
            Some(parent) => {
                let (facilities, customers) = self.q.exit_counts();
                let _ = parent.send(QuadMsg::ConfirmExit {
                    facilities,
                    customers,
                });
            }
            None => {
                if let Some(result) = &self.result {
                    result.set(Report::of_root(&self.q));
                }
            }
        }
        self.children.clear();
        ctx.stop();
    }
}

impl Actor for QuadrantActor {
    type Msg = QuadMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: QuadMsg) {
        match msg {
            QuadMsg::Customer(point, producer) => {
                if self.children.is_empty() {
                    if self.q.leaf_customer(point) {
                        self.partition(ctx);
                    }
                } else if let Some(i) = self.q.route(point) {
                    let _ = self.children[i].tell(QuadMsg::Customer(point, None));
                }
                if let Some(producer) = producer {
                    let _ = producer.send(NextCustomer);
                }
            }
            QuadMsg::Facility {
                position,
                depth,
                point,
                from_child,
            } => {
                self.q.learn_facility(point, depth, from_child);
                let to_children = QuadMsg::Facility {
                    position: None,
                    depth: self.q.depth,
                    point,
                    from_child: false,
                };
                if from_child {
                    if let Some(parent) = &self.parent {
                        let _ = parent.tell(QuadMsg::Facility {
                            position: self.q.position,
                            depth,
                            point,
                            from_child: true,
                        });
                    }
                    if let Some(sibling) = position.and_then(|p| self.children.get(opposite(p))) {
                        let _ = sibling.tell(to_children);
                    }
                } else {
                    for child in &self.children {
                        let _ = child.tell(QuadMsg::Facility {
                            position: None,
                            depth: self.q.depth,
                            point,
                            from_child: false,
                        });
                    }
                }
            }
            QuadMsg::RequestExit => {
                if self.children.is_empty() {
                    self.safely_exit(ctx);
                } else {
                    for child in &self.children {
                        let _ = child.tell(QuadMsg::RequestExit);
                    }
                }
            }
            QuadMsg::ConfirmExit {
                facilities,
                customers,
            } => {
                if self.q.child_exited(facilities, customers) {
                    self.safely_exit(ctx);
                }
            }
        }
    }
}

/// One timed iteration: creates the root quadrant and the Producer, on the points where the last
/// iteration stopped, and runs to quiescence; the root's report and where the points started.
fn run((cfg, stream): &(Config, Stream), rt: &Runtime) -> (Option<Report>, PseudoRandom) {
    let start = stream.start();
    let result = ResultSlot::new();
    let h = rt.handle();
    let root = spawn(
        h,
        QuadrantActor {
            q: Quadrant::root(cfg),
            parent: None,
            children: Vec::new(),
            result: Some(result.clone()),
        },
    );
    drop(spawn(
        h,
        Producer {
            root,
            points: Points::at(cfg.g, start.clone()),
            n: cfg.n,
            produced: 0,
        },
    ));
    rt.wait_quiescent();
    (result.take(), start)
}
