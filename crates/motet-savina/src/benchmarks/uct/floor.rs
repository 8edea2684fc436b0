//! Unbalanced Cobwebbed Tree on the sequential floor: the same actors and messages, nodes spawned
//! from handlers.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, replay, savina_loop, Config, Decision, Report, RootState};

/// Replays the Root's decisions (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    crate::floor::program(
        UctFloor {
            cfg,
            expected_size: replay(&cfg).size,
        },
        UctFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct UctFloor {
    cfg: Config,
    expected_size: i32,
}

impl UctFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let mut sys = System::new();
        let root = sys.spawn(Tree::Root(Root {
            state: RootState::new(self.cfg),
            binomial: self.cfg.binomial,
            children: Vec::new(),
            has_grant_children: Vec::new(),
            report: None,
        }));
        sys.send(root, Msg::GenerateTree);
        sys.run();
        let Tree::Root(r) = sys.actor(root) else {
            unreachable!("actor 0 is the root")
        };
        check(self.expected_size, r.report)
    }
}

/// The messages of UCT.
enum Msg {
    GenerateTree,
    ShouldGenerateChildren(ActorId, i32),
    TryGenerateChildren,
    GenerateChildren {
        current_id: i32,
        comp_size: i32,
    },
    UrgentGenerateChildren {
        urgent_child: i32,
        current_id: i32,
        comp_size: i32,
    },
    UpdateGrant(i32),
    Traverse,
    Terminate,
}

/// The Root and the nodes.
enum Tree {
    Root(Root),
    Node(Node),
}

struct Root {
    state: RootState,
    binomial: i32,
    children: Vec<ActorId>,
    has_grant_children: Vec<bool>,
    report: Option<Report>,
}

struct Node {
    parent: ActorId,
    root: ActorId,
    binomial: i32,
    height: i32,
    id: i32,
    comp_size: i32,
    _urgent: bool,
    children: Vec<ActorId>,
    has_grant_children: Vec<bool>,
}

impl Node {
    fn new(parent: ActorId, root: ActorId, binomial: i32, height: i32, id: i32) -> Node {
        Node {
            parent,
            root,
            binomial,
            height,
            id,
            comp_size: 0,
            _urgent: false,
            children: Vec::new(),
            has_grant_children: Vec::new(),
        }
    }

    fn generate(&mut self, cx: &mut Context<Tree>, current_id: i32, comp: i32, urgent_child: i32) {
        cx.send(self.parent, Msg::UpdateGrant(self.id % self.binomial));
        self.has_grant_children = vec![false; self.binomial as usize];
        let me = cx.me();
        self.children = (0..self.binomial)
            .map(|i| {
                let mut child = Node::new(
                    me,
                    self.root,
                    self.binomial,
                    self.height + 1,
                    current_id + i,
                );
                child.comp_size = comp;
                child._urgent = i == urgent_child;
                cx.spawn(Tree::Node(child))
            })
            .collect();
        for &child in &self.children {
            cx.send(child, Msg::TryGenerateChildren);
        }
    }
}

impl Actor for Tree {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Tree::Root(root), Msg::GenerateTree) => {
                let (first_id, comp_size) = root.state.generate_tree();
                let (me, height) = (cx.me(), root.state.height);
                root.has_grant_children = vec![false; root.binomial as usize];
                root.children = (0..root.binomial)
                    .map(|i| {
                        let mut child = Node::new(me, me, root.binomial, height, first_id + i);
                        child.comp_size = comp_size;
                        cx.spawn(Tree::Node(child))
                    })
                    .collect();
                for &child in &root.children {
                    cx.send(child, Msg::TryGenerateChildren);
                }
            }
            (Tree::Root(root), Msg::ShouldGenerateChildren(node, height)) => {
                match root.state.decide(height) {
                    Decision::Generate {
                        current_id,
                        comp_size,
                    } => cx.send(
                        node,
                        Msg::GenerateChildren {
                            current_id,
                            comp_size,
                        },
                    ),
                    Decision::Urgent {
                        urgent_child,
                        current_id,
                        comp_size,
                    } => cx.send(
                        node,
                        Msg::UrgentGenerateChildren {
                            urgent_child,
                            current_id,
                            comp_size,
                        },
                    ),
                    Decision::Deny => {}
                    Decision::Finish => {
                        root.report = Some(Report {
                            size: root.state.size,
                            height: root.state.height,
                        });
                        for &child in &root.children {
                            cx.send(child, Msg::Traverse);
                        }
                        for &child in &root.children {
                            cx.send(child, Msg::Terminate);
                        }
                        cx.exit();
                    }
                }
            }
            (Tree::Root(root), Msg::UpdateGrant(child)) => {
                root.has_grant_children[child as usize] = true;
            }
            (Tree::Node(node), Msg::TryGenerateChildren) => {
                savina_loop(100, 40_000);
                let me = cx.me();
                cx.send(node.root, Msg::ShouldGenerateChildren(me, node.height));
            }
            (
                Tree::Node(node),
                Msg::GenerateChildren {
                    current_id,
                    comp_size,
                },
            ) => node.generate(cx, current_id, comp_size, -1),
            (
                Tree::Node(node),
                Msg::UrgentGenerateChildren {
                    urgent_child,
                    current_id,
                    comp_size,
                },
            ) => node.generate(cx, current_id, comp_size, urgent_child),
            (Tree::Node(node), Msg::UpdateGrant(child)) => {
                node.has_grant_children[child as usize] = true;
            }
            (Tree::Node(node), Msg::Traverse) => {
                savina_loop(node.comp_size, 40_000);
                for &child in &node.children {
                    cx.send(child, Msg::Traverse);
                }
            }
            (Tree::Node(node), Msg::Terminate) => {
                for &child in &node.children {
                    cx.send(child, Msg::Terminate);
                }
                cx.exit();
            }
            _ => unreachable!("uct: message sent to the wrong actor"),
        }
    }
}
