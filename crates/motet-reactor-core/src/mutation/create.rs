//! Applying a mutation's creations: check the declared reactors and their connections, find the
//! new edges of the reaction graph and update the levels of the reactions they reach (rejecting a
//! causality cycle), then append the new elements to the program's tables and update the entries
//! of the ports and reactions the new connections touch. Nothing is changed before every check
//! has passed.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::UnsafeCell;

use super::index::Holdings;
use super::{port_facts, port_label, Parts};
use crate::assemble::{claim_masks, reaction_bit, sole, with_deadline, Access, Declared};
use crate::error::BuildError;
use crate::graph::{
    ActionInfo, ConnectionInfo, ConnectionKind, Graph, MultiportInfo, PortInfo, PortKind,
    ReactionInfo, ReactorInfo, TimerInfo,
};
use crate::program::{ActionRt, PortRt, Program, ReactionCell, Scratch};

/// What a creation added, for the engine.
pub(crate) struct Created {
    /// The first new reaction and the number of reactions after it.
    pub(crate) reactions: (u32, u32),
    /// The new reactions triggered by startup.
    pub(crate) startup: Vec<u32>,
    /// The new timers, with their offsets.
    pub(crate) timers: Vec<(u32, u64)>,
    /// Reactors created, generated ones not counted.
    pub(crate) visible: u64,
}

/// Values per reaction visited by the level update: in a vector for the new reactions (numbered
/// from `rb`, the most of a large creation), in a map for the program's.
struct Nodes<T> {
    rb: u32,
    new: Vec<Option<T>>,
    old: BTreeMap<u32, T>,
}

impl<T: Copy> Nodes<T> {
    fn new(rb: u32, nr: usize) -> Nodes<T> {
        Nodes {
            rb,
            new: vec![None; nr],
            old: BTreeMap::new(),
        }
    }

    fn get(&self, x: u32) -> Option<T> {
        match x.checked_sub(self.rb) {
            Some(i) => self.new[i as usize],
            None => self.old.get(&x).copied(),
        }
    }

    fn get_mut(&mut self, x: u32) -> Option<&mut T> {
        match x.checked_sub(self.rb) {
            Some(i) => self.new[i as usize].as_mut(),
            None => self.old.get_mut(&x),
        }
    }

    /// Sets `x`'s value; returns whether it had none.
    fn insert(&mut self, x: u32, v: T) -> bool {
        match x.checked_sub(self.rb) {
            Some(i) => self.new[i as usize].replace(v).is_none(),
            None => self.old.insert(x, v).is_none(),
        }
    }
}

/// Ports in a chain walk at most this many links before a loop is reported.
fn loop_error(name: String) -> BuildError {
    BuildError::PortLoop(name)
}

