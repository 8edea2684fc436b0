//! Online Facility Location as reactors: the quadrant tree grows while the program runs, by
//! mutations.
//!
//! A Producer and the root quadrant are declared before the run. A quadrant has, from its parent,
//! an input `customer` (a point) and an input `notices` (the parent's `Facility` and
//! `RequestExit` messages of this tag, in order), and toward it an output `up` (its `Facility` and
//! `ConfirmExit` messages); toward its children, output multiports `to_customer` and `to_notices`
//! and an input multiport `from_children`, four channels each, connected when the children are
//! created. Its shared state and rules are the actor program's ([`Quadrant`]).
//!
//! Tags. The Producer sends one customer per tag: its reaction (at startup, then on each
//! `NextCustomer`) sets `customer` on the root, and the root answers on `next_customer`, connected
//! to the Producer with a zero delay (LF's `after 0`), so the next customer comes one microstep
//! later (Savina's one customer in flight). A customer is routed down the tree within its tag, one
//! reaction per level, and so are a parent's notices to its children. A child's messages to its
//! parent take one microstep: they wait in the child's outbox, and its zero-delay action `send_up`
//! sets `up` at the next microstep with everything queued at the tag before. That delay breaks the
//! causality loop parent → child → parent (an inner quadrant passes facilities both ways); where
//! the actor program's parent handles a child's message as soon as its mailbox gives it, here it
//! handles it one microstep after it was sent. Within a tag a quadrant handles its parent's
//! notices, then its children's messages, then the customer: the same order on every run.
//!
//! Partition. A leaf whose cost passes the threshold queues `Facility` for its parent and requests
//! a mutation that creates its four children beside it, each with its share of the leaf's
//! customers (`Quadrant::child`), connected to the leaf's channels: they exist from the next
//! microstep, before any further customer or notice is sent to them (the customer comes last in
//! the tag, so nothing is sent to children not created yet). When a quadrant's
//! four children have confirmed `RequestExit`, it deletes them (their stop); the root does not: its
//! report ends the program, and a mutation requested at the last tag is not applied. It keeps its
//! report in its state.
//!
//! Validation: the benchmark's `check` against the facility count of the program run sequentially
//! on the same points, computed (and the points moved on for the next iteration) untimed, when the
//! iteration's program is built (a rejected mutation fails the run); the record's
//! `reactors_created` is four times the partitions.

use std::time::Duration;

use motet_reactor::{
    Input, InputMultiport, Output, OutputMultiport, Program, ProgramBuilder, ReactorId, Startup,
};

use super::{check, opposite, Config, Point, Points, Quadrant, Report, Stream};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, Stream::new()), threads, model, build)
}

/// A parent's message to a child.
#[derive(Clone, Copy, Debug)]
enum Down {
    /// A facility the parent learnt (`from_child` false), at the parent's depth.
    Facility {
        depth: u32,
        point: Point,
    },
    RequestExit,
}

/// A child's message to its parent.
#[derive(Clone, Copy, Debug)]
enum Up {
    /// A facility opened below the child at quarter `position` of the parent.
    Facility {
        position: usize,
        depth: u32,
        point: Point,
    },
    ConfirmExit {
        facilities: u64,
        customers: u64,
    },
}

/// The Producer's state.
struct Producer {
    points: Points,
    n: u64,
    produced: u64,
}

/// A quadrant's state: the actor program's [`Quadrant`] and what the reactor adds.
struct QuadrantState {
    q: Quadrant,
    /// The four children, recorded by the mutation that created them.
    children: Vec<ReactorId<QuadrantState>>,
    /// Messages for the parent, sent at the next microstep.
    outbox: Vec<Up>,
    /// The root's report.
    report: Option<Report>,
}

impl QuadrantState {
    /// Queues `msg` for the parent; true if the outbox was empty (`send_up` must be scheduled).
    fn queue_up(&mut self, msg: Up) -> bool {
        self.outbox.push(msg);
        self.outbox.len() == 1
    }

