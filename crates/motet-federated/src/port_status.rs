//! What a federate knows of its network ports at a tag, for processing a tag provisionally (LF's
//! PTAG, reactor-c's `federate.c`).
//!
//! - **Inputs.** For each logical connection into the federate, the earliest tag at which its
//!   content is not known yet. Values and absences on one connection arrive in tag order. A
//!   port-absent message for `t` says that nothing more comes at or before `t`; a value at `t`
//!   says the same, except through a delay with a time part, where a later microstep of the
//!   sender lands on `t` again (the coordinator's own port-absent message tells when it cannot).
//!   A tag granted in full (TAG) makes every input known up to it; a provisional grant (PTAG)
//!   for `g` makes them known before `g`.
//! - **Where to wait.** While some inputs are unknown at the tag being processed, the federate
//!   runs its reactions only below the lowest level of the reactions that read those inputs (the
//!   successors of each connection's receiving reaction): LF's "max level allowed to advance".
//!   Levels are those of the whole program (see `builder.rs`), so what other federates wait for
//!   lies below.
//! - **Outputs.** For each logical connection without a time delay into a federate on a
//!   zero-delay cycle, whether the federate has sent its content at the current tag. Once the sending reaction's level has
//!   been passed without a value, the connection is absent at this tag, and a port-absent message
//!   goes out. Connections into other federates need none: those federates never process a tag
//!   provisionally.

use motet_reactor_core::{Program, Tag};

use crate::program::LinkEnds;
use crate::topology::{Delay, Topology};
use crate::wire::WireTag;

/// A logical connection into the federate.
#[derive(Debug)]
struct InputPort {
    link: u32,
    /// The lowest level of the reactions that read it (`u32::MAX` if none does).
    block: u32,
    /// Its delay has a time part.
    timed: bool,
    /// The earliest tag at which its content is not known yet.
    unknown_from: Tag,
}

impl InputPort {
    fn known_at(&self, t: Tag) -> bool {
        self.unknown_from > t
    }
}

/// A logical connection out of the federate into a federate on a zero-delay cycle.
#[derive(Debug)]
struct OutputPort {
    link: u32,
    /// The level of its sending reaction.
    level: u32,
    delay: Delay,
    /// The latest tag at which its content (a value or its absence) was sent.
    reported: Option<Tag>,
}

/// The status of a federate's network ports (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct PortStatus {
    inputs: Vec<InputPort>,
    outputs: Vec<OutputPort>,
    /// The latest provisional grant.
    pub(crate) provisional: Option<Tag>,
}

impl PortStatus {
    /// The ports of federate `me` of `topology`, whose generated reactions `ends` are in `prog`.
    pub(crate) fn new(
        me: u32,
        topology: &Topology,
        prog: &Program,
        ends: &[Option<LinkEnds>],
    ) -> PortStatus {
        let g = prog.graph();
        let cyclic = topology.zero_delay_cycles();
        let mut status = PortStatus::default();
        for (k, l) in topology.links.iter().enumerate() {
            let Some(e) = ends.get(k).and_then(|e| e.as_ref()) else {
                continue;
            };
            if l.physical {
                continue;
            }
            if l.to == me {
                let block = g.reactions[e.deliver as usize]
                    .successors
                    .iter()
                    .map(|&s| prog.level(s as usize))
                    .min()
                    .unwrap_or(u32::MAX);
                status.inputs.push(InputPort {
                    link: k as u32,
                    block,
                    timed: Delay::of_connection(l.after).time > 0,
                    unknown_from: Tag::ZERO,
                });
            }
            // Through a delay with a time part, a later microstep lands on the same tag: the
            // sender cannot tell its absence (the coordinator does).
            let timed = Delay::of_connection(l.after).time > 0;
            if l.from == me && !timed && cyclic.contains(&l.to) {
                status.outputs.push(OutputPort {
                    link: k as u32,
                    level: prog.level(e.send as usize),
                    delay: Delay::of_connection(l.after),
                    reported: None,
                });
            }
        }
        status
    }

    /// Whether tag `t` may be processed to its end without waiting for inputs: it is granted in
    /// full, or lies before the latest provisional grant.
    pub(crate) fn granted_in_full(&self, t: Tag, granted: Option<Tag>) -> bool {
        granted.is_some_and(|g| g >= t) || self.provisional.is_some_and(|p| p > t)
    }

    /// Whether tag `t` may be entered: granted in full or provisionally.
    pub(crate) fn may_enter(&self, t: Tag, granted: Option<Tag>) -> bool {
        granted.is_some_and(|g| g >= t) || self.provisional.is_some_and(|p| p >= t)
    }

    /// A value (`value`) or a port-absent message came on `link` at `tag` (see the module
    /// docs).
    pub(crate) fn heard(&mut self, link: u32, tag: Tag, value: bool) {
        if let Some(i) = self.inputs.iter_mut().find(|i| i.link == link) {
            let next = if value && i.timed {
                tag
            } else {
                tag.delay_nanos(0)
            };
            i.unknown_from = i.unknown_from.max(next);
        }
    }

    /// A value went out on `link` at the federate's tag `t`.
    pub(crate) fn sent(&mut self, link: u32, t: Tag) {
        if let Some(o) = self.outputs.iter_mut().find(|o| o.link == link) {
            o.reported = Some(t);
        }
    }

    /// The level below which the reactions of tag `t` may run now: the lowest level of the
    /// reactions that read an input unknown at `t` (`u32::MAX` when none does).
    pub(crate) fn limit(&self, t: Tag, granted: Option<Tag>) -> u32 {
        if self.granted_in_full(t, granted) {
            return u32::MAX;
        }
        self.inputs
            .iter()
            .filter(|i| !i.known_at(t))
            .map(|i| i.block)
            .min()
            .unwrap_or(u32::MAX)
    }

    /// Whether every input's content at `t` is known, so that `t` may be completed.
    pub(crate) fn all_known(&self, t: Tag, granted: Option<Tag>) -> bool {
        self.granted_in_full(t, granted) || self.inputs.iter().all(|i| i.known_at(t))
    }

    /// The outputs found absent at tag `t` once the reactions below level `passed` have run:
    /// those whose sending reaction lies below it and that sent nothing at `t`, with the tag
    /// their absence is for (`t` plus the connection's delay). Each is reported once per tag.
    pub(crate) fn absent(&mut self, t: Tag, passed: u32) -> Vec<(u32, WireTag)> {
        let mut out = Vec::new();
        for o in &mut self.outputs {
            if o.level < passed && o.reported != Some(t) {
                o.reported = Some(t);
                out.push((o.link, o.delay.apply(WireTag::from(t))));
            }
        }
        out
    }
}
