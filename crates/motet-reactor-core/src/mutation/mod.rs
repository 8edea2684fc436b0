//! Mutations: a running program creates reactors, connects them to its ports, and deletes the
//! reactors it created, at tag boundaries.
//!
//! A reaction declared with [`mutates`](crate::ReactionBuilder::mutates) calls
//! [`Ctx::mutate`](crate::Ctx::mutate) with a closure. The closure does not run then: it runs at
//! the *boundary* after the current tag, when the tag's last reaction has completed and before
//! the next tag is entered, with a [`Mutation`]. Through it the closure declares reactors with
//! the usual builder methods (a `Mutation` dereferences to a [`ProgramBuilder`] whose handles
//! name elements of the running program), connects them with [`Mutation::connect`] (to each
//! other, or to ports of the program), deletes reactors with [`Mutation::delete`], and reads or
//! changes reactor state with [`Mutation::state_mut`] (to keep the handles it made).
//!
//! # Semantics
//!
//! - **Order.** The requests of one tag are applied in the order of their reactions' indices, and
//!   those of one reaction in the order it made them: the same order whatever runs the program.
//!   Each request's deletions are applied first, then its creations.
//! - **Where created reactors live.** A reactor declared with `reactor` (or `bank`) sits beside
//!   the reactor that requested it, in the same container; `child` of a created reactor nests
//!   inside it. Created reactors cannot have modes, and the requester's container cannot lie in a
//!   mode.
//! - **Connections.** Created ports connect to each other with any connection the builder offers;
//!   a created port connects to a port of the program with a plain connection, by LF's rules
//!   (an output to a sibling's input, and so on), both lists of one width. A port of the program
//!   that takes a created source must have had none (no connection, no writing reaction).
//! - **Startup.** A created reactor's startup reactions run at the tag that follows the boundary,
//!   one microstep after the requesting tag (the next tag's first microstep, as the first tag of a
//!   reactor's life; at the program's start that is (0, 0), here it is the microstep the reactor is
//!   first part of the program). Its timers count their offsets from that tag.
//! - **Deletion.** A reaction deletes only reactors its own reactor created (with everything they
//!   contain). A deleted reactor's reactions never run again, and its shutdown reactions do not
//!   run: deletion takes effect at the boundary, as an actor's exit after its last message (a
//!   reactor that must report sends its report before it is deleted). Its connections go with it:
//!   a port it fed has no source again. The pending events of its actions and timers are dropped
//!   and counted ([`Metrics::events_dropped`](crate::Metrics)).
//! - **Checks.** A creation is checked as a program is built (declarations, sources, types by the
//!   compiler) and for causality cycles through the new edges; a connection of two lists of
//!   different widths is an error here, not a warning. A rejected request changes nothing of its
//!   own (its deletions, applied before, stay applied); the program continues without it, the
//!   error is kept in [`Program::mutation_errors`], and
//!   [`Metrics::mutations_rejected`](crate::Metrics) counts it. Requests made at the program's
//!   last tag are not applied (counted as rejected).
//! - **Cost.** The reaction graph's levels are updated from the created reactions forward: only
//!   reactions reachable from them are visited (the whole program is not assembled again), and
//!   none when every new edge into a reaction of the program already goes from a lower level to
//!   a higher one (the created reactions are then levelled alone; no level of the program changes).
//!   Deleted reactors leave their indices unused: handles stay valid, and their tables' entries
//!   stay, empty, until the program is dropped.
//!
//! Programs with mutating reactions run on one thread (see motet-reactor's `Runner`), which keeps
//! every schedule's event log the same.

mod create;
mod delete;
mod index;

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;
use core::ops::{Deref, DerefMut};

use crate::builder::{Bases, ProgramBuilder};
use crate::error::BuildError;
use crate::graph::PortKind;
use crate::ids::ReactorId;
use crate::ports::Ports;
use crate::program::Program;

pub(crate) use create::{create, Created};
pub(crate) use delete::{delete, Deleted};
pub(crate) use index::Dynamic;

/// A requested mutation: run at the next tag boundary (see [`Ctx::mutate`](crate::Ctx::mutate)).
pub(crate) type Request = Box<dyn FnOnce(&mut Mutation<'_>) + Send>;

/// What a mutation's closure declares (see the module docs). Dereferences to a
/// [`ProgramBuilder`] for declaring reactors, ports, actions, timers and reactions.
pub struct Mutation<'a> {
    b: ProgramBuilder,
    prog: &'a mut Program,
    requester: u32,
    external: Vec<(u32, u32)>,
    deletes: Vec<u32>,
    errors: Vec<BuildError>,
}

/// A mutation's declarations, taken out of the [`Mutation`] to be applied.
pub(crate) struct Parts {
    pub(crate) b: ProgramBuilder,
    pub(crate) requester: u32,
    pub(crate) external: Vec<(u32, u32)>,
    pub(crate) deletes: Vec<u32>,
    pub(crate) errors: Vec<BuildError>,
}

impl Deref for Mutation<'_> {
    type Target = ProgramBuilder;
    fn deref(&self) -> &ProgramBuilder {
        &self.b
    }
}

impl DerefMut for Mutation<'_> {
    fn deref_mut(&mut self) -> &mut ProgramBuilder {
        &mut self.b
    }
}

