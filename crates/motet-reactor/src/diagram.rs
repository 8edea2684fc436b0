//! Diagrams of a program's structure, as LF's editors draw them: reactors as nested boxes, ports,
//! reactions numbered in declaration order, actions, timers, and connections (labelled with their
//! delay, dashed when physical), with dotted edges for what triggers a reaction and what it writes.
//! [`to_dot`] writes Graphviz DOT (`dot -Tsvg`), [`to_mermaid`] a Mermaid flowchart.

use std::fmt::Write as _;

use motet_reactor_core::graph::{ConnectionKind, Graph, PortKind};
use motet_reactor_core::Program;

fn delay_label(ns: u64) -> String {
    if ns == 0 {
        "after 0".into()
    } else if ns.is_multiple_of(1_000_000) {
        format!("after {} ms", ns / 1_000_000)
    } else {
        format!("after {} us", ns / 1_000)
    }
}

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn escape(s: &str) -> String {
    s.replace('"', "'")
}

/// The program as a Graphviz DOT digraph.
pub fn to_dot(program: &Program) -> String {
    let g = program.graph();
    let mut out = String::from("digraph program {\n  rankdir=LR;\n  node [fontsize=10];\n");
    let children = children_of(g);
    for (r, info) in g.reactors.iter().enumerate() {
        if info.parent.is_none() && !info.hidden {
            dot_reactor(g, r, &children, 1, &mut out);
        }
    }
    for c in &g.connections {
        let (style, label) = match c.kind {
            ConnectionKind::Plain => ("solid", String::new()),
            ConnectionKind::After(d) => ("solid", delay_label(d)),
            ConnectionKind::Physical => ("dashed", "physical".into()),
        };
        let _ = writeln!(
            out,
            "  p{} -> p{} [style={style}, label=\"{label}\"];",
            c.from, c.to
        );
    }
    for (i, r) in g.reactions.iter().enumerate().filter(|(_, r)| !r.hidden) {
        for &(s, l) in &r.trigger_ports {
            for p in s..s + l {
                let _ = writeln!(out, "  p{p} -> n{i} [style=dotted, arrowhead=none];");
            }
        }
        for &(s, l) in &r.writes {
            for p in s..s + l {
                let _ = writeln!(out, "  n{i} -> p{p} [style=dotted];");
            }
        }
        for &a in &r.trigger_actions {
            let _ = writeln!(out, "  a{a} -> n{i} [style=dotted, arrowhead=none];");
        }
        for &a in &r.scheduled_actions {
            let _ = writeln!(out, "  n{i} -> a{a} [style=dotted];");
        }
        for &t in &r.timers {
            let _ = writeln!(out, "  t{t} -> n{i} [style=dotted, arrowhead=none];");
        }
    }
    out.push_str("}\n");
    out
}

fn children_of(g: &Graph) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); g.reactors.len()];
    for (r, info) in g.reactors.iter().enumerate() {
        if let (Some(p), false) = (info.parent, info.hidden) {
            children[p as usize].push(r);
        }
    }
    children
}

fn dot_reactor(g: &Graph, r: usize, children: &[Vec<usize>], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let info = &g.reactors[r];
    let _ = writeln!(out, "{pad}subgraph cluster_{r} {{");
    let _ = writeln!(
        out,
        "{pad}  label=\"{}\"; style=rounded;",
        escape(short(&info.name))
    );
    for (p, port) in g
        .ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.owner as usize == r)
    {
        let shape = match port.kind {
            PortKind::Input => "invtriangle",
            PortKind::Output => "triangle",
        };
        let _ = writeln!(
            out,
            "{pad}  p{p} [label=\"{}\", shape={shape}];",
            escape(short(&port.name))
        );
    }
    for (i, x) in g
        .reactions
        .iter()
        .enumerate()
        .filter(|(_, x)| x.reactor as usize == r && !x.hidden)
    {
        let _ = writeln!(
            out,
            "{pad}  n{i} [label=\"{} {}\", shape=cds, style=filled, fillcolor=gray80];",
            x.number,
            escape(short(&x.name))
        );
    }
    for (a, act) in g
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.owner as usize == r && !a.hidden)
    {
        let kind = if act.physical { "P" } else { "L" };
        let _ = writeln!(
            out,
            "{pad}  a{a} [label=\"{kind} {}\", shape=triangle, style=filled, fillcolor=white];",
            escape(short(&act.name))
        );
    }
    for (t, timer) in g
        .timers
        .iter()
        .enumerate()
        .filter(|(_, t)| t.owner as usize == r)
    {
        let _ = writeln!(
            out,
            "{pad}  t{t} [label=\"timer {}\", shape=circle];",
            escape(short(&timer.name))
        );
    }
    for &c in &children[r] {
        dot_reactor(g, c, children, depth + 1, out);
    }
    let _ = writeln!(out, "{pad}}}");
}

