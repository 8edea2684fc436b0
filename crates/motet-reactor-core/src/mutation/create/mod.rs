//! Applying a mutation's creations: check the declared reactors and their connections, find the
//! new edges of the reaction graph and update the levels of the reactions they reach (rejecting a
//! causality cycle), then append the new elements to the program's tables and update the entries
//! of the ports and reactions the new connections touch. Nothing is changed before every check
//! has passed.
//!
//! The work is split by phase, each phase in a file of its own:
//! - `check`: what a creation cannot hold, placement and names, connections with the program;
//! - `plan`: slots, writers and the new edges of the reaction graph;
//! - `levels`: the level update and the causality check;
//! - `apply`: the commit to the reaction graph;
//! - `tables`: the commit to the run-time tables.

mod apply;
mod check;
mod levels;
mod plan;
mod tables;

use alloc::vec::Vec;

use super::Parts;
use crate::assemble::Access;
use crate::error::BuildError;
use crate::program::Program;

pub(crate) use tables::refresh_slot;

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

/// Applies the creations of `m` to `prog` (see the module docs): `Ok(None)` when it creates
/// nothing.
pub(crate) fn create(prog: &mut Program, m: &mut Parts) -> Result<Option<Created>, BuildError> {
    if !check::check_request(prog, m)? {
        return Ok(None);
    }
    let check::External {
        rehead,
        connections,
    } = check::connect_external(prog, m)?;
    let b = &m.b;
    // The reactions' declarations, checked as a build checks them.
    let access: Vec<Access> = b
        .reactions
        .iter()
        .map(|r| b.access_of(r))
        .collect::<Result<_, _>>()?;
    let slots = plan::slots(prog, b, &rehead)?;
    let new_writers = plan::writers(prog, b, &access, &slots)?;
    let edges = plan::edges(prog, b, &access, &slots, &new_writers);
    let (visit, order) = levels::levels(&prog.graph, b, &edges)?;
    // Every check passed: commit.
    let committed = apply::commit_graph(
        prog,
        m,
        apply::Plan {
            rehead,
            connections,
            access,
            slots,
            new_writers,
            edges,
            visit,
            order,
        },
    );
    Ok(Some(tables::commit_tables(prog, &mut m.b, committed)))
}
