//! Diagrams of a program's structure, as LF's editors draw them: reactors as nested boxes, ports,
//! reactions numbered in declaration order, actions, timers, and connections (labelled with their
//! delay, dashed when physical), with dotted edges for what triggers a reaction and what it writes.
//! [`to_dot`] writes Graphviz DOT (`dot -Tsvg`), [`to_mermaid`] a Mermaid flowchart.
//!
//! Both walk the program the same way (`draw`); a `Notation` says how one language writes
//! each box, node and edge.

use std::fmt::{self, Write as _};

use motet_reactor_core::graph::{ConnectionKind, Graph, PortKind};
use motet_reactor_core::Program;

/// The program as a Graphviz DOT digraph.
pub fn to_dot(program: &Program) -> String {
    draw::<Dot>(program.graph())
}

/// The program as a Mermaid flowchart.
pub fn to_mermaid(program: &Program) -> String {
    draw::<Mermaid>(program.graph())
}

/// A node of a diagram, written as its id: `p` (port), `n` (reaction), `a` (action) or `t`
/// (timer), then its index in the program.
#[derive(Clone, Copy)]
enum Node {
    Port(u32),
    Reaction(usize),
    Action(u32),
    Timer(u32),
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Node::Port(i) => write!(f, "p{i}"),
            Node::Reaction(i) => write!(f, "n{i}"),
            Node::Action(i) => write!(f, "a{i}"),
            Node::Timer(i) => write!(f, "t{i}"),
        }
    }
}

/// How one diagram language writes each part of a program. Element lines get `pad`, the
/// indentation of their reactor's box; labels come escaped.
trait Notation {
    /// What the diagram starts with.
    const HEADER: &'static str;
    /// What it ends with.
    const FOOTER: &'static str;
    /// Opens the box of reactor `r`.
    fn open(out: &mut String, pad: &str, r: usize, label: &str);
    /// Closes the box opened last.
    fn close(out: &mut String, pad: &str);
    /// A port node.
    fn port(out: &mut String, pad: &str, node: Node, label: &str, kind: PortKind);
    /// A reaction node (`label`: its number and name).
    fn reaction(out: &mut String, pad: &str, node: Node, label: &str);
    /// An action node (`label`: `L` or `P`, and its name).
    fn action(out: &mut String, pad: &str, node: Node, label: &str);
    /// A timer node.
    fn timer(out: &mut String, pad: &str, node: Node, label: &str);
    /// A connection between two ports.
    fn connection(out: &mut String, from: Node, to: Node, kind: ConnectionKind);
    /// What triggers a reaction, to the reaction.
    fn trigger(out: &mut String, from: Node, to: Node);
    /// A reaction, to what it writes or schedules.
    fn effect(out: &mut String, from: Node, to: Node);
}

/// Graphviz DOT.
struct Dot;

impl Notation for Dot {
    const HEADER: &'static str = "digraph program {\n  rankdir=LR;\n  node [fontsize=10];\n";
    const FOOTER: &'static str = "}\n";

    fn open(out: &mut String, pad: &str, r: usize, label: &str) {
        let _ = writeln!(out, "{pad}subgraph cluster_{r} {{");
        let _ = writeln!(out, "{pad}  label=\"{label}\"; style=rounded;");
    }

    fn close(out: &mut String, pad: &str) {
        let _ = writeln!(out, "{pad}}}");
    }

    fn port(out: &mut String, pad: &str, node: Node, label: &str, kind: PortKind) {
        let shape = match kind {
            PortKind::Input => "invtriangle",
            PortKind::Output => "triangle",
        };
        let _ = writeln!(out, "{pad}  {node} [label=\"{label}\", shape={shape}];");
    }

    fn reaction(out: &mut String, pad: &str, node: Node, label: &str) {
        let _ = writeln!(
            out,
            "{pad}  {node} [label=\"{label}\", shape=cds, style=filled, fillcolor=gray80];"
        );
    }

    fn action(out: &mut String, pad: &str, node: Node, label: &str) {
        let _ = writeln!(
            out,
            "{pad}  {node} [label=\"{label}\", shape=triangle, style=filled, fillcolor=white];"
        );
    }

    fn timer(out: &mut String, pad: &str, node: Node, label: &str) {
        let _ = writeln!(out, "{pad}  {node} [label=\"{label}\", shape=circle];");
    }

    fn connection(out: &mut String, from: Node, to: Node, kind: ConnectionKind) {
        let (style, label) = match kind {
            ConnectionKind::Plain => ("solid", String::new()),
            ConnectionKind::After(d) => ("solid", delay_label(d)),
            ConnectionKind::Physical => ("dashed", "physical".into()),
        };
        let _ = writeln!(out, "  {from} -> {to} [style={style}, label=\"{label}\"];");
    }

    fn trigger(out: &mut String, from: Node, to: Node) {
        let _ = writeln!(out, "  {from} -> {to} [style=dotted, arrowhead=none];");
    }

    fn effect(out: &mut String, from: Node, to: Node) {
        let _ = writeln!(out, "  {from} -> {to} [style=dotted];");
    }
}

/// A Mermaid flowchart.
struct Mermaid;

impl Notation for Mermaid {
    const HEADER: &'static str = "flowchart LR\n";
    const FOOTER: &'static str = "";

    fn open(out: &mut String, pad: &str, r: usize, label: &str) {
        let _ = writeln!(out, "{pad}subgraph r{r}[\"{label}\"]");
    }