    /// All four children have confirmed (or a leaf got `RequestExit`): reports to the parent, or
    /// keeps the root's report; true if `send_up` must be scheduled.
    fn exit(&mut self) -> bool {
        if self.q.position.is_none() {
            self.report = Some(Report::of_root(&self.q));
            return false;
        }
        let (facilities, customers) = self.q.exit_counts();
        self.queue_up(Up::ConfirmExit {
            facilities,
            customers,
        })
    }
}

/// A quadrant's ports, as its parent (or the program) connects them.
struct QuadrantPorts {
    id: ReactorId<QuadrantState>,
    customer: Input<Point>,
    notices: Input<Vec<Down>>,
    up: Output<Vec<Up>>,
    /// The root's answer to each customer (`NextCustomer`).
    reply: Option<Output<()>>,
}

/// Declares a quadrant with state `q` named `name` (in the program or in a mutation); the root
/// (`q` without a position) also answers each customer on an output `next_customer`.
fn quadrant(b: &mut ProgramBuilder, name: String, q: Quadrant) -> QuadrantPorts {
    let root = q.position.is_none();
    let me = b.reactor(
        &name,
        QuadrantState {
            q,
            children: Vec::new(),
            outbox: Vec::new(),
            report: None,
        },
    );
    let customer: Input<Point> = b.input(me, "customer");
    let notices: Input<Vec<Down>> = b.input(me, "notices");
    let up: Output<Vec<Up>> = b.output(me, "up");
    let to_customer: OutputMultiport<Point> = b.output_multiport(me, "to_customer", 4);
    let to_notices: OutputMultiport<Vec<Down>> = b.output_multiport(me, "to_notices", 4);
    let from_children: InputMultiport<Vec<Up>> = b.input_multiport(me, "from_children", 4);
    let send_up = b.logical_action::<(), _>(me, "send_up", Duration::ZERO);
    let reply = root.then(|| b.output::<(), _>(me, "next_customer"));
    b.reaction(me, "send_up")
        .trigger(send_up)
        .effect(up)
        .body(move |s: &mut QuadrantState, ctx| ctx.set(up, std::mem::take(&mut s.outbox)));
    b.reaction(me, "notices")
        .trigger(notices)
        .trigger(from_children)
        .effect(to_notices)
        .effect(send_up)
        .mutates()
        .body(move |s: &mut QuadrantState, ctx| {
            let mut down: [Vec<Down>; 4] = Default::default();
            let mut wake = false;
            let partitioned = s.q.children_boundaries.is_some();
            for &msg in ctx.get(notices).into_iter().flatten() {
                match msg {
                    Down::Facility { depth, point } => {
                        s.q.learn_facility(point, depth, false);
                        if partitioned {
                            let depth = s.q.depth;
                            down.iter_mut()
                                .for_each(|d| d.push(Down::Facility { depth, point }));
                        }
                    }
                    Down::RequestExit if partitioned => {
                        down.iter_mut().for_each(|d| d.push(Down::RequestExit));
                    }
                    Down::RequestExit => wake |= s.exit(),
                }
            }
            for (_, msgs) in ctx.present(from_children) {
                for &msg in msgs {
                    match msg {
                        Up::Facility {
                            position,
                            depth,
                            point,
                        } => {
                            s.q.learn_facility(point, depth, true);
                            if let Some(mine) = s.q.position {
                                wake |= s.queue_up(Up::Facility {
                                    position: mine,
                                    depth,
                                    point,
                                });
                            }
                            let depth = s.q.depth;
                            down[opposite(position)].push(Down::Facility { depth, point });
                        }
                        Up::ConfirmExit {
                            facilities,
                            customers,
                        } => {
                            if s.q.child_exited(facilities, customers) {
                                wake |= s.exit();
                                if s.q.position.is_some() {
                                    let children = std::mem::take(&mut s.children);
                                    ctx.mutate(move |m| {
                                        children.into_iter().for_each(|c| m.delete(c))
                                    });
                                }
                            }
                        }
                    }
                }
            }
            for (i, msgs) in down.into_iter().enumerate() {
                if !msgs.is_empty() {
                    ctx.set(to_notices.channel(i), msgs);
                }
            }
            if wake {
                ctx.schedule(send_up, (), Duration::ZERO);
            }
        });
    let mut customers = b
        .reaction(me, "customer")
        .trigger(customer)
        .effect(to_customer)
        .effect(send_up)
        .mutates();
    if let Some(reply) = reply {
        customers = customers.effect(reply);
    }
    customers.body(move |s: &mut QuadrantState, ctx| {
        let Some(&point) = ctx.get(customer) else {
            return;
        };
        if s.q.children_boundaries.is_none() {
            if s.q.leaf_customer(point) {
                // Savina's partition: `Facility` to the parent, then the four children.
                if let Some(position) = s.q.position {
                    let (depth, point) = (s.q.depth, s.q.boundary.mid());
                    if s.queue_up(Up::Facility {
                        position,
                        depth,
                        point,
                    }) {
                        ctx.schedule(send_up, (), Duration::ZERO);
                    }
                }
                let customers = s.q.partition();
                let children: Vec<Quadrant> = (0..4).map(|i| s.q.child(i, &customers)).collect();
                let name = name.clone();
                ctx.mutate(move |m| {
                    let mut ids = Vec::with_capacity(4);
                    for (i, q) in children.into_iter().enumerate() {
                        let c = quadrant(m, format!("{name}.{i}"), q);
                        m.connect(to_customer.channel(i), c.customer);
                        m.connect(to_notices.channel(i), c.notices);
                        m.connect(c.up, from_children.channel(i));
                        ids.push(c.id);
                    }
                    if let Some(s) = m.state_mut(me) {
                        s.children = ids;
                    }
                });
            }
        } else if let Some(i) = s.q.route(point) {
            ctx.set(to_customer.channel(i), point);
        }
        if let Some(reply) = reply {
            ctx.set(reply, ());
        }
    });
    QuadrantPorts {
        id: me,
        customer,
        notices,
        up,
        reply,
    }
}

