//! Committing a checked creation to the reaction graph: the new reactors, ports, multiports,
//! actions, timers and reactions are appended to the graph's tables, the re-headed chains of the
//! program get their new sources and slots, the new edges join the predecessor and successor
//! lists, the levels found by the update are written, and the triggers and observers of the
//! touched slots are updated. The run-time tables follow (see `tables`).

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::levels::Nodes;
use super::plan::{Edges, Slots};
use crate::assemble::Access;
use crate::graph::{
    ActionInfo, ConnectionInfo, MultiportInfo, PortInfo, ReactionInfo, ReactorInfo, TimerInfo,
};
use crate::mutation::index::Holdings;
use crate::mutation::Parts;
use crate::program::Program;

/// What the checks and the plan of a creation found, to commit.
pub(super) struct Plan {
    /// Ports of the program that take a created source: (port, source).
    pub(super) rehead: Vec<(u32, u32)>,
    /// The connections with the program's ports, for the graph's list.
    pub(super) connections: Vec<ConnectionInfo>,
    /// What each new reaction declared.
    pub(super) access: Vec<Access>,
    /// The slots of the created ports and of the re-headed chains.
    pub(super) slots: Slots,
    /// The writers of each created port.
    pub(super) new_writers: Vec<Vec<u32>>,
    /// The new edges of the reaction graph.
    pub(super) edges: Edges,
    /// Per visited reaction, its in-degree (spent) and its level.
    pub(super) visit: Nodes<[u32; 2]>,
    /// The reactions whose levels the update visited.
    pub(super) order: Vec<u32>,
}

/// What the graph's commit leaves for the run-time tables.
pub(super) struct Committed {
    /// The slot of each created port.
    pub(super) slot_new: Vec<u32>,
    /// (port of the program, its new head) for the re-headed chains.
    pub(super) over: Vec<(u32, u32)>,
    /// Per created reactor, what it holds.
    pub(super) holdings: Vec<Holdings>,
    /// The new reactions triggered by startup.
    pub(super) startup: Vec<u32>,
    /// The new timers, with their offsets.
    pub(super) timers: Vec<(u32, u64)>,
    /// Reactors created, generated ones not counted.
    pub(super) visible: u64,
    /// Slots whose triggers or observers changed (unsorted, with repeats).
    pub(super) changed_slots: Vec<u32>,
}

/// Appends the creation of `m`, checked and planned in `plan`, to `prog`'s reaction graph.
#[allow(clippy::too_many_lines)]
pub(super) fn commit_graph(prog: &mut Program, m: &mut Parts, plan: Plan) -> Committed {
    let Plan {
        rehead,
        connections,
        mut access,
        slots,
        mut new_writers,
        edges,
        visit,
        order,
    } = plan;
    let Slots {
        over,
        new: slot_new,
        ..
    } = slots;
    let Edges {
        mut preds,
        extra_preds,
        mut new_succs,
        extra_succs,
    } = edges;
    let b = &mut m.b;
    let base = b.base;
    let (pb, rb) = (base.ports, base.reactions);
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
    Committed {
        slot_new,
        over,
        holdings,
        startup,
        timers,
        visible,
        changed_slots,
    }
}