    fn close(out: &mut String, pad: &str) {
        let _ = writeln!(out, "{pad}end");
    }

    fn port(out: &mut String, pad: &str, node: Node, label: &str, _: PortKind) {
        let _ = writeln!(out, "{pad}  {node}([\"{label}\"])");
    }

    fn reaction(out: &mut String, pad: &str, node: Node, label: &str) {
        let _ = writeln!(out, "{pad}  {node}>\"{label}\"]");
    }

    fn action(out: &mut String, pad: &str, node: Node, label: &str) {
        let _ = writeln!(out, "{pad}  {node}{{{{\"{label}\"}}}}");
    }

    fn timer(out: &mut String, pad: &str, node: Node, label: &str) {
        let _ = writeln!(out, "{pad}  {node}((\"{label}\"))");
    }

    fn connection(out: &mut String, from: Node, to: Node, kind: ConnectionKind) {
        let _ = match kind {
            ConnectionKind::Plain => writeln!(out, "  {from} --> {to}"),
            ConnectionKind::After(d) => {
                writeln!(out, "  {from} -- \"{}\" --> {to}", delay_label(d))
            }
            ConnectionKind::Physical => writeln!(out, "  {from} -.-> {to}"),
        };
    }

    fn trigger(out: &mut String, from: Node, to: Node) {
        let _ = writeln!(out, "  {from} -.- {to}");
    }

    fn effect(out: &mut String, from: Node, to: Node) {
        let _ = writeln!(out, "  {from} -.-> {to}");
    }
}

/// The diagram of `g` in notation `N`: the top-level reactors' boxes (generated reactors are
/// left out: their connections are drawn as labelled edges), then the connections, then each
/// declared reaction's triggers and effects.
fn draw<N: Notation>(g: &Graph) -> String {
    let mut out = String::from(N::HEADER);
    let children = children_of(g);
    for (r, info) in g.reactors.iter().enumerate() {
        if info.parent.is_none() && !info.hidden {
            reactor::<N>(g, r, &children, 1, &mut out);
        }
    }
    for c in &g.connections {
        N::connection(&mut out, Node::Port(c.from), Node::Port(c.to), c.kind);
    }
    for (i, r) in g.reactions.iter().enumerate().filter(|(_, r)| !r.hidden) {
        let n = Node::Reaction(i);
        for p in r.trigger_ports.iter().flat_map(|&(s, l)| s..s + l) {
            N::trigger(&mut out, Node::Port(p), n);
        }
        for p in r.writes.iter().flat_map(|&(s, l)| s..s + l) {
            N::effect(&mut out, n, Node::Port(p));
        }
        for &a in &r.trigger_actions {
            N::trigger(&mut out, Node::Action(a), n);
        }
        for &a in &r.scheduled_actions {
            N::effect(&mut out, n, Node::Action(a));
        }
        for &t in &r.timers {
            N::trigger(&mut out, Node::Timer(t), n);
        }
    }
    out.push_str(N::FOOTER);
    out
}

/// The box of reactor `r`, at nesting `depth`: its ports, declared reactions, declared actions
/// and timers, then its children's boxes.
fn reactor<N: Notation>(
    g: &Graph,
    r: usize,
    children: &[Vec<usize>],
    depth: usize,
    out: &mut String,
) {
    let pad = "  ".repeat(depth);
    N::open(out, &pad, r, &label(&g.reactors[r].name));
    for (p, port) in g.ports.iter().enumerate() {
        if port.owner as usize == r {
            N::port(
                out,
                &pad,
                Node::Port(p as u32),
                &label(&port.name),
                port.kind,
            );
        }
    }
    for (i, x) in g.reactions.iter().enumerate() {
        if x.reactor as usize == r && !x.hidden {
            let text = format!("{} {}", x.number, label(&x.name));
            N::reaction(out, &pad, Node::Reaction(i), &text);
        }
    }
    for (a, act) in g.actions.iter().enumerate() {
        if act.owner as usize == r && !act.hidden {
            let kind = if act.physical { "P" } else { "L" };
            let text = format!("{kind} {}", label(&act.name));
            N::action(out, &pad, Node::Action(a as u32), &text);
        }
    }
    for (t, timer) in g.timers.iter().enumerate() {
        if timer.owner as usize == r {
            let text = format!("timer {}", label(&timer.name));
            N::timer(out, &pad, Node::Timer(t as u32), &text);
        }
    }
    for &c in &children[r] {
        reactor::<N>(g, c, children, depth + 1, out);
    }
    N::close(out, &pad);
}

/// Per reactor, its declared children.
fn children_of(g: &Graph) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); g.reactors.len()];
    for (r, info) in g.reactors.iter().enumerate() {
        if let (Some(p), false) = (info.parent, info.hidden) {
            children[p as usize].push(r);
        }
    }
    children
}

/// A delayed connection's label.
fn delay_label(ns: u64) -> String {
    if ns == 0 {
        "after 0".into()
    } else if ns.is_multiple_of(1_000_000) {
        format!("after {} ms", ns / 1_000_000)
    } else {
        format!("after {} us", ns / 1_000)
    }
}

/// An element's label: the last part of its name, with double quotes made single.
fn label(name: &str) -> String {
    name.rsplit('.').next().unwrap_or(name).replace('"', "'")
}
