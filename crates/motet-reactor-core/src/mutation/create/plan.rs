//! Planning a creation: the value slot (chain head) of each created port and the new head of each
//! re-headed chain of the program, the writers of the created ports (checked as a build checks
//! them), and the new edges of the reaction graph. Nothing of the program is changed here.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::assemble::Access;
use crate::builder::ProgramBuilder;
use crate::error::BuildError;
use crate::graph::Graph;
use crate::mutation::port_label;
use crate::program::Program;

/// The value slots of the ports a creation touches.
pub(super) struct Slots {
    /// The first created port.
    pb: u32,
    /// (port of the program, its new head), sorted by port: the chains of re-headed ports are
    /// disjoint (each had no source), so a port appears once.
    pub(super) over: Vec<(u32, u32)>,
    /// The slot of each created port.
    pub(super) new: Vec<u32>,
}

impl Slots {
    /// The slot of port `p` of the program, after the creation.
    fn of_existing(g: &Graph, over: &[(u32, u32)], p: u32) -> u32 {
        match over.binary_search_by_key(&p, |e| e.0) {
            Ok(i) => over[i].1,
            Err(_) => g.ports[p as usize].slot,
        }
    }

    /// The slot of port `p` (created or of the program), after the creation.
    pub(super) fn of(&self, g: &Graph, p: u32) -> u32 {
        if p >= self.pb {
            self.new[(p - self.pb) as usize]
        } else {
            Self::of_existing(g, &self.over, p)
        }
    }
}

/// The new edges of the reaction graph.
pub(super) struct Edges {
    /// Per new reaction, its predecessors.
    pub(super) preds: Vec<Vec<u32>>,
    /// Per reaction of the program that reads a re-headed chain, its new predecessors.
    pub(super) extra_preds: BTreeMap<u32, Vec<u32>>,
    /// Per new reaction, its successors.
    pub(super) new_succs: Vec<Vec<u32>>,
    /// Per reaction of the program, its new successors.
    pub(super) extra_succs: BTreeMap<u32, Vec<u32>>,
}

/// Ports in a chain walk at most this many links before a loop is reported.
fn loop_error(name: String) -> BuildError {
    BuildError::PortLoop(name)
}

/// The slots: the head of each created port's chain, and the new head of each re-headed chain
/// (`rehead`: per port of the program, its new source).
pub(super) fn slots(
    prog: &Program,
    b: &ProgramBuilder,
    rehead: &[(u32, u32)],
) -> Result<Slots, BuildError> {
    let g = &prog.graph;
    let pb = b.base.ports;
    let np = b.ports.len();
    let mut over: Vec<(u32, u32)> = Vec::new();
    let mut slot_new = vec![u32::MAX; np];
    for _ in 0..=np + 1 {
        let mut changed = false;
        for (i, slot) in slot_new.iter_mut().enumerate() {
            let mut q = pb + i as u32;
            let mut steps = 0;
            let head = loop {
                let up = b.ports[(q - pb) as usize].upstream;
                match up {
                    None => break q,
                    Some(u) if u < pb => break Slots::of_existing(g, &over, u),
                    Some(u) => q = u,
                }
                steps += 1;
                if steps > np {
                    return Err(loop_error(b.ports[i].name.clone()));
                }
            };
            if *slot != head {
                *slot = head;
                changed = true;
            }
        }
        let mut next: Vec<(u32, u32)> = Vec::with_capacity(over.len());
        for &(to, from) in rehead {
            let head = slot_new[(from - pb) as usize];
            for c in prog.dynamic.chain_from(to) {
                next.push((c, head));
            }
        }
        next.sort_unstable();
        if next != over {
            over = next;
            changed = true;
        }
        if !changed {
            break;
        }
    }
    Ok(Slots {
        pb,
        over,
        new: slot_new,
    })
}

