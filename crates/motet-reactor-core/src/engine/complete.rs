//! Completing a reaction: the ports it set trigger their readers, the events it scheduled join
//! the queue, and its rarer requests (a stop, a mode switch, a fault) are noted.
//! [`Engine::run_ready`] is the loop of schedulers that run one reaction at a time: it runs the
//! reactions of a tag in level order and takes in each completion as it comes.

use super::{Engine, Kind};
use crate::error::RunError;
use crate::program::{Fault, Item, Program, ReactionCell, Scratch};
use crate::ready::LevelQueue;

impl Engine {
    /// Takes in what reaction `r` did (after [`Program::execute`]): the ports it set trigger their
    /// readers through `sink`, its scheduled events enter the queue, stop and mode requests are
    /// noted, a fault fails the run.
    #[inline]
    pub fn complete(&mut self, prog: &Program, r: u32, sink: &mut impl FnMut(u32)) {
        self.check_program(prog);
        let cell = &prog.reactions[r as usize];
        self.complete_cell(prog, r, cell, sink);
    }

    /// `complete` with the reaction's cell looked up already.
    #[inline(always)]
    fn complete_cell(
        &mut self,
        prog: &Program,
        r: u32,
        cell: &ReactionCell,
        sink: &mut impl FnMut(u32),
    ) {
        self.metrics.reactions_executed += 1;
        // SAFETY: `r` has finished running; the caller serialises completions.
        let scratch = unsafe { &mut *cell.scratch.get() };
        if scratch.rare {
            self.complete_rare(prog, r, scratch);
        }
        let n = scratch.set_len;
        if n != 0 {
            scratch.set_len = 0;
            self.metrics.ports_set += u64::from(n);
            debug_assert!(n as usize <= scratch.set_slots.len());
            // SAFETY: `set_len` never exceeds the buffer's length (see `Scratch::set_slots`).
            let set = unsafe { scratch.set_slots.get_unchecked(..n as usize) };
            // The first port apart from the others: most reactions set one, and then the loop's
            // cursor and end need not live across the triggering.
            self.port_set(prog, set[0], sink);
            if n > 1 {
                for &s in &set[1..] {
                    self.port_set(prog, s, sink);
                }
            }
        }
        if scratch.next_microstep_first != u32::MAX {
            let first = core::mem::replace(&mut scratch.next_microstep_first, u32::MAX);
            self.metrics.actions_scheduled += 1 + scratch.next_microstep_rest.len() as u64;
            self.next_microstep
                .take_from(first, &mut scratch.next_microstep_rest);
        }
    }

    /// A port a completed reaction set: its readers are triggered through `sink`, and where it
    /// needs them, its value is dropped at the end of the tag and its multiports take the channel.
    #[inline(always)]
    fn port_set(&mut self, prog: &Program, s: u32, sink: &mut impl FnMut(u32)) {
        debug_assert!((s as usize) < prog.ports.len());
        // SAFETY: `Ctx::set` records only ports it found in the table of the program its
        // reaction belongs to, and the completed reaction is one of `prog` (the caller's
        // `check_program`).
        let port = unsafe { prog.ports.get_unchecked(s as usize) };
        if !port.plain {
            if !port.drops & (port.observers.1 == 1) {
                self.observe_one(prog, port.observers.0);
            } else {
                self.slot_extras(prog, s, port.drops, port.observers);
            }
        }
        self.trigger_list(prog, port.sole, port.triggers, sink);
    }

    /// The events a reaction scheduled for later than the next microstep, into the event queue.
    fn complete_scheduled(&mut self, scratch: &mut Scratch) {
        self.metrics.actions_scheduled += scratch.scheduled.len() as u64;
        for &(a, tag) in &scratch.scheduled {
            self.push(tag, Kind::Action, a);
        }
        scratch.scheduled.clear();
    }

    /// The rarer parts of a completion: events later than the next microstep, a fault, a stop
    /// request, a mode switch.
    #[inline(never)]
    fn complete_rare(&mut self, prog: &Program, r: u32, scratch: &mut Scratch) {
        scratch.rare = false;
        if !scratch.scheduled.is_empty() {
            self.complete_scheduled(scratch);
        }
        if let Some(fault) = scratch.fault.take() {
            let reaction = prog.graph.reactions[r as usize].name.clone();
            self.fail(fault_error(prog, reaction, fault));
        }
        if core::mem::take(&mut scratch.stop) {
            self.request_stop();
            self.extras = true;
        }
        if let Some((m, t)) = scratch.mode.take() {
            self.mode_requests.push((r, m, t));
            self.extras = true;
        }
        if !scratch.watchdogs.is_empty() {
            self.apply_watchdogs(prog, scratch);
        }
        if !scratch.mutations.is_empty() {
            self.take_mutations(r, &mut scratch.mutations);
        }
    }

