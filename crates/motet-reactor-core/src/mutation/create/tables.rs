//! Committing a creation's run-time tables, after its graph (see `apply`): value slots and
//! port records for the created ports, new cells for the re-headed chains, refreshed records for
//! the slots whose triggers or observers changed, action records, access masks, timer and
//! multiport presence, states, and the reaction cells.

use alloc::vec;
use alloc::vec::Vec;
use core::cell::UnsafeCell;

use super::apply::Committed;
use super::Created;
use crate::assemble::{action_record, claim_masks, reaction_bit, sole, with_deadline, Declared};
use crate::builder::ProgramBuilder;
use crate::program::{PortRt, Program, ReactionCell, Scratch};

/// Appends the run-time tables of the creation of `b` (its graph committed: `c`) to `prog`.
pub(super) fn commit_tables(prog: &mut Program, b: &mut ProgramBuilder, c: Committed) -> Created {
    let Committed {
        slot_new,
        over,
        holdings,
        startup,
        timers,
        visible,
        mut changed_slots,
    } = c;
    let base = b.base;
    let (pb, rb, br, ba) = (base.ports, base.reactions, base.reactors, base.actions);
    let nr = b.reactions.len();
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
        let rt = action_record(a, info, &mut prog.trigger_list);
        prog.action_rt.push(rt);
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
    Created {
        reactions: (rb, nr as u32),
        startup,
        timers,
        visible,
    }
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