/// The program as a Mermaid flowchart.
pub fn to_mermaid(program: &Program) -> String {
    let g = program.graph();
    let mut out = String::from("flowchart LR\n");
    let children = children_of(g);
    for (r, info) in g.reactors.iter().enumerate() {
        if info.parent.is_none() && !info.hidden {
            mermaid_reactor(g, r, &children, 1, &mut out);
        }
    }
    for c in &g.connections {
        let _ = match c.kind {
            ConnectionKind::Plain => writeln!(out, "  p{} --> p{}", c.from, c.to),
            ConnectionKind::After(d) => {
                writeln!(out, "  p{} -- \"{}\" --> p{}", c.from, delay_label(d), c.to)
            }
            ConnectionKind::Physical => writeln!(out, "  p{} -.-> p{}", c.from, c.to),
        };
    }
    for (i, r) in g.reactions.iter().enumerate().filter(|(_, r)| !r.hidden) {
        for &(s, l) in &r.trigger_ports {
            for p in s..s + l {
                let _ = writeln!(out, "  p{p} -.- n{i}");
            }
        }
        for &(s, l) in &r.writes {
            for p in s..s + l {
                let _ = writeln!(out, "  n{i} -.-> p{p}");
            }
        }
        for &a in &r.trigger_actions {
            let _ = writeln!(out, "  a{a} -.- n{i}");
        }
        for &a in &r.scheduled_actions {
            let _ = writeln!(out, "  n{i} -.-> a{a}");
        }
        for &t in &r.timers {
            let _ = writeln!(out, "  t{t} -.- n{i}");
        }
    }
    out
}

fn mermaid_reactor(g: &Graph, r: usize, children: &[Vec<usize>], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let info = &g.reactors[r];
    let _ = writeln!(out, "{pad}subgraph r{r}[\"{}\"]", escape(short(&info.name)));
    for (p, port) in g
        .ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.owner as usize == r)
    {
        let _ = writeln!(out, "{pad}  p{p}([\"{}\"])", escape(short(&port.name)));
    }
    for (i, x) in g
        .reactions
        .iter()
        .enumerate()
        .filter(|(_, x)| x.reactor as usize == r && !x.hidden)
    {
        let _ = writeln!(
            out,
            "{pad}  n{i}>\"{} {}\"]",
            x.number,
            escape(short(&x.name))
        );
    }
    for (a, act) in g
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.owner as usize == r && !a.hidden)
    {
        let kind = if act.physical { "P" } else { "L" };
        let _ = writeln!(
            out,
            "{pad}  a{a}{{{{\"{kind} {}\"}}}}",
            escape(short(&act.name))
        );
    }
    for (t, timer) in g
        .timers
        .iter()
        .enumerate()
        .filter(|(_, t)| t.owner as usize == r)
    {
        let _ = writeln!(
            out,
            "{pad}  t{t}((\"timer {}\"))",
            escape(short(&timer.name))
        );
    }
    for &c in &children[r] {
        mermaid_reactor(g, c, children, depth + 1, out);
    }
    let _ = writeln!(out, "{pad}end");
}
