//! The run-time tables of an assembled program, which the schedulers use: the value slots (one
//! per chain head), the port and action records with their trigger and observer ranges, the
//! access masks that let a reaction's reads and writes be checked with one bit, the presence of
//! timers and multiports, the states, and the reaction cells (body, scratch, state).

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::UnsafeCell;

use super::Access;
use crate::builder::{ActionDecl, Body, ProgramBuilder};
use crate::ctx::Ctx;
use crate::graph::{ActionInfo, Graph};
use crate::program::{ActionRt, Clock, PortRt, Program, ReactionCell, Scratch, TagInfo};

/// The ports and actions one reaction declared, as its access mask records them.
pub(crate) struct Declared<'a> {
    pub(crate) reads: &'a [(u32, u32)],
    pub(crate) writes: &'a [(u32, u32)],
    pub(crate) read_actions: &'a [u32],
    pub(crate) scheduled_actions: &'a [u32],
}

/// The bit of a declared reaction among the first 64 of its reactor: 0 for a generated
/// (hidden) reaction or one past the 64th, which keep the slow check.
pub(crate) fn reaction_bit(hidden: bool, number: u32) -> u64 {
    if hidden || number == 0 || number > 64 {
        0
    } else {
        1u64 << (number - 1)
    }
}

/// Records reaction `bit` of reactor `me` in the access masks of the ports and actions it
/// declared: a port or action records the bits of the reactions that declared it and the one
/// reactor those reactions belong to (see `PortRt`). A second reactor claiming the same port would
/// make the bit ambiguous: its reactions keep the slow check. Used when a program is assembled and
/// for the reactions a mutation creates.
pub(crate) fn claim_masks(
    me: u32,
    bit: u64,
    declared: Declared<'_>,
    ports: &mut [PortRt],
    action_rt: &mut [ActionRt],
) {
    if bit == 0 {
        return;
    }
    let claim = |who: &mut u32, mask: &mut u64| {
        if *who == u32::MAX || *who == me {
            *who = me;
            *mask |= bit;
        }
    };
    for &(start, len) in declared.reads {
        for p in start..start + len {
            let port = &mut ports[p as usize];
            claim(&mut port.reader, &mut port.read_mask);
        }
    }
    for &(start, len) in declared.writes {
        for p in start..start + len {
            let port = &mut ports[p as usize];
            claim(&mut port.writer, &mut port.write_mask);
        }
    }
    for &x in declared.read_actions {
        let act = &mut action_rt[x as usize];
        if act.owner == me {
            act.read_mask |= bit;
        }
    }
    for &x in declared.scheduled_actions {
        let act = &mut action_rt[x as usize];
        if act.owner == me {
            act.schedule_mask |= bit;
        }
    }
}

/// The run-time record of action `a`, described by `info`; its triggers are appended to
/// `trigger_list`. Used when a program is assembled and for the actions a mutation creates.
pub(crate) fn action_record(
    a: &ActionDecl,
    info: &ActionInfo,
    trigger_list: &mut Vec<u32>,
) -> ActionRt {
    let start = trigger_list.len() as u32;
    trigger_list.extend_from_slice(&info.triggers);
    ActionRt {
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
        mode: info.mode.unwrap_or(u32::MAX),
        triggers: (start, info.triggers.len() as u32),
        sole: sole(&info.triggers),
    }
}