/// The writers of each created port (by the reactions of `access`): a written port heads its
/// chain, and one reactor writes it; no reaction reads a slot it writes; a required input has a
/// source.
pub(super) fn writers(
    prog: &Program,
    b: &ProgramBuilder,
    access: &[Access],
    slots: &Slots,
) -> Result<Vec<Vec<u32>>, BuildError> {
    let g = &prog.graph;
    let pb = b.base.ports;
    let np = b.ports.len();
    let rb = b.base.reactions;
    let mut new_writers: Vec<Vec<u32>> = vec![Vec::new(); np];
    for (i, (r, a)) in b.reactions.iter().zip(access).enumerate() {
        for &(start, len) in &a.writes {
            for p in start..start + len {
                let port = &b.ports[(p - pb) as usize];
                if let Some(up) = port.upstream {
                    return Err(BuildError::MultipleSources {
                        port: port.name.clone(),
                        sources: vec![port_label(prog, b, up), r.name.clone()],
                    });
                }
                let list = &mut new_writers[(p - pb) as usize];
                if let Some(&other) = list.first() {
                    let other = &b.reactions[(other - rb) as usize];
                    if other.reactor != r.reactor {
                        return Err(BuildError::MultipleSources {
                            port: port.name.clone(),
                            sources: vec![other.name.clone(), r.name.clone()],
                        });
                    }
                }
                list.push(rb + i as u32);
            }
        }
        for &(start, len) in &a.reads {
            for p in start..start + len {
                let s = slots.of(g, p);
                if a.writes.iter().any(|&(ws, wl)| (ws..ws + wl).contains(&s)) {
                    return Err(BuildError::InvalidDeclaration {
                        reaction: r.name.clone(),
                        element: b.ports[(p - pb) as usize].name.clone(),
                        reason: "it reads the value of a port it also writes",
                    });
                }
            }
        }
    }
    for (i, port) in b.ports.iter().enumerate() {
        if port.required && port.upstream.is_none() && new_writers[i].is_empty() {
            return Err(BuildError::UnconnectedInput(port.name.clone()));
        }
    }
    Ok(new_writers)
}

/// The new edges: the new reactions' predecessors (the writers of what they read, and the
/// reaction declared before each in its reactor), and the writers of the new heads of re-headed
/// chains before the program's reactions that read them.
pub(super) fn edges(
    prog: &Program,
    b: &ProgramBuilder,
    access: &[Access],
    slots: &Slots,
    new_writers: &[Vec<u32>],
) -> Edges {
    let g = &prog.graph;
    let base = b.base;
    let pb = base.ports;
    let rb = base.reactions;
    let writers_of = |s: u32| -> &[u32] {
        if s >= pb {
            &new_writers[(s - pb) as usize]
        } else {
            &prog.dynamic.writers[s as usize]
        }
    };
    // Edges: the new reactions' predecessors, and the existing readers of re-headed chains.
    let nr = b.reactions.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); nr];
    // Per created reactor: its last reaction so far (a mutation's reactions are its own
    // reactors').
    let mut last_of: Vec<u32> = vec![u32::MAX; b.reactors.len()];
    for (i, (r, a)) in b.reactions.iter().zip(access).enumerate() {
        for &(start, len) in &a.reads {
            for p in start..start + len {
                preds[i].extend_from_slice(writers_of(slots.of(g, p)));
            }
        }
        let last = &mut last_of[(r.reactor - base.reactors) as usize];
        if *last != u32::MAX {
            preds[i].push(*last);
        }
        *last = rb + i as u32;
        let me = rb + i as u32;
        preds[i].sort_unstable();
        preds[i].dedup();
        preds[i].retain(|&q| q != me);
    }
    let mut extra_preds: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &(c, head) in &slots.over {
        for &y in &prog.dynamic.readers[c as usize] {
            let list = extra_preds.entry(y).or_default();
            list.extend_from_slice(writers_of(head));
        }
    }
    for list in extra_preds.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    let mut new_succs: Vec<Vec<u32>> = vec![Vec::new(); nr];
    let mut extra_succs: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut add_edge = |w: u32, s: u32| {
        if w >= rb {
            new_succs[(w - rb) as usize].push(s);
        } else {
            extra_succs.entry(w).or_default().push(s);
        }
    };
    for (i, p) in preds.iter().enumerate() {
        for &w in p {
            add_edge(w, rb + i as u32);
        }
    }
    for (&y, p) in &extra_preds {
        for &w in p {
            add_edge(w, y);
        }
    }
    Edges {
        preds,
        extra_preds,
        new_succs,
        extra_succs,
    }
}
