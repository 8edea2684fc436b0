//! Turning a [`ProgramBuilder`] into a checked [`Program`]: resolve connection chains to value slots,
//! validate what each reaction declares, derive the reaction graph (port dependencies plus the
//! declaration order within each reactor), reject causality cycles naming the reactions on them,
//! compute levels, and index what each event triggers.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::UnsafeCell;

use crate::builder::{Body, ProgramBuilder, ReactionDecl};
use crate::ctx::Ctx;
use crate::error::BuildError;
use crate::graph::{
    mode_and_enclosing, ActionInfo, ConnectionInfo, Graph, ModeInfo, MultiportInfo, PortInfo,
    PortKind, ReactionInfo, ReactorInfo, TimerInfo,
};
use crate::ids::Element;
use crate::program::{ActionRt, Clock, PortRt, Program, ReactionCell, Scratch, TagInfo};

/// Adds `x` to the lists of mode `mode` and of every mode enclosing it (see
/// [`mode_and_enclosing`]), in `lists`, one list per mode.
fn add_to_modes(modes: &[ModeInfo], lists: &mut [Vec<u32>], mode: Option<u32>, x: u32) {
    for m in mode_and_enclosing(modes, mode) {
        lists[m as usize].push(x);
    }
}

/// Files `x`, declared by a reaction in `role` (0: trigger, 1: source, 2: effect), in the lists
/// of what it reads, what triggers it and what it affects: a trigger is read too.
fn by_role<T: Copy>(
    role: u8,
    x: T,
    reads: &mut Vec<T>,
    triggers: &mut Vec<T>,
    effects: &mut Vec<T>,
) {
    match role {
        0 => {
            reads.push(x);
            triggers.push(x);
        }
        1 => reads.push(x),
        _ => effects.push(x),
    }
}

/// What one reaction may touch, resolved to indices.
#[derive(Default)]
pub(crate) struct Access {
    pub(crate) reads: Vec<(u32, u32)>,
    pub(crate) writes: Vec<(u32, u32)>,
    pub(crate) trigger_ports: Vec<(u32, u32)>,
    pub(crate) read_actions: Vec<u32>,
    pub(crate) trigger_actions: Vec<u32>,
    pub(crate) scheduled_actions: Vec<u32>,
    pub(crate) timers: Vec<u32>,
    pub(crate) trigger_timers: Vec<u32>,
    pub(crate) modes: Vec<u32>,
    pub(crate) startup: bool,
    pub(crate) shutdown: bool,
    pub(crate) reset: bool,
}

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

impl ProgramBuilder {
    /// Checks the program and assembles it for running.
    ///
    /// # Errors
    /// The first problem found (see [`BuildError`]); warnings are kept in
    /// [`Program::warnings`](crate::Program::warnings).
    pub fn build(self) -> Result<Program, BuildError> {
        if let Some(e) = self.errors.first() {
            return Err(e.clone());
        }
        let slot_of = self.resolve_slots()?;
        let access = self.resolve_access()?;
        self.check_writers(&slot_of, &access)?;
        let (preds, succs) = self.edges(&slot_of, &access);
        let levels = self.levels(&preds, &succs)?;
        Ok(self.assemble(slot_of, access, preds, succs, levels))
    }

    /// The head of each port's connection chain.
    fn resolve_slots(&self) -> Result<Vec<u32>, BuildError> {
        let n = self.ports.len();
        let mut slot = vec![u32::MAX; n];
        for (p, s) in slot.iter_mut().enumerate() {
            let mut q = p as u32;
            let mut steps = 0;
            while let Some(up) = self.ports[q as usize].upstream {
                q = up;
                steps += 1;
                if steps > n {
                    return Err(BuildError::PortLoop(self.ports[p].name.clone()));
                }
            }
            *s = q;
        }
        Ok(slot)
    }

    fn resolve_access(&self) -> Result<Vec<Access>, BuildError> {
        self.reactions.iter().map(|r| self.access_of(r)).collect()
    }

