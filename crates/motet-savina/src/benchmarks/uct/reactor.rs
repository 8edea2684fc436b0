//! Unbalanced Cobwebbed Tree as reactors: the tree's nodes are created while the program runs, by
//! mutations.
//!
//! The Root is a reactor of the program; every node is created by a mutation, the Root's children
//! by the Root's startup reaction (`GenerateTree`), the others by the node told to generate. A
//! node sits beside its creator and is connected:
//!
//! - from its parent's `try`, `traverse` and `terminate` outputs (Savina's `TryGenerateChildren`,
//!   `Traverse` and `Terminate`; one output of the parent feeds all its children);
//! - to channel `i` of its parent's `grants` multiport (`UpdateGrant`; `i` is its index among its
//!   siblings, the value `id mod binomial` as in Savina);
//! - to the Root's mailbox, on the channels of its id: its `request` output
//!   (`ShouldGenerateChildren`, the value is its height) and its `answer` input
//!   (`GenerateChildren` or `UrgentGenerateChildren`).
//!
//! The mailbox is a fixed part of the program: relays of [`FANOUT`] channels each, a tree of them
//! gathering the requests of a tag into one batch for the Root, in id order, and another
//! spreading the Root's answers to the nodes, within the tag they are sent. A node's channels are
//! there from the start, as wide as the tree can grow; each relay has at most [`FANOUT`]
//! connections. (The Root itself connected to every node would cost each mutation the Root's
//! whole list of edges, which the level update visits and the deletion filters: every creation
//! would cost time in proportion to the tree.)
//!
//! A node's `try` reaction asks the Root. The Root decides the requests of a tag in id order with
//! the benchmark's [`RootState`] (so the decisions are the actor program's, whichever node asks)
//! and answers a microstep later, through its zero-delay action `reply`. A node told to generate
//! sends `UpdateGrant` to its parent, requests the mutation that creates its children, and sends
//! them `TryGenerateChildren` a microstep later, once they exist (its action `send`, Savina's send
//! after the spawn). On the request that completes the tree, the Root keeps its report, sends the
//! answers it decided before it at the next microstep, and `Traverse` and then `Terminate` to its
//! children at the one after (its action `finish`); nodes forward both down the tree within that
//! tag, and on `Terminate` each deletes the children it created (their exit). Requests that reach
//! the Root after it finished are dropped, as Savina's exited Root drops them.
//!
//! Where the reactor program differs from the actor flow, in timing only: the Root's answers
//! arrive a microstep after the requests, not as soon as it has handled them. Without that
//! action, every reaction downstream of the Root's decisions (every node's answer reaction) would
//! follow every node's request in the reaction graph, and the level update of each creation,
//! which visits the reactions reachable from the new ones, would visit the whole tree. With it, a
//! creation visits the new nodes, the mailbox relays above them, the Root's request reaction
//! (declared last, so it precedes nothing) and the parent's grant reaction (also last).
//! `Terminate` leaves the Root a microstep after its last answers, so that the nodes told to
//! generate last have created their children when it comes, as in the actor program, where a
//! node's answer comes straight from the Root and `Terminate` down the tree after it: every node
//! the Root grants is created. A node runs Savina's busy loop ([`savina_loop`]) where the actor
//! program does: before it asks the Root, and on `Traverse` (see the module docs of `uct`).
//!
//! Validation: the benchmark's check (the final size is the replay's); the record's
//! `reactors_created` is the final size less one (every node but the Root).

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{
    Input, InputMultiport, Mutation, Output, OutputMultiport, Program, ProgramBuilder, ReactorId,
    Startup,
};

use super::{check, replay, savina_loop, Config, Decision, Report, RootState};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers; the
/// Root's decisions are replayed once, untimed, for the check.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, replay(&cfg).size), threads, model, build)
}

/// Channels per relay of the Root's mailbox.
const FANOUT: usize = 64;

/// The requests of a tag on their way to the Root: (node id, height), in id order.
type Asks = Vec<(u32, i32)>;

/// The Root's answers of a tag on their way to the nodes: (node id, decision), in id order.
type Answers = Vec<(u32, Decision)>;

/// The Root's state.
struct Root {
    state: RootState,
    children: Vec<ReactorId<Node>>,
    has_grant_children: Vec<bool>,
    /// The answers decided at this tag, sent at the next microstep.
    answers: Answers,
    /// Set by the request that completes the tree: the Root's report.
    report: Option<Report>,
    /// Whether the answers of this tag are the last, to be followed by `Traverse` and
    /// `Terminate`.
    finishing: bool,
}

/// A node's state.
struct Node {
    id: i32,
    height: i32,
    /// The length of Savina's busy loop on `Traverse` ([`savina_loop`]`(comp_size, 40000)`).
    comp_size: i32,
    _urgent: bool,
    children: Vec<ReactorId<Node>>,
    has_grant_children: Vec<bool>,
}

