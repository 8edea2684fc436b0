//! Applying a mutation's deletions: a deleted reactor (with what it contains) leaves the reaction
//! graph and the trigger lists, the ports it fed get back their own slots, its pending action
//! values are dropped, and its state and reaction bodies are dropped. Its indices stay, unused.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use super::create::refresh_slot;
use super::Parts;
use crate::cells::StateBox;
use crate::error::BuildError;
use crate::program::{Clock, Program, ReactionCell};

/// What a deletion removed, for the engine.
#[derive(Default)]
pub(crate) struct Deleted {
    pub(crate) reactions: Vec<u32>,
    pub(crate) actions: Vec<u32>,
    pub(crate) timers: Vec<u32>,
    /// Reactors deleted, generated ones not counted.
    pub(crate) visible: u64,
}

/// Applies the deletions of `m` to `prog` (see the module docs); checks them all first.
#[allow(clippy::too_many_lines)]
pub(crate) fn delete(prog: &mut Program, m: &Parts) -> Result<Deleted, BuildError> {
    let mut out = Deleted::default();
    if m.deletes.is_empty() {
        return Ok(out);
    }
    let g = &prog.graph;
    let dynamic = &prog.dynamic;
    let mut set: Vec<u32> = Vec::new();
    for &d in &m.deletes {
        let name = || {
            g.reactors
                .get(d as usize)
                .map_or_else(|| format!("reactor #{d}"), |r| r.name.clone())
        };
        if d as usize >= g.reactors.len() || dynamic.is_dead(d) {
            return Err(BuildError::Mutation {
                element: name(),
                reason: "deletes a reactor that does not exist (or no longer does)",
            });
        }
        if dynamic.creator.get(d as usize) != Some(&m.requester) {
            return Err(BuildError::Mutation {
                element: name(),
                reason: "a reaction deletes only reactors its own reactor created",
            });
        }
        let mut stack = alloc::vec![d];
        while let Some(x) = stack.pop() {
            set.push(x);
            if let Some(h) = dynamic.holding(x) {
                stack.extend_from_slice(&h.children);
            }
        }
    }
    // Sorted lists rather than trees: a deletion may remove thousands of reactors at once.
    set.sort_unstable();
    set.dedup();
    let mut ports: Vec<u32> = Vec::new();
    let mut reactions: Vec<u32> = Vec::new();
    for &x in &set {
        let h = prog.dynamic.take_holding(x).unwrap_or_default();
        prog.dynamic.dead[x as usize] = true;
        out.visible += u64::from(!h.hidden);
        ports.extend(h.ports);
        reactions.extend(h.reactions);
        out.actions.extend(h.actions);
        out.timers.extend(h.timers);
        // The state is dropped now: between tags no reaction runs, and the deleted reactor's
        // reactions never run again (the engine blocks them, and their bodies are replaced).
        prog.states[x as usize] = StateBox::new(());
    }
    let g = &mut prog.graph;
    let dynamic = &mut prog.dynamic;
    ports.sort_unstable();
    reactions.sort_unstable();
    let gone = |list: &[u32], x: &u32| list.binary_search(x).is_ok();
    let mut affected: Vec<u32> = Vec::new();
    // The survivors that lose an edge, a reader or a writer: each list is filtered once.
    let mut neighbours: Vec<u32> = Vec::new();
    let mut touched_ports: Vec<u32> = Vec::new();
    for &r in &reactions {
        let info = &g.reactions[r as usize];
        neighbours.extend(info.predecessors.iter().chain(&info.successors));
        for &(start, len) in info.reads.iter().chain(&info.writes) {
            touched_ports.extend(start..start + len);
        }
        for &(start, len) in &info.trigger_ports {
            for p in start..start + len {
                affected.push(g.ports[p as usize].slot);
            }
        }
        g.level_widths[g.reaction_level[r as usize] as usize] -= 1;
    }
    neighbours.sort_unstable();
    neighbours.dedup();
    touched_ports.sort_unstable();
    touched_ports.dedup();
    for q in neighbours {
        if gone(&reactions, &q) {
            continue;
        }
        let info = &mut g.reactions[q as usize];
        info.successors.retain(|s| !gone(&reactions, s));
        info.predecessors.retain(|s| !gone(&reactions, s));
    }
    for p in touched_ports {
        dynamic.readers[p as usize].retain(|x| !gone(&reactions, x));
        dynamic.writers[p as usize].retain(|x| !gone(&reactions, x));
    }
    for &r in &reactions {
        let cell = &mut prog.reactions[r as usize];
        let noop: crate::builder::Body =
            Box::new(|_: *mut (), _: &Program, _: &ReactionCell, _: &dyn Clock| {});
        *cell.body.get_mut() = noop;
        let scratch = cell.scratch.get_mut();
        scratch.scheduled = Vec::new();
        scratch.next_microstep_rest = Vec::new();
        scratch.mutations = Vec::new();
        out.reactions.push(r);
    }
    // Ports: connections from the survivors' side are cut; the ports they fed head their chains.
    let mut rehead: Vec<u32> = Vec::new();
    let mut upstream: Vec<u32> = Vec::new();
    for &p in &ports {
        if let Some(u) = g.ports[p as usize].upstream {
            if !gone(&ports, &u) {
                upstream.push(u);
            }
        }
        for q in core::mem::take(&mut dynamic.downstream[p as usize]) {
            if !gone(&ports, &q) {
                rehead.push(q);
            }
        }
        affected.push(g.ports[p as usize].slot);
    }
    upstream.sort_unstable();
    upstream.dedup();
    for u in upstream {
        dynamic.downstream[u as usize].retain(|q| !gone(&ports, q));
    }
    for q in rehead {
        let old = g.ports[q as usize].slot;
        g.ports[q as usize].upstream = None;
        if prog.slots[q as usize].is_none() {
            if let Some(make) = dynamic.makes.get(q as usize).copied().flatten() {
                let (slot, drops) = make();
                prog.slots[q as usize] = Some(slot);
                prog.ports[q as usize].drops = drops;
            }
        }
        let chain = dynamic.chain_from(q);
        for &c in &chain {
            g.ports[c as usize].slot = q;
        }
        let obs = core::mem::take(&mut g.slot_observers[old as usize]);
        let (moved, kept): (Vec<_>, Vec<_>) = obs.into_iter().partition(|&(mp, ch)| {
            let p = g.multiports[mp as usize].base + ch;
            chain.contains(&p)
        });
        g.slot_observers[old as usize] = kept;
        g.slot_observers[q as usize] = moved;
        let cell = prog.slots[q as usize]
            .as_ref()
            .map_or(core::ptr::null(), |slot| slot.cell());
        for &c in &chain {
            prog.ports[c as usize].cell = cell;
        }
        affected.push(q);
        affected.push(old);
    }
    affected.sort_unstable();
    affected.dedup();
    // Trigger lists of the heads whose chains changed, from the reactions that read their ports.
    for h in affected {
        if gone(&ports, &h) {
            prog.graph.slot_triggers[h as usize].clear();
            prog.graph.slot_observers[h as usize].clear();
            continue;
        }
        if prog.graph.ports[h as usize].slot != h {
            continue;
        }
        let mut list = Vec::new();
        for c in prog.dynamic.chain_from(h) {
            for &r in &prog.dynamic.readers[c as usize] {
                let tp = &prog.graph.reactions[r as usize].trigger_ports;
                if tp.iter().any(|&(s, l)| (s..s + l).contains(&c)) {
                    list.push(r);
                }
            }
        }
        list.sort_unstable();
        list.dedup();
        prog.graph.slot_triggers[h as usize] = list;
        refresh_slot(prog, h);
    }
    for &p in &ports {
        prog.slots[p as usize] = None;
        prog.ports[p as usize].cell = core::ptr::null();
    }
    for &a in &out.actions {
        // SAFETY: between tags no reaction runs, so none reads or schedules the action.
        unsafe { prog.actions[a as usize].clear_pending() };
    }
    Ok(out)
}
