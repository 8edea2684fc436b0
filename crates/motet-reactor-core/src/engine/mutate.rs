//! The engine's side of mutations (see [`crate::mutation`]): requests collected from completed
//! reactions, applied at the tag boundary by [`Engine::apply_mutations`], and the startup events
//! of created reactors.

use alloc::vec::Vec;

use super::{Engine, Kind, BLOCKED};
use crate::error::BuildError;
use crate::mutation::{create, delete, Mutation, Request};
use crate::program::Program;
use crate::time::Tag;

/// Requests not yet applied, and the startup lists of created reactors.
#[derive(Default)]
pub(super) struct Pending {
    /// (reaction, request), in completion order; sorted at the boundary.
    requests: Vec<(u32, Request)>,
    /// Per startup event of created reactors (`Kind::Created`, `ix`): the reactions it triggers.
    created: Vec<Vec<u32>>,
}

impl Engine {
    /// Takes the mutations a completed reaction requested.
    pub(super) fn take_mutations(&mut self, r: u32, list: &mut Vec<Request>) {
        for f in list.drain(..) {
            self.mutation.requests.push((r, f));
        }
        // The next microstep is not entered on the short path: the tag loop goes back to its
        // scheduler, which applies the mutations first (see `Engine::enter_next_microstep`).
        self.stepping = false;
    }

    /// Whether mutations were requested at the tag just finished: the scheduler then calls
    /// [`Engine::apply_mutations`] before it asks for the next tag.
    #[inline]
    pub fn mutation_pending(&self) -> bool {
        !self.mutation.requests.is_empty()
    }

    /// Rejects the mutations requested at the tag just finished, applying none: what the
    /// sequential scheduler does in a core built without the `mutations` feature (a board's
    /// build, where linking the mutation builder would cost every program its code size). Each
    /// request is recorded as rejected ([`Program::mutation_errors`](crate::Program::mutation_errors))
    /// and the run goes on.
    pub fn reject_mutations(&mut self, prog: &mut Program) {
        self.check_program(prog);
        let requests = core::mem::take(&mut self.mutation.requests);
        self.stepping = self.fast && !self.done;
        self.reject_all(
            prog,
            requests,
            "this build of the reactor core applies no mutations (feature `mutations` is off)",
        );
    }

    /// Records every request in `requests` as rejected for `reason`.
    fn reject_all(
        &mut self,
        prog: &mut Program,
        requests: Vec<(u32, Request)>,
        reason: &'static str,
    ) {
        self.metrics.mutations_rejected += requests.len() as u64;
        for (r, _) in requests {
            prog.dynamic.errors.push(BuildError::Mutation {
                element: prog.graph.reactions[r as usize].name.clone(),
                reason,
            });
        }
    }

    /// The startup event of created reactors: triggers their startup reactions.
    pub(super) fn fire_created(&mut self, ix: u32, sink: &mut impl FnMut(u32)) {
        let list = core::mem::take(&mut self.mutation.created[ix as usize]);
        for &r in &list {
            self.trigger(r, sink);
        }
        if self.mutation.created.iter().all(Vec::is_empty) {
            self.mutation.created.clear();
        }
    }

    /// Applies the mutations requested at the tag just finished (see [`crate::mutation`]), between
    /// that tag and the next: in the order of their reactions' indices, each request's deletions
    /// and then its creations. A rejected request is recorded
    /// ([`Program::mutation_errors`](crate::Program::mutation_errors)) and the run goes on. Returns
    /// whether the program changed; then a scheduler fits its ready queue to the new levels
    /// ([`LevelQueue::fit`](crate::LevelQueue::fit)).
    pub fn apply_mutations(&mut self, prog: &mut Program) -> bool {
        self.check_program(prog);
        let mut requests = core::mem::take(&mut self.mutation.requests);
        self.stepping = self.fast && !self.done;
        if requests.is_empty() {
            return false;
        }
        // Stable: one reaction's requests keep their order.
        requests.sort_by_key(|&(r, _)| r);
        if self.info.shutdown || self.done {
            self.reject_all(prog, requests, "requested at the last tag: not applied");
            return false;
        }
        prog.dynamic.ensure(&prog.graph);
        let start = self.info.tag.delay_nanos(0);
        let mut changed = false;
        for (r, f) in requests {
            let requester = prog.graph.reactions[r as usize].reactor;
            let mut m = Mutation::new(prog, requester);
            f(&mut m);
            let mut parts = m.into_parts();
            if let Some(e) = parts.errors.first() {
                self.reject(prog, e.clone());
                continue;
            }
            match delete(prog, &parts) {
                Ok(d) => {
                    changed |= !d.reactions.is_empty() || d.visible > 0;
                    self.forget(&d);
                }
                Err(e) => {
                    self.reject(prog, e);
                    continue;
                }
            }
            match create(prog, &mut parts) {
                Ok(None) => {}
                Ok(Some(c)) => {
                    changed = true;
                    self.adopt(prog, c, start);
                }
                Err(e) => self.reject(prog, e),
            }
        }
        if changed && prog.deadline_order().is_some() {
            // The inferred deadlines cover the reactions and edges the program has now.
            prog.set_deadline_order(true);
        }
        changed
    }

    fn reject(&mut self, prog: &mut Program, e: BuildError) {
        self.metrics.mutations_rejected += 1;
        prog.dynamic.errors.push(e);
    }

    /// The engine's records of deleted reactors: their reactions blocked, their events dropped.
    fn forget(&mut self, d: &crate::mutation::Deleted) {
        for &r in &d.reactions {
            self.triggered[r as usize] = BLOCKED;
        }
        self.metrics.reactors_deleted += d.visible;
        if d.actions.is_empty() && d.timers.is_empty() {
            return;
        }
        let before = self.queue.len();
        let (actions, timers) = (&d.actions, &d.timers);
        self.queue.retain(|ev| match ev.0.kind {
            Kind::Action => !actions.contains(&ev.0.ix),
            Kind::Timer => !timers.contains(&ev.0.ix),
            _ => true,
        });
        self.metrics.events_dropped += (before - self.queue.len()) as u64;
    }

    /// The engine's records of created reactors: their reactions, actions, timers and startup.
    fn adopt(&mut self, prog: &Program, c: crate::mutation::Created, start: Tag) {
        let g = &prog.graph;
        self.triggered.resize(g.reactions.len(), 0);
        self.last_physical.resize(g.actions.len(), Tag::ZERO);
        self.current_mode.resize(g.reactors.len(), u32::MAX);
        self.metrics.reactors_created += c.visible;
        for (t, offset) in c.timers {
            let tag = if offset == 0 {
                start
            } else {
                Tag::from_nanos(start.nanos().saturating_add(offset), 0)
            };
            self.push(tag, Kind::Timer, t);
        }
        if !c.startup.is_empty() {
            let ix = self.mutation.created.len() as u32;
            self.mutation.created.push(c.startup);
            self.push(start, Kind::Created, ix);
        }
        let _ = c.reactions;
    }
}