/// The mailbox's channels of the nodes: node `id` sends on channel `id % FANOUT` of
/// `asks[id / FANOUT]` and hears on the same channel of `answers[id / FANOUT]`.
struct Mailbox {
    binomial: i32,
    asks: Vec<InputMultiport<i32>>,
    answers: Vec<OutputMultiport<Decision>>,
}

/// The outputs of a node (or of the Root) that its children are connected from, and the
/// multiport its children's grants reach.
#[derive(Clone, Copy)]
struct ParentPorts {
    try_out: Output<()>,
    traverse: Output<()>,
    terminate: Output<()>,
    grants: InputMultiport<i32>,
}

/// What a generating node (or the Root) passes to its children: the first id, their height,
/// their compute size and the urgent child (`-1` for none).
#[derive(Clone, Copy)]
struct Brood {
    first_id: i32,
    height: i32,
    comp_size: i32,
    urgent_child: i32,
}

/// Creates the `binomial` nodes of `brood` in `m`, connected to `parent` and to the mailbox;
/// returns their handles.
fn create_children(
    m: &mut Mutation<'_>,
    mail: &Arc<Mailbox>,
    parent: ParentPorts,
    brood: Brood,
) -> Vec<ReactorId<Node>> {
    (0..mail.binomial)
        .map(|i| {
            let id = brood.first_id + i;
            let state = Node {
                id,
                height: brood.height,
                comp_size: brood.comp_size,
                _urgent: i == brood.urgent_child,
                children: Vec::new(),
                has_grant_children: Vec::new(),
            };
            let (me, ports) = node(m, mail, state);
            let (relay, channel) = (id as usize / FANOUT, id as usize % FANOUT);
            m.connect(parent.try_out, ports.try_in);
            m.connect(parent.traverse, ports.traverse);
            m.connect(parent.terminate, ports.terminate);
            m.connect(ports.grant, parent.grants.channel(i as usize));
            m.connect(ports.request, mail.asks[relay].channel(channel));
            m.connect(mail.answers[relay].channel(channel), ports.answer);
            me
        })
        .collect()
}

/// A node's ports that its parent and the mailbox connect.
struct NodePorts {
    try_in: Input<()>,
    traverse: Input<()>,
    terminate: Input<()>,
    grant: Output<i32>,
    request: Output<i32>,
    answer: Input<Decision>,
}

/// Declares a node with `state` (in a mutation); its children connect to it when it generates.
fn node(m: &mut Mutation<'_>, mail: &Arc<Mailbox>, state: Node) -> (ReactorId<Node>, NodePorts) {
    let b = mail.binomial;
    let me = m.reactor(&format!("node{}", state.id), state);
    let try_in: Input<()> = m.input(me, "try");
    let traverse: Input<()> = m.input(me, "traverse");
    let terminate: Input<()> = m.input(me, "terminate");
    let answer: Input<Decision> = m.input(me, "answer");
    let request: Output<i32> = m.output(me, "request");
    let grant: Output<i32> = m.output(me, "grant");
    let out = ParentPorts {
        try_out: m.output(me, "try_children"),
        traverse: m.output(me, "traverse_children"),
        terminate: m.output(me, "terminate_children"),
        grants: m.input_multiport(me, "grants", b as usize),
    };
    let send = m.logical_action::<(), _>(me, "send", Duration::ZERO);
    // The order of the reactions matters: `send` first and `grant` last (see the module docs).
    m.reaction(me, "send")
        .trigger(send)
        .effect(out.try_out)
        .body(move |_: &mut Node, ctx| ctx.set(out.try_out, ()));
    m.reaction(me, "try")
        .trigger(try_in)
        .effect(request)
        .body(move |s: &mut Node, ctx| {
            savina_loop(100, 40_000);
            ctx.set(request, s.height)
        });
    m.reaction(me, "traverse")
        .trigger(traverse)
        .effect(out.traverse)
        .body(move |s: &mut Node, ctx| {
            savina_loop(s.comp_size, 40_000);
            ctx.set(out.traverse, ())
        });
    m.reaction(me, "terminate")
        .trigger(terminate)
        .effect(out.terminate)
        .mutates()
        .body(move |s: &mut Node, ctx| {
            ctx.set(out.terminate, ());
            let children = std::mem::take(&mut s.children);
            if !children.is_empty() {
                ctx.mutate(move |m| children.into_iter().for_each(|c| m.delete(c)));
            }
        });
    let mail = Arc::clone(mail);
    m.reaction(me, "answer")
        .trigger(answer)
        .effect(grant)
        .effect(send)
        .mutates()
        .body(move |s: &mut Node, ctx| {
            let (current_id, comp_size, urgent_child) = match ctx.get(answer) {
                Some(&Decision::Generate {
                    current_id,
                    comp_size,
                }) => (current_id, comp_size, -1),
                Some(&Decision::Urgent {
                    urgent_child,
                    current_id,
                    comp_size,
                }) => (current_id, comp_size, urgent_child),
                _ => return, // only grants are answered
            };
            ctx.set(grant, s.id % b);
            s.has_grant_children = vec![false; b as usize];
            let brood = Brood {
                first_id: current_id,
                height: s.height + 1,
                comp_size,
                urgent_child,
            };
            let mail = Arc::clone(&mail);
            ctx.mutate(move |m| {
                let children = create_children(m, &mail, out, brood);
                if let Some(s) = m.state_mut(me) {
                    s.children = children;
                }
            });
            ctx.schedule(send, (), Duration::ZERO);
        });
    m.reaction(me, "grant")
        .trigger(out.grants)
        .body(move |s: &mut Node, ctx| {
            for (_, &child) in ctx.present_unordered(out.grants) {
                s.has_grant_children[child as usize] = true;
            }
        });
    let ports = NodePorts {
        try_in,
        traverse,
        terminate,
        grant,
        request,
        answer,
    };
    (me, ports)
}