impl<'a> Mutation<'a> {
    /// A mutation of `prog` requested by a reaction of reactor `requester`.
    pub(crate) fn new(prog: &'a mut Program, requester: u32) -> Mutation<'a> {
        let g = &prog.graph;
        let base = Bases {
            reactors: g.reactors.len() as u32,
            ports: g.ports.len() as u32,
            multiports: g.multiports.len() as u32,
            actions: g.actions.len() as u32,
            timers: g.timers.len() as u32,
            modes: g.modes.len() as u32,
            reactions: g.reactions.len() as u32,
        };
        Mutation {
            b: ProgramBuilder::extending(prog.id, prog.inbox.clone(), base),
            prog,
            requester,
            external: Vec::new(),
            deletes: Vec::new(),
            errors: Vec::new(),
        }
    }

    pub(crate) fn into_parts(self) -> Parts {
        Parts {
            b: self.b,
            requester: self.requester,
            external: self.external,
            deletes: self.deletes,
            errors: self.errors,
        }
    }

    /// Connects `from` to `to` channel by channel, with a plain connection. Lists of created
    /// ports connect as [`ProgramBuilder::connect`] does; a list with ports of the running
    /// program connects them to created ports, by LF's connection rules, and both lists must
    /// have one width (else the mutation is rejected with [`BuildError::WidthMismatch`]).
    pub fn connect<T: Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        let (from, to) = (from.into(), to.into());
        let base = self.b.base.ports;
        if from.ixs.iter().chain(&to.ixs).all(|&p| p >= base) {
            self.b.connect(from, to);
            return;
        }
        for p in [from.prog, to.prog].into_iter().flatten() {
            if p != self.prog.id {
                self.errors
                    .push(BuildError::ForeignHandle("connected port".into()));
                return;
            }
        }
        if from.ixs.len() != to.ixs.len() {
            let name = |ixs: &[u32]| {
                ixs.first()
                    .map_or_else(|| "(empty)".into(), |&p| self.port_name(p))
            };
            let connection = format!("{} -> {}", name(&from.ixs), name(&to.ixs));
            self.errors.push(BuildError::WidthMismatch {
                connection,
                from: from.ixs.len(),
                to: to.ixs.len(),
            });
            return;
        }
        self.external
            .extend(from.ixs.iter().copied().zip(to.ixs.iter().copied()));
    }

    /// Deletes `reactor`, which the requesting reaction's reactor created, with everything it
    /// contains (see the module docs).
    pub fn delete<S>(&mut self, reactor: ReactorId<S>) {
        if reactor.prog != self.prog.id {
            self.errors
                .push(BuildError::ForeignHandle("deleted reactor".into()));
            return;
        }
        self.deletes.push(reactor.ix);
    }

    /// The state of `reactor`, a reactor of the running program (not one this mutation
    /// declares): how the closure hands the handles it made to the reactor that will use them.
    /// `None` for a reactor of another program, one this mutation declares, or a deleted one.
    pub fn state_mut<S: 'static>(&mut self, reactor: ReactorId<S>) -> Option<&mut S> {
        let ix = reactor.ix as usize;
        if reactor.prog != self.prog.id
            || ix >= self.prog.states.len()
            || self.prog.dynamic.is_dead(reactor.ix)
        {
            return None;
        }
        // SAFETY: the handle's type is the state's type (made by the builder with this state);
        // between tags no reaction runs, and the returned borrow holds `self`, which holds the
        // program exclusively.
        Some(unsafe { &mut *self.prog.states[ix].ptr().cast::<S>() })
    }

    /// The full name of port `p`, created here or in the running program.
    fn port_name(&self, p: u32) -> alloc::string::String {
        match self.b.ports.get(self.b.local_port(p)) {
            Some(port) => port.name.clone(),
            None => self
                .prog
                .graph
                .ports
                .get(p as usize)
                .map_or_else(|| format!("#{p}"), |port| port.name.clone()),
        }
    }
}

/// Owner and kind of port `p`, created by `b` or one of `prog`'s, with the owner's container.
pub(crate) fn port_facts(
    prog: &Program,
    b: &ProgramBuilder,
    p: u32,
) -> (u32, PortKind, Option<u32>) {
    let g = &prog.graph;
    match b.ports.get(b.local_port(p)) {
        Some(port) => {
            let parent = b
                .local_reactor(port.owner)
                .and_then(|l| b.reactors[l].parent);
            (port.owner, port.kind, parent)
        }
        None => {
            let port = &g.ports[p as usize];
            let parent = g.reactors[port.owner as usize].parent;
            (port.owner, port.kind, parent)
        }
    }
}

/// The full name of port `p`, created by `b` or one of `prog`'s (for an error).
pub(crate) fn port_label(prog: &Program, b: &ProgramBuilder, p: u32) -> alloc::string::String {
    match b.ports.get(b.local_port(p)) {
        Some(port) => port.name.clone(),
        None => prog.graph.ports[p as usize].name.clone(),
    }
}

impl Program {
    /// The errors of the mutations rejected so far, in the order they were rejected (see the
    /// [`mutation`](crate::mutation) module).
    pub fn mutation_errors(&self) -> &[BuildError] {
        &self.dynamic.errors
    }
}