impl ProgramBuilder {
    /// The program: its graph `g` and its run-time tables, from its slots (`slot_of`) and what
    /// its reactions declare (`access`).
    #[allow(clippy::too_many_lines)]
    pub(super) fn tables(self, g: Graph, slot_of: &[u32], access: Vec<Access>) -> Program {
        let nports = self.ports.len();
        let (slots, drops): (Vec<Option<Box<_>>>, Vec<bool>) = self
            .ports
            .iter()
            .enumerate()
            .map(|(p, port)| {
                if slot_of[p] == p as u32 {
                    let (slot, drops) = (port.make)();
                    (Some(slot), drops)
                } else {
                    (None, false)
                }
            })
            .unzip();
        let mut trigger_list = Vec::new();
        let mut observer_list = Vec::new();
        let mut ports: Vec<PortRt> = (0..nports)
            .map(|p| {
                let head = slot_of[p] as usize;
                let start = trigger_list.len() as u32;
                trigger_list.extend_from_slice(&g.slot_triggers[p]);
                let first_observer = observer_list.len() as u32;
                observer_list.extend_from_slice(&g.slot_observers[p]);
                PortRt {
                    cell: slots[head].as_ref().map_or(core::ptr::null(), |s| s.cell()),
                    reader: u32::MAX,
                    writer: u32::MAX,
                    read_mask: 0,
                    write_mask: 0,
                    drops: drops[p],
                    plain: !drops[p] && g.slot_observers[p].is_empty(),
                    observers: (first_observer, g.slot_observers[p].len() as u32),
                    triggers: (start, g.slot_triggers[p].len() as u32),
                    sole: sole(&g.slot_triggers[p]),
                }
            })
            .collect();
        let mut action_rt: Vec<ActionRt> = Vec::with_capacity(self.actions.len());
        for (a, info) in self.actions.iter().zip(&g.actions) {
            action_rt.push(action_record(a, info, &mut trigger_list));
        }
        // The access masks: each declared (non-generated) reaction among the first 64 of its
        // reactor gets a bit (see `claim_masks`).
        for (r, a) in self.reactions.iter().zip(&access) {
            claim_masks(
                r.reactor,
                reaction_bit(r.hidden, r.number),
                Declared {
                    reads: &a.reads,
                    writes: &a.writes,
                    read_actions: &a.read_actions,
                    scheduled_actions: &a.scheduled_actions,
                },
                &mut ports,
                &mut action_rt,
            );
        }
        let mp_present = self
            .multiports
            .iter()
            .map(|m| UnsafeCell::new(Vec::with_capacity(m.width as usize)))
            .collect();
        let mut states = Vec::with_capacity(self.reactors.len());
        for r in self.reactors {
            states.push(r.state);
        }
        let reactions = self
            .reactions
            .into_iter()
            .zip(access)
            .map(|(r, a)| {
                let bit = reaction_bit(r.hidden, r.number);
                let body = with_deadline(r.body, r.deadline);
                ReactionCell {
                    body: UnsafeCell::new(body),
                    scratch: UnsafeCell::new(Scratch {
                        set_slots: vec![0; a.writes.iter().map(|&(_, l)| l as usize).sum()]
                            .into_boxed_slice(),
                        set_len: 0,
                        next_microstep_first: u32::MAX,
                        next_microstep_rest: Vec::with_capacity(
                            a.scheduled_actions.len().saturating_sub(1),
                        ),
                        scheduled: Vec::with_capacity(a.scheduled_actions.len()),
                        stop: false,
                        mode: None,
                        fault: None,
                        watchdogs: Vec::new(),
                        rare: false,
                        mutations: Vec::new(),
                    }),
                    state: states[r.reactor as usize].ptr(),
                    reactor: r.reactor,
                    bit,
                }
            })
            .collect();
        Program {
            id: self.prog,
            timer_present: (0..g.timers.len()).map(|_| UnsafeCell::new(0)).collect(),
            graph: g,
            slots,
            ports,
            trigger_list,
            observer_list,
            action_rt,
            actions: self
                .actions
                .into_iter()
                .map(|a| a.cell)
                .collect::<Vec<Box<_>>>(),
            states,
            reactions,
            hooks: self
                .hooks
                .into_iter()
                .map(|h| (h.reactor, UnsafeCell::new(h.hook)))
                .collect(),
            mp_present,
            info: UnsafeCell::new(TagInfo::default()),
            inbox: self.inbox,
            warnings: self.warnings,
            started: core::sync::atomic::AtomicBool::new(false),
            deadline_order: None,
            dynamic: crate::mutation::Dynamic::default(),
        }
    }
}

/// A reaction's body, checking its deadline first if it has one (the handler runs instead of
/// the body when the deadline is missed).
pub(crate) fn with_deadline(body: Body, deadline: Option<(u64, Body)>) -> Body {
    match deadline {
        None => body,
        Some((d, mut handler)) => {
            let mut body = body;
            Box::new(
                move |state, prog: &Program, cell: &ReactionCell, clock: &dyn Clock| {
                    if Ctx::new(prog, cell, clock).lag_nanos() > d {
                        handler(state, prog, cell, clock)
                    } else {
                        body(state, prog, cell, clock)
                    }
                },
            )
        }
    }
}

/// The only reaction of a trigger list, or `u32::MAX` (see `PortRt::sole`).
pub(crate) fn sole(triggers: &[u32]) -> u32 {
    match triggers {
        [r] => *r,
        _ => u32::MAX,
    }
}