/// Declares the mailbox for node ids below `width`: returns the nodes' channels, the output
/// that gathers their requests and the input that spreads the answers.
fn mailbox(
    b: &mut ProgramBuilder,
    binomial: i32,
    width: usize,
) -> (Mailbox, Output<Asks>, Input<Answers>) {
    let leaves = width.div_ceil(FANOUT);
    let mut mail = Mailbox {
        binomial,
        asks: Vec::with_capacity(leaves),
        answers: Vec::with_capacity(leaves),
    };
    let mut ups: Vec<Output<Asks>> = Vec::with_capacity(leaves);
    let mut downs: Vec<Input<Answers>> = Vec::with_capacity(leaves);
    for j in 0..leaves {
        let (base, w) = (j * FANOUT, FANOUT.min(width - j * FANOUT));
        let r = b.reactor(&format!("asks0.{j}"), ());
        let asks: InputMultiport<i32> = b.input_multiport(r, "asks", w);
        let up: Output<Asks> = b.output(r, "up");
        b.reaction(r, "gather")
            .trigger(asks)
            .effect(up)
            .body(move |_: &mut (), ctx| {
                let batch = ctx.present(asks).map(|(c, &h)| ((base + c) as u32, h));
                ctx.set(up, batch.collect());
            });
        let r = b.reactor(&format!("answers0.{j}"), ());
        let down: Input<Answers> = b.input(r, "down");
        let answers: OutputMultiport<Decision> = b.output_multiport(r, "answers", w);
        b.reaction(r, "spread")
            .trigger(down)
            .effect(answers)
            .body(move |_: &mut (), ctx| {
                for &(id, d) in ctx.get(down).into_iter().flatten() {
                    ctx.set(answers.channel(id as usize - base), d);
                }
            });
        mail.asks.push(asks);
        mail.answers.push(answers);
        ups.push(up);
        downs.push(down);
    }
    // Ids `span` apart go to neighbouring channels of a relay at this level.
    let (mut level, mut span) = (1, FANOUT);
    while ups.len() > 1 {
        ups =
            ups.chunks(FANOUT)
                .enumerate()
                .map(|(j, chunk)| {
                    let r = b.reactor(&format!("asks{level}.{j}"), ());
                    let asks: InputMultiport<Asks> = b.input_multiport(r, "asks", chunk.len());
                    let up: Output<Asks> = b.output(r, "up");
                    for (c, &o) in chunk.iter().enumerate() {
                        b.connect(o, asks.channel(c));
                    }
                    b.reaction(r, "gather").trigger(asks).effect(up).body(
                        move |_: &mut (), ctx| {
                            let mut batch = Asks::new();
                            for (_, part) in ctx.present(asks) {
                                batch.extend_from_slice(part);
                            }
                            ctx.set(up, batch);
                        },
                    );
                    up
                })
                .collect();
        downs = downs
            .chunks(FANOUT)
            .enumerate()
            .map(|(j, chunk)| {
                let base = j * FANOUT * span;
                let r = b.reactor(&format!("answers{level}.{j}"), ());
                let down: Input<Answers> = b.input(r, "down");
                let outs: OutputMultiport<Answers> = b.output_multiport(r, "down", chunk.len());
                for (c, &i) in chunk.iter().enumerate() {
                    b.connect(outs.channel(c), i);
                }
                let channel = move |&(id, _): &(u32, Decision)| (id as usize - base) / span;
                b.reaction(r, "spread")
                    .trigger(down)
                    .effect(outs)
                    .body(move |_: &mut (), ctx| {
                        let Some(batch) = ctx.get(down) else { return };
                        for run in batch.chunk_by(|x, y| channel(x) == channel(y)) {
                            ctx.set(outs.channel(channel(&run[0])), run.to_vec());
                        }
                    });
                down
            })
            .collect();
        level += 1;
        span *= FANOUT;
    }
    (mail, ups[0], downs[0])
}