/// What reads the result of a built program: the root, and the sequential run's facility count on
/// this iteration's points.
pub(super) struct FacilityLocation {
    cfg: Config,
    sequential: u64,
    root: ReactorId<QuadrantState>,
}

/// Builds the Producer and the root quadrant for the points where the last iteration's stopped;
/// computes the sequential run's count on them and moves the points on (untimed: a program is
/// built in the iteration's setup).
fn build((cfg, stream): &(Config, Stream)) -> (Program, FacilityLocation) {
    let start = stream.start();
    let sequential = super::floor::sequential_facilities(cfg, start.clone());
    stream.advance(cfg);
    let mut b = ProgramBuilder::new();
    let producer = b.reactor(
        "producer",
        Producer {
            points: Points::at(cfg.g, start),
            n: cfg.n,
            produced: 0,
        },
    );
    let customer: Output<Point> = b.output(producer, "customer");
    let exit: Output<Vec<Down>> = b.output(producer, "exit");
    let next: Input<()> = b.input(producer, "next_customer");
    b.reaction(producer, "produce")
        .trigger(Startup)
        .trigger(next)
        .effect(customer)
        .effect(exit)
        .body(move |p: &mut Producer, ctx| {
            if p.produced < p.n {
                ctx.set(customer, p.points.next_point());
                p.produced += 1;
            } else {
                ctx.set(exit, vec![Down::RequestExit]);
            }
        });
    let root = quadrant(&mut b, "root".into(), Quadrant::root(cfg));
    b.connect(customer, root.customer);
    b.connect(exit, root.notices);
    let reply = root.reply.expect("the root answers each customer");
    b.connect_after(reply, next, Duration::ZERO);
    let root = root.id;
    (
        b.build()
            .expect("the facility location program is well formed"),
        FacilityLocation {
            cfg: *cfg,
            sequential,
            root,
        },
    )
}

impl Built for FacilityLocation {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        if let Some(e) = program.mutation_errors().first() {
            return Outcome::failed(format!("a quadrant's mutation was rejected: {e}"));
        }
        let report = program.state_mut(self.root).report;
        check(&self.cfg, self.sequential, report)
    }
}
