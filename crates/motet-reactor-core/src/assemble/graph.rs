//! The description of an assembled program ([`Graph`]): its reactors, modes, ports, multiports,
//! actions, watchdogs, timers, reset hooks and reactions with their levels and edges, what each
//! slot, action and timer triggers, which multiports' channels are observed, and the lists of
//! what each mode holds.

use alloc::vec;
use alloc::vec::Vec;

use super::Access;
use crate::builder::ProgramBuilder;
use crate::graph::{
    mode_and_enclosing, ActionInfo, ConnectionInfo, Graph, ModeInfo, MultiportInfo, PortInfo,
    ReactionInfo, ReactorInfo, TimerInfo,
};

/// Adds `x` to the lists of mode `mode` and of every mode enclosing it (see
/// [`mode_and_enclosing`]), in `lists`, one list per mode.
fn add_to_modes(modes: &[ModeInfo], lists: &mut [Vec<u32>], mode: Option<u32>, x: u32) {
    for m in mode_and_enclosing(modes, mode) {
        lists[m as usize].push(x);
    }
}

impl ProgramBuilder {
    /// Per reactor, the mode it lies in, its own or an enclosing reactor's.
    fn enclosing_modes(&self) -> Vec<Option<u32>> {
        let mut out: Vec<Option<u32>> = vec![None; self.reactors.len()];
        for (i, r) in self.reactors.iter().enumerate() {
            // Parents are declared before children, so theirs is known.
            out[i] = r.mode.or_else(|| r.parent.and_then(|p| out[p as usize]));
        }
        out
    }

    /// The graph of the program, from its slots (`slot_of`), what its reactions declare
    /// (`access`), their edges (`preds`, `succs`) and their levels.
    #[allow(clippy::too_many_lines)]
    pub(super) fn graph(
        &self,
        slot_of: &[u32],
        access: &[Access],
        preds: &[Vec<u32>],
        succs: &[Vec<u32>],
        level: Vec<u32>,
    ) -> Graph {
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
        for (ri, (r, a)) in self.reactions.iter().zip(access).enumerate() {
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
        g
    }
}