/// What reads the result of a built program.
pub(super) struct Uct {
    expected_size: i32,
    root: ReactorId<Root>,
}

/// Builds the program: the Root and its mailbox, for ids below `nodes` (or `binomial + 1`, the
/// Root's children, which it creates whatever `nodes` is).
fn build(&(cfg, expected_size): &(Config, i32)) -> (Program, Uct) {
    let b = cfg.binomial;
    let width = cfg.nodes.max(b + 1) as usize;
    let mut pb = ProgramBuilder::new();
    let me = pb.reactor(
        "root",
        Root {
            state: RootState::new(cfg),
            children: Vec::new(),
            has_grant_children: Vec::new(),
            answers: Vec::new(),
            report: None,
            finishing: false,
        },
    );
    let requests: Input<Asks> = pb.input(me, "requests");
    let answers: Output<Answers> = pb.output(me, "answers");
    let (mail, up, down) = mailbox(&mut pb, b, width);
    pb.connect(up, requests);
    pb.connect(answers, down);
    let mail = Arc::new(mail);
    let out = ParentPorts {
        try_out: pb.output(me, "try_children"),
        traverse: pb.output(me, "traverse_children"),
        terminate: pb.output(me, "terminate_children"),
        grants: pb.input_multiport(me, "grants", b as usize),
    };
    let send = pb.logical_action::<(), _>(me, "send", Duration::ZERO);
    let reply = pb.logical_action::<(), _>(me, "reply", Duration::ZERO);
    let finish = pb.logical_action::<(), _>(me, "finish", Duration::ZERO);
    // The order of the reactions matters: `request` comes last (see the module docs).
    pb.reaction(me, "generate_tree")
        .trigger(Startup)
        .effect(send)
        .mutates()
        .body(move |s: &mut Root, ctx| {
            let (first_id, comp_size) = s.state.generate_tree();
            s.has_grant_children = vec![false; b as usize];
            let brood = Brood {
                first_id,
                height: s.state.height,
                comp_size,
                urgent_child: -1,
            };
            let mail = Arc::clone(&mail);
            ctx.mutate(move |m| {
                let children = create_children(m, &mail, out, brood);
                if let Some(s) = m.state_mut(me) {
                    s.children = children;
                }
            });
            ctx.schedule(send, (), Duration::ZERO);
        });
    pb.reaction(me, "send")
        .trigger(send)
        .effect(out.try_out)
        .body(move |_: &mut Root, ctx| ctx.set(out.try_out, ()));
    pb.reaction(me, "finish")
        .trigger(finish)
        .effect(out.traverse)
        .effect(out.terminate)
        .mutates()
        .body(move |s: &mut Root, ctx| {
            ctx.set(out.traverse, ());
            ctx.set(out.terminate, ());
            let children = std::mem::take(&mut s.children);
            ctx.mutate(move |m| children.into_iter().for_each(|c| m.delete(c)));
        });
    pb.reaction(me, "reply")
        .trigger(reply)
        .effect(answers)
        .effect(finish)
        .body(move |s: &mut Root, ctx| {
            if !s.answers.is_empty() {
                ctx.set(answers, std::mem::take(&mut s.answers));
            }
            if std::mem::take(&mut s.finishing) {
                ctx.schedule(finish, (), Duration::ZERO);
            }
        });
    pb.reaction(me, "grant")
        .trigger(out.grants)
        .body(move |s: &mut Root, ctx| {
            for (_, &child) in ctx.present_unordered(out.grants) {
                s.has_grant_children[child as usize] = true;
            }
        });
    pb.reaction(me, "request")
        .trigger(requests)
        .effect(reply)
        .body(move |s: &mut Root, ctx| {
            let Some(batch) = ctx.get(requests) else {
                return;
            };
            if s.report.is_some() {
                return;
            }
            for &(node, height) in batch {
                match s.state.decide(height) {
                    Decision::Deny => {}
                    Decision::Finish => {
                        s.report = Some(Report {
                            size: s.state.size,
                            height: s.state.height,
                        });
                        s.finishing = true;
                        break;
                    }
                    answer => s.answers.push((node, answer)),
                }
            }
            if s.finishing || !s.answers.is_empty() {
                ctx.schedule(reply, (), Duration::ZERO);
            }
        });
    (
        pb.build().expect("the uct program is well formed"),
        Uct {
            expected_size,
            root: me,
        },
    )
}

impl Built for Uct {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        check(self.expected_size, program.state_mut(self.root).report)
    }
}
