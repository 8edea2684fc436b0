//! Startup and shutdown reactions inside modes, as LF defines them: a mode's startup reactions
//! run when the mode is first entered (at the start for the initial modes, at the entry
//! microstep for the others, whether the entry resets or resumes it), never again; the shutdown
//! reactions of every mode entered at least once run at the stop tag, active or not, and those of
//! a mode never entered do not run.
//!
//! `Engine::mode_entered` says which modes have been entered. A mode switch that makes a mode
//! active for the first time (the one switched to, or the current mode of a modal reactor inside
//! it) queues a [`Kind::ModeStartup`] event for it at the entry microstep, which triggers the
//! startup reactions whose nearest enclosing mode it is.

use alloc::vec::Vec;

use super::{Engine, Kind, BLOCKED};
use crate::program::Program;

impl Engine {
    /// Marks the modes active at the start as entered and lists each mode's startup reactions
    /// (called once, from `Engine::new`).
    pub(super) fn init_mode_life(&mut self, prog: &Program) {
        let g = &prog.graph;
        if g.modes.is_empty() {
            return;
        }
        self.mode_entered = (0..g.modes.len() as u32)
            .map(|m| g.mode_active(m, &self.current_mode))
            .collect();
        let mut startup: Vec<Vec<u32>> = alloc::vec![Vec::new(); g.modes.len()];
        for &r in &g.startup {
            let m = g.reaction_mode[r as usize];
            if m != u32::MAX {
                startup[m as usize].push(r);
            }
        }
        self.mode_startup = startup;
    }

    /// After the mode switches of a tag: queues the startup of every mode active now for the
    /// first time, at the entry microstep.
    #[inline(never)]
    pub(super) fn first_entries(&mut self, prog: &Program) {
        let g = &prog.graph;
        let entry = self.info.tag.delay_nanos(0);
        for m in 0..g.modes.len() {
            if self.mode_entered[m] || !g.mode_active(m as u32, &self.current_mode) {
                continue;
            }
            self.mode_entered[m] = true;
            if !self.mode_startup[m].is_empty() {
                self.push(entry, Kind::ModeStartup, m as u32);
            }
        }
    }

    /// Takes the startup reactions of mode `m`, entered for the first time at this tag (give
    /// them back with `put_mode_startup`).
    pub(super) fn take_mode_startup(&mut self, m: u32) -> Vec<u32> {
        core::mem::take(&mut self.mode_startup[m as usize])
    }

    /// Gives back what `take_mode_startup` took.
    pub(super) fn put_mode_startup(&mut self, m: u32, list: Vec<u32>) {
        self.mode_startup[m as usize] = list;
    }

    /// At the stop tag: lets the shutdown reactions of inactive modes that were entered run.
    #[cold]
    #[inline(never)]
    pub(super) fn unblock_visited_shutdown(&mut self, prog: &Program) {
        let g = &prog.graph;
        for &r in &g.shutdown {
            let m = g.reaction_mode[r as usize];
            if m != u32::MAX
                && self.mode_entered[m as usize]
                && self.triggered[r as usize] == BLOCKED
            {
                self.triggered[r as usize] = 0;
            }
        }
    }
}
