//! [`Ctx`]: what a reaction body sees of the program at its tag.
//!
//! A body reads the ports and actions it declared as triggers or sources, sets the ports it declared
//! as effects, schedules the actions it declared as effects, switches to the modes it declared, asks
//! for the tag and the physical time, and may request a stop. Using anything undeclared does nothing
//! but record a fault: the run then stops with a [`RunError::Undeclared`](crate::RunError) naming the
//! reaction and what it used. That check is what keeps a program deterministic: the scheduler orders
//! reactions by what they declare.
//!
//! Every method takes `&self`, so a value read from an input can be passed straight to `set`. This is
//! sound because a reaction never reads a slot it writes (checked at build), setting never hands out a
//! reference, and the reactions that read what this one writes run only after it completes.

use core::cell::UnsafeCell;
use core::time::Duration;

use crate::cells::{action_as, present_at, slot_as};
use crate::ids::{Action, Element, ModeId, Multiport, Port, Presence, ReadRef, Readable};
use crate::program::{Clock, Fault, Item, Program, ReactionCell, Scratch, TagInfo};
use crate::time::{nanos, Tag};

/// How a reaction enters a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    /// Restart the mode: its timers restart, pending actions are dropped, reset hooks run, contained
    /// modal reactors return to their initial modes, and its reset reactions trigger.
    Reset,
    /// Resume the mode where it was left: timers and actions continue with their remaining delays.
    History,
}

/// The reaction's view of the program at its tag (see the module docs).
pub struct Ctx<'a> {
    prog: &'a Program,
    cell: &'a ReactionCell,
    r: u32,
    info: &'a TagInfo,
    clock: &'a dyn Clock,
}

