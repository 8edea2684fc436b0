//! What each reaction declares (triggers, sources, effects), checked against LF's rules (what a
//! reaction may read, write, schedule or switch to) and resolved to the indices of the ports,
//! actions, timers and modes it touches. Used by a build and by a mutation's creations.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::builder::{ProgramBuilder, ReactionDecl};
use crate::error::BuildError;
use crate::graph::PortKind;
use crate::ids::Element;

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

impl ProgramBuilder {
    /// What each reaction declares.
    pub(super) fn resolve_access(&self) -> Result<Vec<Access>, BuildError> {
        self.reactions.iter().map(|r| self.access_of(r)).collect()
    }

    /// What reaction `r` declares, checked.
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
}
