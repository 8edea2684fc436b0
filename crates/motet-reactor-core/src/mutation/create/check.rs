//! The checks of a creation request before anything is planned: what a creation cannot hold
//! (modes, reset hooks, watchdogs, a container inside a mode), where its reactors sit and what
//! they are named, and its connections with the running program's ports (by LF's rules, each
//! port of the program taking at most one source).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use crate::error::BuildError;
use crate::graph::{ConnectionInfo, ConnectionKind, PortKind};
use crate::mutation::{port_facts, port_label, Parts};
use crate::program::Program;

/// A creation's connections with the running program's ports.
pub(super) struct External {
    /// Ports of the program that take a created source: (port, source).
    pub(super) rehead: Vec<(u32, u32)>,
    /// The connections, for the graph's list.
    pub(super) connections: Vec<ConnectionInfo>,
}

/// Checks what `m` declares that a creation cannot hold, places its top-level reactors in the
/// requester's container, and prefixes the names of all it declares with the container's;
/// returns whether it creates or connects anything.
pub(super) fn check_request(prog: &Program, m: &mut Parts) -> Result<bool, BuildError> {
    let b = &mut m.b;
    if let Some(e) = b.errors.first() {
        return Err(e.clone());
    }
    if b.reactors.is_empty() && m.external.is_empty() {
        return Ok(false);
    }
    if let Some(mode) = b.modes.first() {
        return Err(BuildError::Mutation {
            element: mode.name.clone(),
            reason: "created reactors have no modes",
        });
    }
    if !b.hooks.is_empty() {
        return Err(BuildError::Mutation {
            element: "reset hook".into(),
            reason: "created reactors have no modes, so no reset hooks",
        });
    }
    if !b.watchdogs.is_empty() {
        return Err(BuildError::Mutation {
            element: "watchdog".into(),
            reason: "created reactors have no watchdogs",
        });
    }
    let base = b.base;
    let g = &prog.graph;
    let container = g.reactors[m.requester as usize].parent;
    if let Some(c) = container {
        if g.reactors[c as usize].enclosing_mode.is_some() {
            return Err(BuildError::Mutation {
                element: g.reactors[c as usize].name.clone(),
                reason: "reactors are not created inside a mode",
            });
        }
    }
    // Placement and names: top-level declarations sit in the requester's container.
    for r in &mut b.reactors {
        match r.parent {
            None => r.parent = container,
            Some(p) if p < base.reactors => {
                return Err(BuildError::Mutation {
                    element: r.name.clone(),
                    reason: "a created reactor sits beside the requesting reactor or inside another created one",
                });
            }
            Some(_) => {}
        }
    }
    if let Some(c) = container {
        let prefix = format!("{}.", g.reactors[c as usize].name);
        let named = b
            .reactors
            .iter_mut()
            .map(|r| &mut r.name)
            .chain(b.ports.iter_mut().map(|p| &mut p.name))
            .chain(b.multiports.iter_mut().map(|p| &mut p.name))
            .chain(b.actions.iter_mut().map(|p| &mut p.name))
            .chain(b.timers.iter_mut().map(|p| &mut p.name))
            .chain(b.reactions.iter_mut().map(|p| &mut p.name));
        for name in named {
            name.insert_str(0, &prefix);
        }
    }
    Ok(true)
}

/// Checks the connections of `m` with the running program's ports and records each source: a
/// created port's in `m`'s builder, a port of the program's in the returned re-heads (port,
/// source), with the connections for the graph's list.
pub(super) fn connect_external(prog: &Program, m: &mut Parts) -> Result<External, BuildError> {
    let b = &mut m.b;
    let g = &prog.graph;
    let pb = b.base.ports;
    let mut rehead: Vec<(u32, u32)> = Vec::new();
    let mut reheaded: BTreeSet<u32> = BTreeSet::new();
    let mut connections: Vec<ConnectionInfo> = Vec::new();
    for &(from, to) in &m.external {
        let (fo, fk, fpar) = port_facts(prog, b, from);
        let (to_o, tk, tpar) = port_facts(prog, b, to);
        // Names are made only for an error.
        let fname = || port_label(prog, b, from);
        let tname = || port_label(prog, b, to);
        let label = || format!("{} -> {}", fname(), tname());
        if from < pb && to < pb {
            return Err(BuildError::Mutation {
                element: label(),
                reason: "a mutation connects created ports, not two ports of the running program",
            });
        }
        for owner in [fo, to_o] {
            if prog.dynamic.is_dead(owner) {
                return Err(BuildError::Mutation {
                    element: label(),
                    reason: "a port of a deleted reactor",
                });
            }
        }
        let ok = match (fk, tk) {
            (PortKind::Output, PortKind::Input) => fpar == tpar,
            (PortKind::Input, PortKind::Input) => tpar == Some(fo),
            (PortKind::Output, PortKind::Output) => fpar == Some(to_o),
            (PortKind::Input, PortKind::Output) => fo == to_o,
        };
        if !ok {
            return Err(BuildError::InvalidConnection {
                from: fname(),
                to: tname(),
                reason: "the ports are not ones LF connects (an output to a sibling's input, an input down to a contained reactor's, an output up to its container's)",
            });
        }
        let taken = if to >= pb {
            b.ports[(to - pb) as usize].upstream.is_some()
        } else {
            g.ports[to as usize].upstream.is_some()
                || !prog.dynamic.writers[to as usize].is_empty()
                || !reheaded.insert(to)
        };
        if taken {
            return Err(BuildError::MultipleSources {
                port: tname(),
                sources: vec![fname()],
            });
        }
        if to >= pb {
            b.ports[(to - pb) as usize].upstream = Some(from);
        } else {
            rehead.push((to, from));
        }
        connections.push(ConnectionInfo {
            from,
            to,
            kind: ConnectionKind::Plain,
        });
    }
    Ok(External {
        rehead,
        connections,
    })
}
