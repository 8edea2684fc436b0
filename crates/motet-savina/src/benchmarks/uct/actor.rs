//! Unbalanced Cobwebbed Tree as motet actors; nodes create their children from their handlers.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, replay, savina_loop, Config, Decision, Report, RootState};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime and replays the Root's decisions (both untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare((cfg, replay(&cfg).size), threads, run)
}

enum RootMsg {
    GenerateTree,
    ShouldGenerateChildren(Addr<NodeMsg>, i32),
    UpdateGrant(i32),
}

enum NodeMsg {
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

/// The Root: decides who may generate children.
struct Root {
    state: RootState,
    binomial: i32,
    children: Vec<Addr<NodeMsg>>,
    has_grant_children: Vec<bool>,
    result: ResultSlot<Report>,
}

impl Root {
    /// Reports, traverses and terminates the tree, and exits.
    fn finish(&mut self, ctx: &mut Context<'_, Self>) {
        self.result.set(Report {
            size: self.state.size,
            height: self.state.height,
        });
        for child in &self.children {
            let _ = child.tell(NodeMsg::Traverse);
        }
        for child in self.children.drain(..) {
            let _ = child.send(NodeMsg::Terminate);
        }
        ctx.stop();
    }
}

impl Actor for Root {
    type Msg = RootMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: RootMsg) {
        match msg {
            RootMsg::GenerateTree => {
                let (first_id, comp_size) = self.state.generate_tree();
                let height = self.state.height;
                self.has_grant_children = vec![false; self.binomial as usize];
                self.children = (0..self.binomial)
                    .map(|i| {
                        ctx.spawn(Node::new(
                            None,
                            ctx.myself(),
                            self.binomial,
                            height,
                            first_id + i,
                            comp_size,
                            false,
                        ))
                    })
                    .collect();
                for child in &self.children {
                    let _ = child.tell(NodeMsg::TryGenerateChildren);
                }
            }
            RootMsg::ShouldGenerateChildren(node, height) => match self.state.decide(height) {
                Decision::Generate {
                    current_id,
                    comp_size,
                } => {
                    let _ = node.send(NodeMsg::GenerateChildren {
                        current_id,
                        comp_size,
                    });
                }
                Decision::Urgent {
                    urgent_child,
                    current_id,
                    comp_size,
                } => {
                    let _ = node.send(NodeMsg::UrgentGenerateChildren {
                        urgent_child,
                        current_id,
                        comp_size,
                    });
                }
                Decision::Deny => {}
                Decision::Finish => self.finish(ctx),
            },
            RootMsg::UpdateGrant(child) => self.has_grant_children[child as usize] = true,
        }
    }
}

/// A tree node.
struct Node {
    /// `None` for the Root's children (their parent is `root`).
    parent: Option<Addr<NodeMsg>>,
    root: Addr<RootMsg>,
    binomial: i32,
    height: i32,
    id: i32,
    /// The length of Savina's busy loop on `Traverse` ([`savina_loop`]`(comp_size, 40000)`).
    comp_size: i32,
    _urgent: bool,
    children: Vec<Addr<NodeMsg>>,
    has_grant_children: Vec<bool>,
}

impl Node {
    fn new(
        parent: Option<Addr<NodeMsg>>,
        root: Addr<RootMsg>,
        binomial: i32,
        height: i32,
        id: i32,
        comp_size: i32,
        urgent: bool,
    ) -> Node {
        Node {
            parent,
            root,
            binomial,
            height,
            id,
            comp_size,
            _urgent: urgent,
            children: Vec::new(),
            has_grant_children: Vec::new(),
        }
    }

    /// Tells the parent, creates the children and sends them `TryGenerateChildren`.
    fn generate(
        &mut self,
        ctx: &mut Context<'_, Self>,
        current_id: i32,
        comp_size: i32,
        urgent_child: i32,
    ) {
        let grant = self.id % self.binomial;
        match &self.parent {
            Some(parent) => {
                let _ = parent.tell(NodeMsg::UpdateGrant(grant));
            }
            None => {
                let _ = self.root.tell(RootMsg::UpdateGrant(grant));
            }
        }
        self.has_grant_children = vec![false; self.binomial as usize];
        self.children = (0..self.binomial)
            .map(|i| {
                ctx.spawn(Node::new(
                    Some(ctx.myself()),
                    self.root.clone(),
                    self.binomial,
                    self.height + 1,
                    current_id + i,
                    comp_size,
                    i == urgent_child,
                ))
            })
            .collect();
        for child in &self.children {
            let _ = child.tell(NodeMsg::TryGenerateChildren);
        }
    }
}

impl Actor for Node {
    type Msg = NodeMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: NodeMsg) {
        match msg {
            NodeMsg::TryGenerateChildren => {
                savina_loop(100, 40_000);
                let _ = self
                    .root
                    .tell(RootMsg::ShouldGenerateChildren(ctx.myself(), self.height));
            }
            NodeMsg::GenerateChildren {
                current_id,
                comp_size,
            } => self.generate(ctx, current_id, comp_size, -1),
            NodeMsg::UrgentGenerateChildren {
                urgent_child,
                current_id,
                comp_size,
            } => self.generate(ctx, current_id, comp_size, urgent_child),
            NodeMsg::UpdateGrant(child) => self.has_grant_children[child as usize] = true,
            NodeMsg::Traverse => {
                savina_loop(self.comp_size, 40_000);
                for child in &self.children {
                    let _ = child.tell(NodeMsg::Traverse);
                }
            }
            NodeMsg::Terminate => {
                for child in self.children.drain(..) {
                    let _ = child.send(NodeMsg::Terminate);
                }
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the Root, grows the tree to quiescence and checks the final size.
fn run(&(cfg, expected_size): &(Config, i32), rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let root = spawn(
        rt.handle(),
        Root {
            state: RootState::new(cfg),
            binomial: cfg.binomial,
            children: Vec::new(),
            has_grant_children: Vec::new(),
            result: result.clone(),
        },
    );
    let _ = root.send(RootMsg::GenerateTree);
    rt.wait_quiescent();
    check(expected_size, result.take())
}
