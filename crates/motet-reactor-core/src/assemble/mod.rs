//! Turning a [`ProgramBuilder`] into a checked [`Program`]: resolve connection chains to value slots,
//! validate what each reaction declares, derive the reaction graph (port dependencies plus the
//! declaration order within each reactor), reject causality cycles naming the reactions on them,
//! compute levels, and index what each event triggers.
//!
//! Each phase has a file of its own:
//! - `access`: what each reaction declares, checked and resolved to indices;
//! - `order`: connection chains to slots, the writers' checks, the reaction graph's edges and
//!   levels;
//! - `graph`: the program's description (reactors, ports, modes, actions, timers, reactions)
//!   with what each event triggers;
//! - `tables`: the run-time tables the schedulers use (value slots, port and action records,
//!   access masks, reaction cells).
//!
//! A mutation's creations (see `mutation`) go through the same checks and tables, from the
//! helpers this module shares with it.

mod access;
mod graph;
mod order;
mod tables;

use alloc::vec::Vec;

use crate::builder::ProgramBuilder;
use crate::error::BuildError;
use crate::program::Program;

pub(crate) use access::Access;
pub(crate) use tables::{action_record, claim_masks, reaction_bit, sole, with_deadline, Declared};

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

    /// Assembles the checked program: its graph, then its run-time tables.
    fn assemble(
        self,
        slot_of: Vec<u32>,
        access: Vec<Access>,
        preds: Vec<Vec<u32>>,
        succs: Vec<Vec<u32>>,
        level: Vec<u32>,
    ) -> Program {
        let g = self.graph(&slot_of, &access, &preds, &succs, level);
        self.tables(g, &slot_of, access)
    }
}