/// Applies the creations of `m` to `prog` (see the module docs): `Ok(None)` when it creates
/// nothing.
#[allow(clippy::too_many_lines)]
pub(crate) fn create(prog: &mut Program, m: &mut Parts) -> Result<Option<Created>, BuildError> {
    let b = &mut m.b;
    if let Some(e) = b.errors.first() {
        return Err(e.clone());
    }
    if b.reactors.is_empty() && m.external.is_empty() {
        return Ok(None);
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
    let pb = base.ports;
    let np = b.ports.len();
    // Connections with the running program's ports.
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
    // The reactions' declarations, checked as a build checks them.
    let mut access: Vec<Access> = b
        .reactions
        .iter()
        .map(|r| b.access_of(r))
        .collect::<Result<_, _>>()?;
    // Slots: the head of each new port's chain, and the new head of each re-headed chain.
    // (port of the program, its new head), sorted by port: the chains of re-headed ports are
    // disjoint (each had no source), so a port appears once.
    let mut over: Vec<(u32, u32)> = Vec::new();
    let mut slot_new = vec![u32::MAX; np];
    let slot_of_existing =
        |over: &[(u32, u32)], p: u32| match over.binary_search_by_key(&p, |e| e.0) {
            Ok(i) => over[i].1,
            Err(_) => g.ports[p as usize].slot,
        };
    for _ in 0..=np + 1 {
        let mut changed = false;
        for (i, slot) in slot_new.iter_mut().enumerate() {
            let mut q = pb + i as u32;
            let mut steps = 0;
            let head = loop {
                let up = b.ports[(q - pb) as usize].upstream;
                match up {
                    None => break q,
                    Some(u) if u < pb => break slot_of_existing(&over, u),
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
        for &(to, from) in &rehead {
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
    let slot_of = |p: u32| {
        if p >= pb {
            slot_new[(p - pb) as usize]
        } else {
            slot_of_existing(&over, p)
        }
    };
    // Writers: a written port heads its chain, and one reactor writes it.
    let rb = base.reactions;
    let mut new_writers: Vec<Vec<u32>> = vec![Vec::new(); np];
    for (i, (r, a)) in b.reactions.iter().zip(&access).enumerate() {
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
                let s = slot_of(p);
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
    for (i, (r, a)) in b.reactions.iter().zip(&access).enumerate() {
        for &(start, len) in &a.reads {
            for p in start..start + len {
                preds[i].extend_from_slice(writers_of(slot_of(p)));
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
    for &(c, head) in &over {
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
    // Levels: Kahn's peeling over the reactions reachable from the new edges' heads. Per visited
    // reaction: its in-degree from the visited set, and its level.
    let empty: &[u32] = &[];
    let (succs_new, succs_extra) = (&new_succs, &extra_succs);
    let succs_of = |x: u32| {
        if x >= rb {
            (succs_new[(x - rb) as usize].as_slice(), empty)
        } else {
            (
                g.reactions[x as usize].successors.as_slice(),
                succs_extra.get(&x).map_or(empty, Vec::as_slice),
            )
        }
    };
    // First the new reactions alone, from their predecessors' levels: when every new edge into
    // a reaction of the program already climbs, no level of the program changes, and the
    // reactions reachable from the new edges need not be visited (the full update below would
    // give the same levels).
    let mut visit: Nodes<[u32; 2]> = Nodes::new(rb, nr);
    let mut order: Vec<u32> = Vec::new();
    if let Some(levels) = climbing(rb, &preds, succs_new, &extra_preds, g) {
        for (i, l) in levels.into_iter().enumerate() {
            visit.insert(rb + i as u32, [0, l]);
        }
        order.extend(rb..rb + nr as u32);
    } else {
        order = (rb..rb + nr as u32)
            .chain(extra_preds.keys().copied())
            .collect();
        order.retain(|&x| visit.insert(x, [0, 0]));
        let mut i = 0;
        while i < order.len() {
            let (own, extra) = succs_of(order[i]);
            for &s in own.iter().chain(extra) {
                if visit.insert(s, [0, 0]) {
                    order.push(s);
                }
            }
            i += 1;
        }
        for &x in &order {
            let (own, extra) = succs_of(x);
            for &s in own.iter().chain(extra) {
                visit.get_mut(s).expect("reachable")[0] += 1;
            }
            // The lower bound from predecessors outside the visited set, whose levels stay.
            let (at_least, outside, extra) = if x >= rb {
                (0, preds[(x - rb) as usize].as_slice(), empty)
            } else {
                (
                    g.reaction_level[x as usize],
                    g.reactions[x as usize].predecessors.as_slice(),
                    extra_preds.get(&x).map_or(empty, Vec::as_slice),
                )
            };
            let lo = outside
                .iter()
                .chain(extra)
                .filter(|&&q| visit.get(q).is_none())
                .map(|&q| g.reaction_level[q as usize] + 1)
                .fold(at_least, u32::max);
            visit.get_mut(x).expect("visited")[1] = lo;
        }
        let mut queue: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&x| visit.get(x).is_some_and(|v| v[0] == 0))
            .collect();
        let mut peeled = 0;
        while let Some(x) = queue.pop() {
            peeled += 1;
            let lx = visit.get(x).expect("reachable")[1];
            let (own, extra) = succs_of(x);
            for &s in own.iter().chain(extra) {
                let v = visit.get_mut(s).expect("reachable");
                v[1] = v[1].max(lx + 1);
                v[0] -= 1;
                if v[0] == 0 {
                    queue.push(s);
                }
            }
        }
        if peeled < order.len() {
            let name = |x: u32| {
                if x >= rb {
                    b.reactions[(x - rb) as usize].name.clone()
                } else {
                    g.reactions[x as usize].name.clone()
                }
            };
            // Every unpeeled reaction has an unpeeled predecessor: walking them back must repeat.
            let preds_of = |x: u32| -> Vec<u32> {
                let mut v = if x >= rb {
                    preds[(x - rb) as usize].clone()
                } else {
                    g.reactions[x as usize].predecessors.clone()
                };
                if let Some(e) = extra_preds.get(&x) {
                    v.extend_from_slice(e);
                }
                v
            };
            let start = order
                .iter()
                .copied()
                .find(|&x| visit.get(x).is_some_and(|v| v[0] > 0))
                .unwrap_or(rb);
            let mut path = vec![start];
            let mut cur = start;
            loop {
                let Some(next) = preds_of(cur)
                    .into_iter()
                    .find(|&q| visit.get(q).is_some_and(|v| v[0] > 0))
                else {
                    return Err(BuildError::Cycle(vec![name(start)]));
                };
                if let Some(pos) = path.iter().position(|&x| x == next) {
                    let mut cycle: Vec<String> =
                        path[pos..].iter().rev().map(|&x| name(x)).collect();
                    cycle.push(cycle[0].clone());
                    return Err(BuildError::Cycle(cycle));
                }
                path.push(next);
                cur = next;
            }
        }
    }

    // Every check passed: commit.
    let g = &mut prog.graph;
    let dynamic = &mut prog.dynamic;
    let br = base.reactors;
    let visible = b.reactors.iter().filter(|r| !r.hidden).count() as u64;
    let mut holdings: Vec<Holdings> = b
        .reactors
        .iter()
        .map(|r| Holdings {
            hidden: r.hidden,
            ..Holdings::default()
        })
        .collect();
    for (i, r) in b.reactors.iter_mut().enumerate() {
        if let Some(p) = r.parent.filter(|&p| p >= br) {
            holdings[(p - br) as usize].children.push(br + i as u32);
        }
        g.reactors.push(ReactorInfo {
            name: core::mem::take(&mut r.name),
            parent: r.parent,
            mode: None,
            enclosing_mode: None,
            hidden: r.hidden,
            modes: Vec::new(),
            bank_index: r.bank_index,
        });
    }
    dynamic.creator.resize(g.reactors.len(), m.requester);
    dynamic.dead.resize(g.reactors.len(), false);
    // Ports.
    for (i, port) in b.ports.iter_mut().enumerate() {
        let p = pb + i as u32;
        holdings[(port.owner - br) as usize].ports.push(p);
        g.ports.push(PortInfo {
            name: core::mem::take(&mut port.name),
            owner: port.owner,
            kind: port.kind,
            multiport: port.multiport,
            upstream: port.upstream,
            slot: slot_new[i],
            type_name: port.type_name,
        });
        g.slot_triggers.push(Vec::new());
        g.slot_observers.push(Vec::new());
        dynamic.writers.push(core::mem::take(&mut new_writers[i]));
        dynamic.readers.push(Vec::new());
        dynamic.downstream.push(Vec::new());
        dynamic.makes.push(Some(port.make));
    }
    for (i, port) in b.ports.iter().enumerate() {
        if let Some(up) = port.upstream {
            dynamic.downstream[up as usize].push(pb + i as u32);
        }
    }
    for &(to, from) in &rehead {
        g.ports[to as usize].upstream = Some(from);
        dynamic.downstream[from as usize].push(to);
    }
    for &(c, head) in &over {
        g.ports[c as usize].slot = head;
    }
    for mp in &b.multiports {
        g.multiports.push(MultiportInfo {
            name: mp.name.clone(),
            owner: mp.owner,
            kind: mp.kind,
            base: mp.base,
            width: mp.width,
        });
    }
    let ba = base.actions;
    for (i, a) in b.actions.iter().enumerate() {
        holdings[(a.owner - br) as usize]
            .actions
            .push(ba + i as u32);
        g.actions.push(ActionInfo {
            name: a.name.clone(),
            owner: a.owner,
            mode: None,
            physical: a.physical,
            min_delay: a.spec.min_delay,
            min_spacing: a.spec.min_spacing,
            policy: a.spec.policy,
            triggers: Vec::new(),
            hidden: a.hidden,
        });
    }
    let bt = base.timers;
    let mut timers = Vec::with_capacity(b.timers.len());
    for (i, t) in b.timers.iter().enumerate() {
        holdings[(t.owner - br) as usize].timers.push(bt + i as u32);
        timers.push((bt + i as u32, t.offset));
        g.timers.push(TimerInfo {
            name: t.name.clone(),
            owner: t.owner,
            mode: None,
            offset: t.offset,
            period: t.period,
            triggers: Vec::new(),
        });
    }
    // Reactions and their edges.
    let mut changed_slots: Vec<u32> = Vec::new();
    let mut startup = Vec::new();
    let mut observed: BTreeSet<u32> = BTreeSet::new();
    for (i, (r, a)) in b.reactions.iter_mut().zip(&mut access).enumerate() {
        let ri = rb + i as u32;
        holdings[(r.reactor - br) as usize].reactions.push(ri);
        for &(start, len) in &a.trigger_ports {
            for p in start..start + len {
                let s = g.ports[p as usize].slot;
                let list = &mut g.slot_triggers[s as usize];
                // The list holds the program's reactions and the new ones before `ri`.
                if list.last() != Some(&ri) {
                    list.push(ri);
                    changed_slots.push(s);
                }
            }
        }
        for &(start, len) in &a.reads {
            if len == 0 {
                continue;
            }
            if let Some((mp, _)) = b.ports[(start - pb) as usize].multiport {
                observed.insert(mp);
            }
            for p in start..start + len {
                let list = &mut dynamic.readers[p as usize];
                if list.last() != Some(&ri) {
                    list.push(ri);
                }
            }
        }
        for &x in &a.trigger_actions {
            g.actions[x as usize].triggers.push(ri);
        }
        for &x in &a.trigger_timers {
            g.timers[x as usize].triggers.push(ri);
        }
        if a.startup {
            startup.push(ri);
        }
        if a.shutdown {
            g.shutdown.push(ri);
        }
        g.reactions.push(ReactionInfo {
            name: core::mem::take(&mut r.name),
            reactor: r.reactor,
            number: r.number,
            mode: None,
            level: visit.get(ri).expect("visited")[1],
            predecessors: core::mem::take(&mut preds[i]),
            successors: core::mem::take(&mut new_succs[i]),
            reads: core::mem::take(&mut a.reads),
            writes: core::mem::take(&mut a.writes),
            trigger_ports: core::mem::take(&mut a.trigger_ports),
            read_actions: core::mem::take(&mut a.read_actions),
            trigger_actions: core::mem::take(&mut a.trigger_actions),
            scheduled_actions: core::mem::take(&mut a.scheduled_actions),
            timers: core::mem::take(&mut a.timers),
            modes: Vec::new(),
            on_startup: a.startup,
            on_shutdown: a.shutdown,
            on_reset: a.reset,
            deadline: r.deadline.as_ref().map(|d| d.0),
            hidden: r.hidden,
            mutates: r.mutates,
        });
        g.reaction_mode.push(u32::MAX);
        g.reaction_level.push(0);
    }
    for (&y, p) in &extra_preds {
        let preds = &mut g.reactions[y as usize].predecessors;
        preds.extend_from_slice(p);
        preds.sort_unstable();
        preds.dedup();
    }
    for (&w, s) in &extra_succs {
        let succs = &mut g.reactions[w as usize].successors;
        succs.extend_from_slice(s);
        succs.sort_unstable();
        succs.dedup();
    }
    for &x in &order {
        let l = visit.get(x).expect("visited")[1];
        let old = g.reaction_level[x as usize];
        if x < rb {
            if old == l {
                continue;
            }
            g.level_widths[old as usize] -= 1;
        }
        g.reaction_level[x as usize] = l;
        g.reactions[x as usize].level = l;
        if l as usize >= g.level_widths.len() {
            g.level_widths.resize(l as usize + 1, 0);
        }
        g.level_widths[l as usize] += 1;
    }
    g.levels = g.level_widths.len() as u32;
    // Re-headed chains: their old head's triggers and observers go to the new head.
    for &(to, _) in &rehead {
        let head = g.ports[to as usize].slot;
        let moved = core::mem::take(&mut g.slot_triggers[to as usize]);
        let list = &mut g.slot_triggers[head as usize];
        list.extend_from_slice(&moved);
        list.sort_unstable();
        list.dedup();
        let obs = core::mem::take(&mut g.slot_observers[to as usize]);
        g.slot_observers[head as usize].extend_from_slice(&obs);
        changed_slots.push(head);
        changed_slots.push(to);
    }
    for &mp in &observed {
        let info = &g.multiports[mp as usize];
        for c in 0..info.width {
            let s = g.ports[(info.base + c) as usize].slot;
            g.slot_observers[s as usize].push((mp, c));
            changed_slots.push(s);
        }
    }
    g.connections.extend(connections);
    for c in &b.connections {
        g.connections.push(ConnectionInfo {
            from: c.from,
            to: c.to,
            kind: c.kind,
        });
    }

    // The run-time tables.
    for (i, port) in b.ports.iter().enumerate() {
        let head = slot_new[i] == pb + i as u32;
        let (slot, drops) = if head {
            let (s, d) = (port.make)();
            (Some(s), d)
        } else {
            (None, false)
        };
        prog.slots.push(slot);
        prog.ports.push(PortRt {
            cell: core::ptr::null(),
            reader: u32::MAX,
            writer: u32::MAX,
            read_mask: 0,
            write_mask: 0,
            drops,
            plain: !drops,
            observers: (0, 0),
            triggers: (0, 0),
            sole: u32::MAX,
        });
        if head {
            changed_slots.push(pb + i as u32);
        }
    }
    for (i, &s) in slot_new.iter().enumerate() {
        prog.ports[pb as usize + i].cell = slot_cell(prog, s);
    }
    for &(c, _) in &over {
        prog.ports[c as usize].cell = slot_cell(prog, prog.graph.ports[c as usize].slot);
    }
    changed_slots.sort_unstable();
    changed_slots.dedup();
    for &s in &changed_slots {
        refresh_slot(prog, s);
    }
    for (a, info) in b.actions.iter().zip(&prog.graph.actions[ba as usize..]) {
        let start = prog.trigger_list.len() as u32;
        prog.trigger_list.extend_from_slice(&info.triggers);
        prog.action_rt.push(ActionRt {
            cell: a.cell.cell(),
            take: a.take,
            owner: a.owner,
            read_mask: 0,
            schedule_mask: 0,
            min_delay: a.spec.min_delay,
            min_spacing: a.spec.min_spacing,
            policy: a.spec.policy,
            physical: a.physical,
            immediate: !a.physical && a.spec.min_delay == 0 && a.spec.min_spacing == 0,
            drops: a.needs_drop,
            mode: u32::MAX,
            triggers: (start, info.triggers.len() as u32),
            sole: sole(&info.triggers),
        });
    }
    masks(prog, rb);
    for _ in &b.timers {
        prog.timer_present.push(UnsafeCell::new(0));
    }
    for mp in &b.multiports {
        prog.mp_present
            .push(UnsafeCell::new(Vec::with_capacity(mp.width as usize)));
    }
    let reactors = core::mem::take(&mut b.reactors);
    for r in reactors {
        prog.states.push(r.state);
    }
    let actions = core::mem::take(&mut b.actions);
    for a in actions {
        prog.actions.push(a.cell);
    }
    let decls = core::mem::take(&mut b.reactions);
    for (i, r) in decls.into_iter().enumerate() {
        let bit = reaction_bit(r.hidden, r.number);
        let writes = &prog.graph.reactions[rb as usize + i].writes;
        let state = prog.states[r.reactor as usize].ptr();
        prog.reactions.push(ReactionCell {
            body: UnsafeCell::new(with_deadline(r.body, r.deadline)),
            scratch: UnsafeCell::new(Scratch {
                set_slots: vec![0; writes.iter().map(|&(_, l)| l as usize).sum()]
                    .into_boxed_slice(),
                set_len: 0,
                next_microstep_first: u32::MAX,
                next_microstep_rest: Vec::new(),
                scheduled: Vec::new(),
                stop: false,
                mode: None,
                fault: None,
                rare: false,
                mutations: Vec::new(),
                watchdogs: Vec::new(),
            }),
            state,
            reactor: r.reactor,
            bit,
        });
    }
    for (i, h) in holdings.into_iter().enumerate() {
        prog.dynamic.put_holding(br + i as u32, h);
    }
    Ok(Some(Created {
        reactions: (rb, nr as u32),
        startup,
        timers,
        visible,
    }))
}

/// The levels of the new reactions (numbered from `rb`, with predecessors `preds` and successors
/// `succs`) from their predecessors' levels, the program's levels unchanged; `None` if the new
/// reactions make a cycle among themselves, or if a new edge into a reaction of the program
/// (`extra`: per reaction, its new predecessors) does not climb: then the full update decides.
fn climbing(
    rb: u32,
    preds: &[Vec<u32>],
    succs: &[Vec<u32>],
    extra: &BTreeMap<u32, Vec<u32>>,
    g: &Graph,
) -> Option<Vec<u32>> {
    let nr = preds.len();
    let mut level = vec![0u32; nr];
    let mut indeg = vec![0u32; nr];
    for (i, p) in preds.iter().enumerate() {
        for &q in p {
            if q >= rb {
                indeg[i] += 1;
            } else {
                level[i] = level[i].max(g.reaction_level[q as usize] + 1);
            }
        }
    }
    let mut queue: Vec<usize> = (0..nr).filter(|&i| indeg[i] == 0).collect();
    let mut peeled = 0;
    while let Some(i) = queue.pop() {
        peeled += 1;
        for &s in &succs[i] {
            let Some(j) = s.checked_sub(rb) else { continue };
            let j = j as usize;
            level[j] = level[j].max(level[i] + 1);
            indeg[j] -= 1;
            if indeg[j] == 0 {
                queue.push(j);
            }
        }
    }
    if peeled < nr {
        return None;
    }
    let level_of = |w: u32| match w.checked_sub(rb) {
        Some(i) => level[i as usize],
        None => g.reaction_level[w as usize],
    };
    let climbs = extra.iter().all(|(&y, p)| {
        p.iter()
            .all(|&w| level_of(w) < g.reaction_level[y as usize])
    });
    climbs.then_some(level)
}

/// The access masks of the created ports and actions (as `assemble` makes them), from the
/// reactions numbered from `rb` on.
fn masks(prog: &mut Program, rb: u32) {
    let Program {
        graph,
        ports,
        action_rt,
        ..
    } = prog;
    for a in &graph.reactions[rb as usize..] {
        claim_masks(
            a.reactor,
            reaction_bit(a.hidden, a.number),
            Declared {
                reads: &a.reads,
                writes: &a.writes,
                read_actions: &a.read_actions,
                scheduled_actions: &a.scheduled_actions,
            },
            ports,
            action_rt,
        );
    }
}

/// The value cell of slot `s` (a chain head's), or null if it has none.
pub(crate) fn slot_cell(prog: &Program, s: u32) -> *const () {
    prog.slots
        .get(s as usize)
        .and_then(Option::as_ref)
        .map_or(core::ptr::null(), |slot| slot.cell())
}

/// Rewrites the run-time record of slot `s` from the graph's lists: its triggers and observers
/// are appended to the program's shared lists (the old ranges stay, unused).
pub(crate) fn refresh_slot(prog: &mut Program, s: u32) {
    let g = &prog.graph;
    let triggers = &g.slot_triggers[s as usize];
    let observers = &g.slot_observers[s as usize];
    let start = prog.trigger_list.len() as u32;
    prog.trigger_list.extend_from_slice(triggers);
    let first_observer = prog.observer_list.len() as u32;
    prog.observer_list.extend_from_slice(observers);
    let port = &mut prog.ports[s as usize];
    port.triggers = (start, triggers.len() as u32);
    port.sole = sole(triggers);
    port.observers = (first_observer, observers.len() as u32);
    port.plain = !port.drops && observers.is_empty();
}