    /// The common case of `slot_extras`, inline: a slot that needs no dropping and is observed by
    /// one multiport channel (a bank's output gathered into a multiport), whose present-channel
    /// list takes the channel. Saves the call and the loop on every set of such a slot.
    #[inline(always)]
    fn observe_one(&mut self, prog: &Program, at: u32) {
        let (mp, c) = prog.observer_list[at as usize];
        // SAFETY: the list's readers run only after every writer completed; completions are
        // serialised.
        let list = unsafe { &mut *prog.mp_present[mp as usize].get() };
        if list.is_empty() {
            self.dirty_multiports.push(mp);
            self.extras = true;
        }
        list.push(c);
    }

    /// What a set slot needs beyond triggering: dropping its value at the end of the tag, and
    /// the present-channel lists of the multiports that observe it.
    #[inline(never)]
    fn slot_extras(&mut self, prog: &Program, s: u32, drops: bool, observers: (u32, u32)) {
        self.extras = true;
        if drops {
            self.set_slots.push(s);
        }
        let (start, len) = observers;
        for &(mp, c) in &prog.observer_list[start as usize..(start + len) as usize] {
            // SAFETY: the list's readers run only after every writer completed; completions are
            // serialised.
            let list = unsafe { &mut *prog.mp_present[mp as usize].get() };
            if list.is_empty() {
                self.dirty_multiports.push(mp);
            }
            list.push(c);
        }
    }

    /// Runs the reactions queued in `ready` (and those they trigger) to the end of the tag, one at a
    /// time in level order: `exec(r)` runs reaction `r` (with [`Program::execute`], plus whatever
    /// the caller wraps around it), then its completion is taken in. For schedulers that run one
    /// reaction at a time.
    #[inline]
    pub fn run_ready(&mut self, prog: &Program, ready: &mut LevelQueue, exec: impl FnMut(u32)) {
        self.run_ready_from(prog, ready, u32::MAX, exec);
    }

    /// [`Engine::run_ready`], starting with reaction `hand` when it is not `u32::MAX`: the lone
    /// reaction that entering the tag handed back through [`LevelQueue::offer`], which runs
    /// without a trip through the queue's memory.
    ///
    /// [`LevelQueue::offer`]: crate::LevelQueue::offer
    #[inline]
    pub fn run_ready_from(
        &mut self,
        prog: &Program,
        ready: &mut LevelQueue,
        hand: u32,
        mut exec: impl FnMut(u32),
    ) {
        self.check_program(prog);
        // The reaction to run and its cell, looked up before the body runs and kept: the
        // completion needs no second look-up. A reaction from the caller or the queue is checked
        // against the table; one a completion here triggered comes from the program's trigger
        // lists, and is not.
        let mut r = hand;
        if r == u32::MAX {
            match ready.pop() {
                Some(p) => r = p,
                None => return,
            }
        }
        let mut cell = &prog.reactions[r as usize];
        loop {
            exec(r);
            // The one reaction this completion triggers while nothing else is queued (a chain:
            // the message-passing programs) stays in a local, most likely a register, and runs
            // next without a trip through the queue's memory.
            let mut hand = u32::MAX;
            self.complete_cell(prog, r, cell, &mut |s| ready.offer(prog, s, &mut hand));
            if hand != u32::MAX {
                r = hand;
                debug_assert!((r as usize) < prog.reactions.len());
                // SAFETY: `hand` is a reaction of `prog`'s trigger lists (the completion's
                // `trigger`), one cell each in `reactions`; `prog` is this engine's program.
                cell = unsafe { prog.reactions.get_unchecked(r as usize) };
            } else {
                match ready.pop() {
                    Some(p) => {
                        r = p;
                        cell = &prog.reactions[r as usize];
                    }
                    None => return,
                }
            }
        }
    }
}

/// The error a reaction's fault fails the run with.
#[cold]
#[inline(never)]
pub(crate) fn fault_error(
    prog: &Program,
    reaction: alloc::string::String,
    fault: Fault,
) -> RunError {
    let g = &prog.graph;
    match fault {
        Fault::Foreign => RunError::ForeignHandle { reaction },
        Fault::Mutation => RunError::Undeclared {
            reaction,
            access: alloc::string::String::from("request a mutation (declare `mutates`)"),
        },
        Fault::Undeclared(how, item) => {
            let name = match item {
                Item::Port(p) => g.ports[p as usize].name.clone(),
                Item::Action(a) => g.actions[a as usize].name.clone(),
                Item::Mode(m) => g.modes[m as usize].name.clone(),
                Item::Multiport(m) => g.multiports[m as usize].name.clone(),
                Item::Timer(t) => g.timers[t as usize].name.clone(),
            };
            // Put together without `format!`, whose machinery a small target would otherwise
            // link for this message alone.
            let mut access = alloc::string::String::with_capacity(how.len() + 1 + name.len());
            access.push_str(how);
            access.push(' ');
            access.push_str(&name);
            RunError::Undeclared { reaction, access }
        }
    }
}