    pub(crate) fn access_of(&self, r: &ReactionDecl) -> Result<Access, BuildError> {
        let mut a = Access::default();
        let me = r.reactor;
        let is_child = |owner: u32| {
            self.local_reactor(owner)
                .is_some_and(|l| self.reactors[l].parent == Some(me))
        };
        let bad = |element: String, reason: &'static str| BuildError::InvalidDeclaration {
            reaction: r.name.clone(),
            element,
            reason,
        };
        // Indices are program-wide (see `ProgramBuilder::base`); an element this builder did not
        // declare (one of the running program's, named by a mutation's reaction) is rejected.
        let outside = |ix: u32| {
            bad(
                alloc::format!("#{ix}"),
                "a created reaction can declare only elements created with it",
            )
        };
        let local = |ix: u32, base: u32, len: usize| {
            ix.checked_sub(base)
                .map(|i| i as usize)
                .filter(|&i| i < len)
                .ok_or_else(|| outside(ix))
        };
        let roles: [(&[Element], u8); 3] = [(&r.triggers, 0), (&r.sources, 1), (&r.effects, 2)];
        for (elements, role) in roles {
            for el in elements {
                match *el {
                    Element::Ports { start, len } => {
                        for p in start..start + len {
                            let port = &self.ports[local(p, self.base.ports, self.ports.len())?];
                            let readable = match port.kind {
                                PortKind::Input => port.owner == me,
                                PortKind::Output => is_child(port.owner),
                            };
                            let writable = match port.kind {
                                PortKind::Output => port.owner == me,
                                PortKind::Input => is_child(port.owner),
                            };
                            let ok = r.hidden || if role == 2 { writable } else { readable };
                            if !ok {
                                return Err(bad(
                                    port.name.clone(),
                                    if role == 2 {
                                        "only the reactor's own outputs and its contained reactors' inputs can be effects"
                                    } else {
                                        "only the reactor's own inputs and its contained reactors' outputs can be read"
                                    },
                                ));
                            }
                        }
                        let range = (start, len);
                        by_role(
                            role,
                            range,
                            &mut a.reads,
                            &mut a.trigger_ports,
                            &mut a.writes,
                        );
                    }
                    Element::Action(x) => {
                        let act = &self.actions[local(x, self.base.actions, self.actions.len())?];
                        if act.owner != me && !r.hidden {
                            return Err(bad(
                                act.name.clone(),
                                "actions belong to their own reactor",
                            ));
                        }
                        let (reads, triggers) = (&mut a.read_actions, &mut a.trigger_actions);
                        by_role(role, x, reads, triggers, &mut a.scheduled_actions);
                    }
                    Element::Timer(x) => {
                        let t = &self.timers[local(x, self.base.timers, self.timers.len())?];
                        if t.owner != me {
                            return Err(bad(t.name.clone(), "timers belong to their own reactor"));
                        }
                        if role == 2 {
                            return Err(bad(t.name.clone(), "a timer cannot be an effect"));
                        }
                        a.timers.push(x);
                        if role == 0 {
                            a.trigger_timers.push(x);
                        }
                    }
                    Element::Mode(m) => {
                        let mode = &self.modes[local(m, self.base.modes, self.modes.len())?];
                        if role != 2 {
                            return Err(bad(mode.name.clone(), "a mode can only be an effect"));
                        }
                        if mode.reactor != me {
                            return Err(bad(
                                mode.name.clone(),
                                "only the reactor's own modes can be switched to",
                            ));
                        }
                        a.modes.push(m);
                    }
                    Element::Startup | Element::Shutdown | Element::Reset if role != 0 => {
                        return Err(bad(
                            format!("{el:?}"),
                            "startup, shutdown and reset can only be triggers",
                        ));
                    }
                    Element::Startup => a.startup = true,
                    Element::Shutdown => a.shutdown = true,
                    Element::Reset => a.reset = true,
                }
            }
        }
        Ok(a)
    }

    /// Every written port heads its chain (nothing connects into it), and each slot's writers all
    /// belong to one reactor; no reaction reads a slot it writes.
    fn check_writers(&self, slot_of: &[u32], access: &[Access]) -> Result<(), BuildError> {
        let mut writer_reactor: Vec<Option<(u32, u32)>> = vec![None; self.ports.len()];
        for (ri, (r, a)) in self.reactions.iter().zip(access).enumerate() {
            for &(start, len) in &a.writes {
                for p in start..start + len {
                    let port = &self.ports[p as usize];
                    if let Some(up) = port.upstream {
                        return Err(BuildError::MultipleSources {
                            port: port.name.clone(),
                            sources: vec![self.ports[up as usize].name.clone(), r.name.clone()],
                        });
                    }
                    match writer_reactor[p as usize] {
                        Some((other, other_r)) if other != r.reactor => {
                            return Err(BuildError::MultipleSources {
                                port: port.name.clone(),
                                sources: vec![
                                    self.reactions[other_r as usize].name.clone(),
                                    r.name.clone(),
                                ],
                            })
                        }
                        _ => writer_reactor[p as usize] = Some((r.reactor, ri as u32)),
                    }
                }
            }
            for &(start, len) in &a.reads {
                for p in start..start + len {
                    let s = slot_of[p as usize];
                    if a.writes.iter().any(|&(ws, wl)| (ws..ws + wl).contains(&s)) {
                        return Err(BuildError::InvalidDeclaration {
                            reaction: r.name.clone(),
                            element: self.ports[p as usize].name.clone(),
                            reason: "it reads the value of a port it also writes",
                        });
                    }
                }
            }
        }
        for (p, port) in self.ports.iter().enumerate() {
            if port.required && port.upstream.is_none() && writer_reactor[p].is_none() {
                return Err(BuildError::UnconnectedInput(port.name.clone()));
            }
        }
        Ok(())
    }

    /// The reaction graph: writer -> reader through every slot, and declaration order within each
    /// reactor.
    fn edges(&self, slot_of: &[u32], access: &[Access]) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let n = self.reactions.len();
        let mut writers: Vec<Vec<u32>> = vec![Vec::new(); self.ports.len()];
        for (ri, a) in access.iter().enumerate() {
            for &(start, len) in &a.writes {
                for p in start..start + len {
                    writers[p as usize].push(ri as u32);
                }
            }
        }
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (ri, a) in access.iter().enumerate() {
            for &(start, len) in &a.reads {
                for p in start..start + len {
                    preds[ri].extend_from_slice(&writers[slot_of[p as usize] as usize]);
                }
            }
        }
        let mut last_of_reactor: Vec<Option<u32>> = vec![None; self.reactors.len()];
        for (ri, r) in self.reactions.iter().enumerate() {
            if let Some(prev) = last_of_reactor[r.reactor as usize] {
                preds[ri].push(prev);
            }
            last_of_reactor[r.reactor as usize] = Some(ri as u32);
        }
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (ri, p) in preds.iter_mut().enumerate() {
            p.sort_unstable();
            p.dedup();
            p.retain(|&q| q as usize != ri);
            for &q in p.iter() {
                succs[q as usize].push(ri as u32);
            }
        }
        (preds, succs)
    }

    /// Levels by peeling the graph (Kahn); a cycle is reported with the reactions on it.
    fn levels(&self, preds: &[Vec<u32>], succs: &[Vec<u32>]) -> Result<Vec<u32>, BuildError> {
        let n = preds.len();
        let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
        let mut level = vec![0u32; n];
        let mut queue: Vec<u32> = (0..n as u32).filter(|&r| indeg[r as usize] == 0).collect();
        let mut seen = 0;
        while let Some(r) = queue.pop() {
            seen += 1;
            for &s in &succs[r as usize] {
                level[s as usize] = level[s as usize].max(level[r as usize] + 1);
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    queue.push(s);
                }
            }
        }
        if seen == n {
            return Ok(level);
        }
        // Walk predecessors among the unpeeled reactions until one repeats: that is a cycle.
        let start = (0..n).find(|&r| indeg[r] > 0).unwrap_or(0) as u32;
        let mut path = vec![start];
        let mut cur = start;
        while let Some(&next) = preds[cur as usize].iter().find(|&&p| indeg[p as usize] > 0) {
            if let Some(pos) = path.iter().position(|&x| x == next) {
                let mut cycle: Vec<String> = path[pos..]
                    .iter()
                    .rev()
                    .map(|&r| self.reactions[r as usize].name.clone())
                    .collect();
                cycle.push(cycle[0].clone());
                return Err(BuildError::Cycle(cycle));
            }
            path.push(next);
            cur = next;
        }
        Err(BuildError::Cycle(vec![self.reactions[start as usize]
            .name
            .clone()]))
    }

    fn enclosing_modes(&self) -> Vec<Option<u32>> {
        let mut out: Vec<Option<u32>> = vec![None; self.reactors.len()];
        for (i, r) in self.reactors.iter().enumerate() {
            // Parents are declared before children, so theirs is known.
            out[i] = r.mode.or_else(|| r.parent.and_then(|p| out[p as usize]));
        }
        out
    }

    #[allow(clippy::too_many_lines)]
    fn assemble(
        self,
        slot_of: Vec<u32>,
        access: Vec<Access>,
        preds: Vec<Vec<u32>>,
        succs: Vec<Vec<u32>>,
        level: Vec<u32>,
    ) -> Program {
        let enclosing = self.enclosing_modes();
        let mut g = Graph::default();
        let nports = self.ports.len();
        g.slot_triggers = vec![Vec::new(); nports];
        g.slot_observers = vec![Vec::new(); nports];
        let nmodes = self.modes.len();
        g.mode_reset_reactions = vec![Vec::new(); nmodes];
        g.mode_timers = vec![Vec::new(); nmodes];
        g.mode_actions = vec![Vec::new(); nmodes];
        g.mode_reactors = vec![Vec::new(); nmodes];
        g.mode_hooks = vec![Vec::new(); nmodes];
        for (i, m) in self.modes.iter().enumerate() {
            let initial = self.reactors[m.reactor as usize].modes.first() == Some(&(i as u32));
            g.modes.push(ModeInfo {
                name: m.name.clone(),
                reactor: m.reactor,
                parent: enclosing[m.reactor as usize],
                initial,
            });
        }
        for (i, r) in self.reactors.iter().enumerate() {
            g.reactors.push(ReactorInfo {
                name: r.name.clone(),
                parent: r.parent,
                mode: r.mode,
                enclosing_mode: enclosing[i],
                hidden: r.hidden,
                modes: r.modes.clone(),
                bank_index: r.bank_index,
            });
        }
        for (i, r) in self.reactors.iter().enumerate() {
            if r.modes.is_empty() {
                continue;
            }
            add_to_modes(&g.modes, &mut g.mode_reactors, enclosing[i], i as u32);
        }
        for (p, port) in self.ports.iter().enumerate() {
            g.ports.push(PortInfo {
                name: port.name.clone(),
                owner: port.owner,
                kind: port.kind,
                multiport: port.multiport,
                upstream: port.upstream,
                slot: slot_of[p],
                type_name: port.type_name,
            });
        }
        for m in &self.multiports {
            g.multiports.push(MultiportInfo {
                name: m.name.clone(),
                owner: m.owner,
                kind: m.kind,
                base: m.base,
                width: m.width,
            });
        }
        let action_mode = |owner: u32, mode: Option<u32>| mode.or(enclosing[owner as usize]);
        for (i, a) in self.actions.iter().enumerate() {
            let mode = action_mode(a.owner, a.mode);
            add_to_modes(&g.modes, &mut g.mode_actions, mode, i as u32);
            g.actions.push(ActionInfo {
                name: a.name.clone(),
                owner: a.owner,
                mode,
                physical: a.physical,
                min_delay: a.spec.min_delay,
                min_spacing: a.spec.min_spacing,
                policy: a.spec.policy,
                triggers: Vec::new(),
                hidden: a.hidden,
            });
        }
        for &(a, timeout) in &self.watchdogs {
            let action = &self.actions[a as usize];
            g.watchdogs.push(crate::graph::WatchdogInfo {
                name: action.name.clone(),
                owner: action.owner,
                action: a,
                timeout,
            });
        }
        for (i, t) in self.timers.iter().enumerate() {
            let mode = action_mode(t.owner, t.mode);
            add_to_modes(&g.modes, &mut g.mode_timers, mode, i as u32);
            g.timers.push(TimerInfo {
                name: t.name.clone(),
                owner: t.owner,
                mode,
                offset: t.offset,
                period: t.period,
                triggers: Vec::new(),
            });
        }
        for (h, hook) in self.hooks.iter().enumerate() {
            match hook.mode {
                Some(m) => g.mode_hooks[m as usize].push(h as u32),
                None => {
                    add_to_modes(
                        &g.modes,
                        &mut g.mode_hooks,
                        enclosing[hook.reactor as usize],
                        h as u32,
                    );
                }
            }
        }
        let mut observed = vec![false; self.multiports.len()];
        for (ri, (r, a)) in self.reactions.iter().zip(&access).enumerate() {
            let ri = ri as u32;
            let mode = r.mode.or(enclosing[r.reactor as usize]);
            for &(start, len) in &a.trigger_ports {
                for p in start..start + len {
                    let t = &mut g.slot_triggers[slot_of[p as usize] as usize];
                    if t.last() != Some(&ri) {
                        t.push(ri);
                    }
                }
            }
            for &(start, len) in &a.reads {
                // A multiport of no channels starts past the last port.
                if len == 0 {
                    continue;
                }
                if let Some((mp, _)) = self.ports[start as usize].multiport {
                    observed[mp as usize] = true;
                }
            }
            for &x in &a.trigger_actions {
                g.actions[x as usize].triggers.push(ri);
            }
            for &x in &a.trigger_timers {
                g.timers[x as usize].triggers.push(ri);
            }
            if a.startup {
                g.startup.push(ri);
            }
            if a.shutdown {
                g.shutdown.push(ri);
            }
            if a.reset {
                add_to_modes(&g.modes, &mut g.mode_reset_reactions, mode, ri);
            }
            g.reactions.push(ReactionInfo {
                name: r.name.clone(),
                reactor: r.reactor,
                number: r.number,
                mode,
                level: level[ri as usize],
                predecessors: preds[ri as usize].clone(),
                successors: succs[ri as usize].clone(),
                reads: a.reads.clone(),
                writes: a.writes.clone(),
                trigger_ports: a.trigger_ports.clone(),
                read_actions: a.read_actions.clone(),
                trigger_actions: a.trigger_actions.clone(),
                scheduled_actions: a.scheduled_actions.clone(),
                timers: a.timers.clone(),
                modes: a.modes.clone(),
                on_startup: a.startup,
                on_shutdown: a.shutdown,
                on_reset: a.reset,
                deadline: r.deadline.as_ref().map(|d| d.0),
                hidden: r.hidden,
                mutates: r.mutates,
            });
        }
        for t in &mut g.slot_triggers {
            t.sort_unstable();
            t.dedup();
        }
        for (mp, m) in self.multiports.iter().enumerate() {
            if !observed[mp] {
                continue;
            }
            for c in 0..m.width {
                let s = slot_of[(m.base + c) as usize];
                g.slot_observers[s as usize].push((mp as u32, c));
            }
        }
        for c in &self.connections {
            g.connections.push(ConnectionInfo {
                from: c.from,
                to: c.to,
                kind: c.kind,
            });
        }
        g.reaction_mode = g
            .reactions
            .iter()
            .map(|r| r.mode.unwrap_or(u32::MAX))
            .collect();
        g.reaction_level = level.clone();
        g.levels = level.iter().copied().max().map_or(0, |l| l + 1);
        g.level_widths = vec![0; g.levels as usize];
        for &l in &level {
            g.level_widths[l as usize] += 1;
        }

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
            let start = trigger_list.len() as u32;
            trigger_list.extend_from_slice(&info.triggers);
            action_rt.push(ActionRt {
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
            });
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