impl<'a> Ctx<'a> {
    #[inline]
    pub(crate) fn new(
        prog: &'a Program,
        cell: &'a ReactionCell,
        r: u32,
        info: &'a TagInfo,
        clock: &'a dyn Clock,
    ) -> Ctx<'a> {
        Ctx {
            prog,
            cell,
            r,
            info,
            clock,
        }
    }

    #[inline]
    fn scratch(&self) -> &UnsafeCell<Scratch> {
        &self.cell.scratch
    }

    #[cold]
    fn fault(&self, fault: Fault) {
        // SAFETY: the scratch belongs to this running reaction; no reference to it escapes a method.
        let s = unsafe { &mut *self.scratch().get() };
        if s.fault.is_none() {
            s.fault = Some(fault);
            s.rare = true;
        }
    }

    fn info(&self) -> &crate::graph::ReactionInfo {
        &self.prog.graph.reactions[self.r as usize]
    }

    #[inline]
    fn mine(&self, prog: u32) -> bool {
        if prog == self.prog.id {
            true
        } else {
            self.fault(Fault::Foreign);
            false
        }
    }

    /// The current tag.
    pub fn tag(&self) -> Tag {
        self.info.tag
    }

    /// Logical time since the start tag.
    pub fn time(&self) -> Duration {
        self.info.tag.time()
    }

    /// The current microstep.
    pub fn microstep(&self) -> u32 {
        self.info.tag.microstep()
    }

    /// Physical time since the start (the platform clock).
    pub fn physical_time(&self) -> Duration {
        Duration::from_nanos(self.clock.now().saturating_sub(self.info.start))
    }

    /// The platform clock now (nanoseconds from its own origin), for stamping physical sends.
    pub fn physical_now(&self) -> u64 {
        self.clock.now()
    }

    /// How far physical time is ahead of the current tag's logical time (zero if behind).
    pub fn lag(&self) -> Duration {
        Duration::from_nanos(self.lag_nanos())
    }

    pub(crate) fn lag_nanos(&self) -> u64 {
        let logical = self.info.start.saturating_add(self.info.tag.nanos());
        self.clock.now().saturating_sub(logical)
    }

    /// The running reaction's index (declaration order in the program).
    pub fn reaction_index(&self) -> usize {
        self.r as usize
    }

    /// The running reaction's level in the reaction graph.
    pub fn level(&self) -> u32 {
        self.info().level
    }

    /// The running reaction's full name.
    pub fn reaction_name(&self) -> &str {
        &self.info().name
    }

    /// The full name of the running reaction's reactor.
    pub fn reactor_name(&self) -> &str {
        &self.prog.graph.reactors[self.info().reactor as usize].name
    }

    /// Whether the reaction declared port `p` as a trigger or source: one bit test, or the
    /// declarations one by one for reactions without a bit.
    #[inline]
    fn may_read(&self, p: u32) -> bool {
        let acc = &self.prog.ports[p as usize];
        (acc.reader == self.cell.reactor && acc.read_mask & self.cell.bit != 0)
            || self
                .info()
                .reads
                .iter()
                .any(|&(s, l)| p.wrapping_sub(s) < l)
    }

    /// Whether the reaction declared port `p` as an effect (as `may_read`).
    #[inline]
    fn may_write(&self, p: u32) -> bool {
        let acc = &self.prog.ports[p as usize];
        (acc.writer == self.cell.reactor && acc.write_mask & self.cell.bit != 0)
            || self
                .info()
                .writes
                .iter()
                .any(|&(s, l)| p.wrapping_sub(s) < l)
    }

    /// The value of a port or action the reaction declared as a trigger or source, if present at
    /// this tag.
    pub fn get<T: Send + 'static>(&self, what: impl Readable<T>) -> Option<&T> {
        let (prog, r) = what.readable();
        if !self.mine(prog) {
            return None;
        }
        match r {
            ReadRef::Port(p) => self.get_port(p),
            ReadRef::Action(a) => self.get_action(a),
        }
    }

    #[inline]
    fn get_port<T: 'static>(&self, p: u32) -> Option<&T> {
        if !self.may_read(p) {
            self.fault(Fault::Undeclared("read", Item::Port(p)));
            return None;
        }
        // SAFETY: the handle's type parameter is the port's declared type (handles are made only by
        // the builder, and connections join ports of one type), so the slot is a `SlotCell<T>`,
        // owned by the program; the writers of this slot completed before this reader started and
        // none runs now.
        unsafe {
            let slot = slot_as::<T>(self.prog.ports[p as usize].cell);
            if *slot.seq.get() == self.info.seq {
                (*slot.value.get()).as_ref()
            } else {
                None
            }
        }
    }

    #[inline]
    fn get_action<T: Send + 'static>(&self, a: u32) -> Option<&T> {
        let acc = &self.prog.action_rt[a as usize];
        let declared = (acc.owner == self.cell.reactor && acc.read_mask & self.cell.bit != 0)
            || self.info().read_actions.contains(&a);
        if !declared {
            self.fault(Fault::Undeclared("read", Item::Action(a)));
            return None;
        }
        // SAFETY: the handle's type is the action's declared type; the current value changes only
        // between tags.
        unsafe { action_as::<T>(acc.cell).current(self.info.seq) }
    }

    /// Whether a trigger or source is present at this tag: a port (or, for the reaction's own
    /// outputs, whether an earlier reaction of this reactor set it), an action, a timer, startup,
    /// shutdown or reset.
    pub fn is_present(&self, what: impl Presence) -> bool {
        let (prog, el) = what.element();
        if prog.is_some_and(|p| !self.mine(p)) {
            return false;
        }
        match el {
            Element::Ports { start: p, .. } => {
                if !self.may_read(p) && !self.may_write(p) {
                    self.fault(Fault::Undeclared("test", Item::Port(p)));
                    return false;
                }
                // SAFETY: the cell is the port's slot, owned by the program; no writer of it runs
                // now (earlier writers of this reactor completed; others precede this reader).
                unsafe { present_at(self.prog.ports[p as usize].cell, self.info.seq) }
            }
            Element::Action(a) => {
                let acc = &self.prog.action_rt[a as usize];
                let declared = (acc.owner == self.cell.reactor
                    && (acc.read_mask | acc.schedule_mask) & self.cell.bit != 0)
                    || self.info().read_actions.contains(&a)
                    || self.info().scheduled_actions.contains(&a);
                if !declared {
                    self.fault(Fault::Undeclared("test", Item::Action(a)));
                    return false;
                }
                // SAFETY: the cell is the action's, owned by the program; its current value changes
                // only between tags.
                unsafe { present_at(acc.cell, self.info.seq) }
            }
            Element::Timer(t) => {
                if !self.info().timers.contains(&t) {
                    self.fault(Fault::Undeclared("test", Item::Timer(t)));
                    return false;
                }
                // SAFETY: written between tags only.
                unsafe { *self.prog.timer_present[t as usize].get() == self.info.seq }
            }
            Element::Startup => self.info.startup,
            Element::Shutdown => self.info.shutdown,
            Element::Reset => self.info.reset,
            Element::Mode(_) => false,
        }
    }

    /// Sets a port the reaction declared as an effect; setting it again at the same tag replaces
    /// the value.
    #[inline]
    pub fn set<T: 'static>(&self, port: impl Port<T>, value: T) {
        let (prog, p) = port.port();
        if !self.mine(prog) {
            return;
        }
        if !self.may_write(p) {
            self.fault(Fault::Undeclared("set", Item::Port(p)));
            return;
        }
        // SAFETY: as in `get` for the type (written ports head their chains, checked at build, so
        // the cell is this port's own slot); this reaction is the only writer running, and no
        // reader of the slot runs until it completes. The previous value is dropped in place; no
        // reference to it is alive (`get` never reads a written slot).
        let first = unsafe {
            let slot = slot_as::<T>(self.prog.ports[p as usize].cell);
            *slot.value.get() = Some(value);
            let seq = &mut *slot.seq.get();
            let first = *seq != self.info.seq;
            *seq = self.info.seq;
            first
        };
        if first {
            // SAFETY: see `fault`.
            unsafe { (*self.scratch().get()).set_slots.push(p) };
        }
    }

    /// Schedules an action the reaction declared as an effect, `delay` after the action's minimum
    /// delay (logical actions: relative to the current tag; physical: to the physical clock). With a
    /// total delay of zero the event comes one microstep later.
    #[inline]
    pub fn schedule<T: Send + 'static>(&self, action: impl Action<T>, value: T, delay: Duration) {
        let (prog, a) = action.action();
        if !self.mine(prog) {
            return;
        }
        let acc = &self.prog.action_rt[a as usize];
        let declared = (acc.owner == self.cell.reactor && acc.schedule_mask & self.cell.bit != 0)
            || self.info().scheduled_actions.contains(&a);
        if !declared {
            self.fault(Fault::Undeclared("schedule", Item::Action(a)));
            return;
        }
        let extra = acc.min_delay.saturating_add(nanos(delay));
        let tag = if acc.physical {
            let phys = self
                .clock
                .now()
                .saturating_sub(self.info.start)
                .saturating_add(extra);
            let t = Tag::from_nanos(phys, 0);
            if t > self.info.tag {
                t
            } else {
                self.info.tag.delay_nanos(0)
            }
        } else {
            self.info.tag.delay_nanos(extra)
        };
        // SAFETY: the type matches (as in `get`); only this reactor's reactions schedule its
        // actions and they do not run concurrently.
        let scheduled =
            unsafe { action_as::<T>(acc.cell).schedule(tag, value, acc.min_spacing, acc.policy) };
        if let Some(tag) = scheduled {
            // SAFETY: see `fault`.
            unsafe { (*self.scratch().get()).scheduled.push((a, tag)) };
        }
    }

    /// Requests that the program stop: shutdown reactions run one microstep later, and nothing
    /// runs after that tag. Requesting again changes nothing.
    pub fn request_stop(&self) {
        // SAFETY: see `fault`.
        unsafe {
            let s = &mut *self.scratch().get();
            s.stop = true;
            s.rare = true;
        }
    }

    /// Switches the reactor to `mode` (declared as an effect) at the end of this tag; the mode is
    /// active from the next microstep. The last request of a tag wins.
    pub fn set_mode<S>(&self, mode: ModeId<S>, transition: Transition) {
        if !self.mine(mode.prog) {
            return;
        }
        if !self.info().modes.contains(&mode.ix) {
            self.fault(Fault::Undeclared("switch to", Item::Mode(mode.ix)));
            return;
        }
        // SAFETY: see `fault`.
        unsafe {
            let s = &mut *self.scratch().get();
            s.mode = Some((mode.ix, transition));
            s.rare = true;
        }
    }

    fn present_list<T>(
        &self,
        mp: &impl Multiport<T>,
    ) -> Option<(&UnsafeCell<alloc::vec::Vec<u32>>, u32)> {
        let (prog, ix, base, width) = mp.multiport();
        if !self.mine(prog) {
            return None;
        }
        let covered = self
            .info()
            .reads
            .iter()
            .any(|&(s, l)| s <= base && base + width <= s + l);
        if !covered {
            self.fault(Fault::Undeclared("iterate", Item::Multiport(ix)));
            return None;
        }
        Some((&self.prog.mp_present[ix as usize], base))
    }

    /// The channels of a multiport (declared whole as a trigger or source) that are present at this
    /// tag, with their values, in the order they were set: O(present), not O(width). That order
    /// depends on when the writers completed, so on a parallel run it may differ between runs; use
    /// [`Ctx::present_sorted`] where the order matters.
    pub fn present<T: 'static, M: Multiport<T>>(&self, mp: M) -> Present<'_, T> {
        let list = self.present_list(&mp);
        Present {
            prog: self.prog,
            seq: self.info.seq,
            list: list.map(|(cell, _)| cell),
            base: list.map_or(0, |(_, b)| b),
            next: 0,
            _t: core::marker::PhantomData,
        }
    }

    /// As [`Ctx::present`], in ascending channel order (sorts the present channels in place:
    /// O(p log p)). An unsorted iterator still alive over the same multiport sees the new order.
    pub fn present_sorted<T: 'static, M: Multiport<T>>(&self, mp: M) -> Present<'_, T> {
        if let Some((cell, _)) = self.present_list(&mp) {
            // SAFETY: the list is written only at completions of its writers, all done before this
            // reader started; `Present` reads it by index through short-lived borrows on this same
            // thread, so no borrow overlaps this one.
            unsafe { (*cell.get()).sort_unstable() };
        }
        self.present(mp)
    }

    /// How many channels of a multiport are present at this tag.
    pub fn present_count<T: 'static, M: Multiport<T>>(&self, mp: M) -> usize {
        match self.present_list(&mp) {
            // SAFETY: as in `present`.
            Some((cell, _)) => unsafe { (*cell.get()).len() },
            None => 0,
        }
    }
}

/// Iterator over the present channels of a multiport: `(channel, &value)`.
pub struct Present<'a, T> {
    prog: &'a Program,
    seq: u64,
    list: Option<&'a UnsafeCell<alloc::vec::Vec<u32>>>,
    base: u32,
    next: usize,
    _t: core::marker::PhantomData<fn() -> T>,
}

impl<'a, T: 'static> Iterator for Present<'a, T> {
    type Item = (usize, &'a T);

    fn next(&mut self) -> Option<(usize, &'a T)> {
        let cell = self.list?;
        loop {
            // SAFETY: see `Ctx::present_sorted`: a short borrow on the reaction's own thread.
            let c = *unsafe { &*cell.get() }.get(self.next)?;
            self.next += 1;
            let cell = self.prog.ports[(self.base + c) as usize].cell;
            // SAFETY: as in `Ctx::get`: the multiport handle carries the channels' type, and the
            // writers completed before this reader started.
            unsafe {
                let slot = slot_as::<T>(cell);
                if *slot.seq.get() == self.seq {
                    if let Some(v) = (*slot.value.get()).as_ref() {
                        return Some((c as usize, v));
                    }
                }
            }
        }
    }
}
