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
use crate::program::{
    ActionRt, Clock, Fault, Item, PortRt, Program, ReactionCell, Scratch, TagInfo,
};
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
///
/// Four words, built once per reaction executed, by the body's wrapper from the parts the scheduler
/// passes it in registers: the tag info is read through the program and the reaction's index is
/// derived from its cell, both rarely needed.
pub struct Ctx<'a> {
    pub(crate) prog: &'a Program,
    pub(crate) cell: &'a ReactionCell,
    clock: &'a dyn Clock,
}

impl<'a> Ctx<'a> {
    #[inline]
    pub(crate) fn new(prog: &'a Program, cell: &'a ReactionCell, clock: &'a dyn Clock) -> Ctx<'a> {
        Ctx { prog, cell, clock }
    }

    /// What the scheduler wrote about the current tag.
    #[inline(always)]
    fn tag_info(&self) -> &TagInfo {
        // SAFETY: written by the scheduler between tags only, and a `Ctx` lives only while its
        // reaction runs inside a tag (see `Program::execute`).
        unsafe { &*self.prog.info.get() }
    }

    /// The running reaction's index, from the position of its cell in the program's table.
    fn index(&self) -> usize {
        let base = self.prog.reactions.as_ptr() as usize;
        (self.cell as *const ReactionCell as usize - base) / core::mem::size_of::<ReactionCell>()
    }

    #[inline]
    pub(crate) fn scratch(&self) -> &UnsafeCell<Scratch> {
        &self.cell.scratch
    }

    #[cold]
    pub(crate) fn fault(&self, fault: Fault) {
        // SAFETY: the scratch belongs to this running reaction; no reference to it escapes a method.
        let s = unsafe { &mut *self.scratch().get() };
        if s.fault.is_none() {
            s.fault = Some(fault);
            s.rare = true;
        }
    }

    fn info(&self) -> &crate::graph::ReactionInfo {
        &self.prog.graph.reactions[self.index()]
    }

    /// The run-time record of port `p`, named by a handle of this program, without a bounds
    /// check.
    ///
    /// # Safety
    /// `p` comes from a handle whose program id is this program's. (Handles are made only by the
    /// builder of the program whose id they carry, with indices of its declarations; the built
    /// program keeps one record per declared port; ids are never reused, see
    /// `next_program_id`. The handles' types rest on the same guarantee.)
    #[inline(always)]
    unsafe fn port_rt(&self, p: u32) -> &PortRt {
        debug_assert!((p as usize) < self.prog.ports.len());
        // SAFETY: in bounds by the caller's contract.
        unsafe { self.prog.ports.get_unchecked(p as usize) }
    }

    /// The run-time record of action `a`, named by a handle of this program (as `port_rt`).
    ///
    /// # Safety
    /// As for `port_rt`: `a` comes from a handle whose program id is this program's.
    #[inline(always)]
    unsafe fn action_rt(&self, a: u32) -> &ActionRt {
        debug_assert!((a as usize) < self.prog.action_rt.len());
        // SAFETY: in bounds by the caller's contract (one record per declared action).
        unsafe { self.prog.action_rt.get_unchecked(a as usize) }
    }

    #[inline]
    pub(crate) fn mine(&self, prog: u32) -> bool {
        if prog == self.prog.id {
            true
        } else {
            self.fault(Fault::Foreign);
            false
        }
    }

    /// Requests a mutation for the next tag boundary: `f` runs there, after this tag's last
    /// reaction and before the next tag, with a [`Mutation`](crate::Mutation) through which it
    /// creates reactors beside this reaction's reactor, connects them to ports of the program,
    /// and deletes reactors this reactor created (see the `mutation` section of the crate
    /// docs). Requests of one tag are applied in the order of their reactions' indices, then
    /// in the order each reaction made them. The reaction must be declared with
    /// [`mutates`](crate::ReactionBuilder::mutates); otherwise the request is a fault.
    pub fn mutate(&self, f: impl FnOnce(&mut crate::Mutation<'_>) + Send + 'static) {
        if !self.info().mutates {
            self.fault(Fault::Mutation);
            return;
        }
        // SAFETY: the scratch belongs to this running reaction; no reference to it escapes a
        // method.
        let s = unsafe { &mut *self.scratch().get() };
        s.mutations.push(alloc::boxed::Box::new(f));
        s.rare = true;
    }

    /// The current tag.
    pub fn tag(&self) -> Tag {
        self.tag_info().tag
    }

    /// Logical time since the start tag.
    pub fn time(&self) -> Duration {
        self.tag_info().tag.time()
    }

    /// The current microstep.
    pub fn microstep(&self) -> u32 {
        self.tag_info().tag.microstep()
    }

    /// Physical time since the start (the platform clock).
    pub fn physical_time(&self) -> Duration {
        Duration::from_nanos(self.clock.now().saturating_sub(self.tag_info().start))
    }

    /// The platform clock now (nanoseconds from its own origin), for stamping physical sends.
    pub fn physical_now(&self) -> u64 {
        self.clock.now()
    }

    /// How far physical time is ahead of the current tag's logical time (zero if behind).
    pub fn lag(&self) -> Duration {
        Duration::from_nanos(self.lag_nanos())
    }

    /// [`Ctx::lag`] in nanoseconds of the platform clock.
    pub fn lag_nanos(&self) -> u64 {
        let logical = self
            .tag_info()
            .start
            .saturating_add(self.tag_info().tag.nanos());
        self.clock.now().saturating_sub(logical)
    }

    /// The running reaction's index (declaration order in the program).
    pub fn reaction_index(&self) -> usize {
        self.index()
    }

    /// The running reaction's level in the reaction graph.
    pub fn level(&self) -> u32 {
        self.info().level
    }

    /// The running reaction's full name.
    pub fn reaction_name(&self) -> &str {
        &self.info().name
    }

    /// The index of the running reaction's reactor in its bank (LF's `bank_index`), 0 for a
    /// reactor declared outside a bank (see [`ProgramBuilder::bank`](crate::ProgramBuilder::bank)).
    pub fn bank_index(&self) -> usize {
        self.prog.graph.reactors[self.info().reactor as usize].bank_index as usize
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
            || self.declared(p, false)
    }

    /// Whether the reaction declared port `p` as an effect (as `may_read`).
    #[inline]
    fn may_write(&self, p: u32) -> bool {
        let acc = &self.prog.ports[p as usize];
        (acc.writer == self.cell.reactor && acc.write_mask & self.cell.bit != 0)
            || self.declared(p, true)
    }

    /// The slow check: port `p` among the reaction's declared reads (or writes), range by range.
    #[inline(never)]
    fn declared(&self, p: u32, write: bool) -> bool {
        let info = self.info();
        let ranges = if write { &info.writes } else { &info.reads };
        ranges.iter().any(|&(s, l)| p.wrapping_sub(s) < l)
    }

    /// The slow check for actions: `a` among the reaction's declared reads (or schedules).
    #[inline(never)]
    pub(crate) fn declared_action(&self, a: u32, schedule: bool) -> bool {
        let info = self.info();
        if schedule {
            info.scheduled_actions.contains(&a)
        } else {
            info.read_actions.contains(&a)
        }
    }

    /// The value of a port or action the reaction declared as a trigger or source, if present at
    /// this tag.
    #[inline]
    pub fn get<T: Send + 'static>(&self, what: impl Readable<T>) -> Option<&T> {
        match what.readable() {
            (prog, ReadRef::Port(p)) => {
                if prog == self.prog.id {
                    // SAFETY: the handle's program is this one (just checked).
                    let acc = unsafe { self.port_rt(p) };
                    if acc.reader == self.cell.reactor && acc.read_mask & self.cell.bit != 0 {
                        // SAFETY: see `read_port`; `p` was declared by this reaction.
                        return unsafe { self.read_port(acc.cell) };
                    }
                }
                self.get_port_checked(prog, p)
            }
            (prog, ReadRef::Action(a)) => {
                if !self.mine(prog) {
                    return None;
                }
                // SAFETY: the handle's program is this one (just checked).
                unsafe { self.get_action(a) }
            }
        }
    }

    /// `get` of a port without the fast bit test: a foreign handle, a reaction without a bit, or
    /// an undeclared read.
    #[cold]
    #[inline(never)]
    fn get_port_checked<T: 'static>(&self, prog: u32, p: u32) -> Option<&T> {
        if !self.mine(prog) {
            return None;
        }
        if !self.may_read(p) {
            self.fault(Fault::Undeclared("read", Item::Port(p)));
            return None;
        }
        // SAFETY: as in `read_port`.
        unsafe { self.read_port(self.prog.ports[p as usize].cell) }
    }

    /// The value of the slot `cell` at this tag.
    ///
    /// # Safety
    /// `cell` is the slot of a port of this program that the reaction declared as a trigger or
    /// source, of type `T`. (The handle's type parameter is the port's declared type: handles are
    /// made only by the builder, and connections join ports of one type, so the slot is a
    /// `SlotCell<T>` owned by the program; the writers of this slot completed before this reader
    /// started and none runs now.)
    #[inline(always)]
    unsafe fn read_port<T: 'static>(&self, cell: *const ()) -> Option<&T> {
        // SAFETY: forwarded from the caller.
        unsafe {
            let slot = slot_as::<T>(cell);
            if *slot.seq.get() == self.tag_info().seq {
                (*slot.value.get()).as_ref()
            } else {
                None
            }
        }
    }

    /// `get` of action `a`.
    ///
    /// # Safety
    /// `a` comes from a handle whose program id is this program's (see `port_rt`).
    #[inline]
    unsafe fn get_action<T: Send + 'static>(&self, a: u32) -> Option<&T> {
        // SAFETY: forwarded from the caller.
        let acc = unsafe { self.action_rt(a) };
        let declared = (acc.owner == self.cell.reactor && acc.read_mask & self.cell.bit != 0)
            || self.declared_action(a, false);
        if !declared {
            self.fault(Fault::Undeclared("read", Item::Action(a)));
            return None;
        }
        // SAFETY: the handle's type is the action's declared type; the current value changes only
        // between tags.
        unsafe { action_as::<T>(acc.cell).current(self.tag_info().seq) }
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
                unsafe { present_at(self.prog.ports[p as usize].cell, self.tag_info().seq) }
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
                unsafe { present_at(acc.cell, self.tag_info().seq) }
            }
            Element::Timer(t) => {
                if !self.info().timers.contains(&t) {
                    self.fault(Fault::Undeclared("test", Item::Timer(t)));
                    return false;
                }
                // SAFETY: written between tags only.
                unsafe { *self.prog.timer_present[t as usize].get() == self.tag_info().seq }
            }
            Element::Startup => self.tag_info().startup,
            Element::Shutdown => self.tag_info().shutdown,
            Element::Reset => self.tag_info().reset,
            Element::Mode(_) => false,
        }
    }

    /// Sets a port the reaction declared as an effect; setting it again at the same tag replaces
    /// the value.
    #[inline]
    pub fn set<T: 'static>(&self, port: impl Port<T>, value: T) {
        let (prog, p) = port.port();
        if prog == self.prog.id {
            // SAFETY: the handle's program is this one (just checked).
            let acc = unsafe { self.port_rt(p) };
            if acc.writer == self.cell.reactor && acc.write_mask & self.cell.bit != 0 {
                // SAFETY: see `write_port`; `p` was declared by this reaction.
                return unsafe { self.write_port(acc.cell, p, value) };
            }
        }
        self.set_checked(prog, p, value);
    }

    /// `set` without the fast bit test (as `get_port_checked`).
    #[cold]
    #[inline(never)]
    fn set_checked<T: 'static>(&self, prog: u32, p: u32, value: T) {
        if !self.mine(prog) {
            return;
        }
        if !self.may_write(p) {
            self.fault(Fault::Undeclared("set", Item::Port(p)));
            return;
        }
        // SAFETY: as in `write_port`.
        unsafe { self.write_port(self.prog.ports[p as usize].cell, p, value) }
    }

    /// Sets port `p`, whose slot is `cell`, to `value`.
    ///
    /// # Safety
    /// `p` is a port of this program of type `T` that the reaction declared as an effect, and
    /// `cell` its slot. (Written ports head their chains, checked at build, so the cell is the
    /// port's own slot; this reaction is the only writer running, and no reader of the slot runs
    /// until it completes. The previous value is dropped in place; no reference to it is alive,
    /// since `get` never reads a written slot.)
    #[inline(always)]
    unsafe fn write_port<T: 'static>(&self, cell: *const (), p: u32, value: T) {
        // SAFETY: forwarded from the caller; the scratch belongs to this running reaction.
        unsafe {
            let slot = slot_as::<T>(cell);
            *slot.value.get() = Some(value);
            let seq = &mut *slot.seq.get();
            if *seq != self.tag_info().seq {
                *seq = self.tag_info().seq;
                let scratch = &mut *self.scratch().get();
                // In bounds: the buffer holds every declared effect port, each entering at most
                // once per tag (see `Scratch::set_slots`).
                debug_assert!((scratch.set_len as usize) < scratch.set_slots.len());
                *scratch
                    .set_slots
                    .get_unchecked_mut(scratch.set_len as usize) = p;
                scratch.set_len += 1;
            }
        }
    }

    /// Schedules an action the reaction declared as an effect, `delay` after the action's minimum
    /// delay (logical actions: relative to the current tag; physical: to the physical clock). With a
    /// total delay of zero the event comes one microstep later.
    #[inline(always)]
    pub fn schedule<T: Send + 'static>(&self, action: impl Action<T>, value: T, delay: Duration) {
        let (prog, a) = action.action();
        if prog == self.prog.id {
            // SAFETY: the handle's program is this one (just checked).
            let acc = unsafe { self.action_rt(a) };
            if acc.owner == self.cell.reactor && acc.schedule_mask & self.cell.bit != 0 {
                // SAFETY: see `schedule_action`; `a` was declared by this reaction.
                return unsafe { self.schedule_action(acc, a, value, delay) };
            }
        }
        self.schedule_checked(prog, a, value, delay);
    }

    /// `schedule` without the fast bit test (as `get_port_checked`).
    #[cold]
    #[inline(never)]
    fn schedule_checked<T: Send + 'static>(&self, prog: u32, a: u32, value: T, delay: Duration) {
        if !self.mine(prog) {
            return;
        }
        if !self.declared_action(a, true) {
            self.fault(Fault::Undeclared("schedule", Item::Action(a)));
            return;
        }
        // SAFETY: as in `schedule_action`.
        unsafe { self.schedule_action(&self.prog.action_rt[a as usize], a, value, delay) }
    }

    /// Schedules action `a` (its record `acc`).
    ///
    /// # Safety
    /// `a` is an action of this program of type `T` that the reaction declared as an effect. (Only
    /// its reactor's reactions schedule it, and they do not run concurrently.)
    #[inline(always)]
    unsafe fn schedule_action<T: Send + 'static>(
        &self,
        acc: &ActionRt,
        a: u32,
        value: T,
        delay: Duration,
    ) {
        if acc.immediate && delay.is_zero() {
            // The common case (a zero-delay logical action, no spacing): an event of the next
            // microstep, never moved.
            let tag = self.tag_info().tag.delay_nanos(0);
            // SAFETY: forwarded from the caller; the scratch belongs to this running reaction.
            unsafe {
                action_as::<T>(acc.cell).schedule_unspaced(tag, value);
                let scratch = &mut *self.scratch().get();
                if scratch.next_microstep_first == u32::MAX {
                    scratch.next_microstep_first = a;
                } else {
                    scratch.next_microstep_rest.push(a);
                }
            }
            return;
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.schedule_delayed(acc, a, value, delay) }
    }

    /// `schedule_action` of an action with a delay, a minimum spacing, or a physical one.
    ///
    /// # Safety
    /// As for `schedule_action`.
    #[inline(never)]
    unsafe fn schedule_delayed<T: Send + 'static>(
        &self,
        acc: &ActionRt,
        a: u32,
        value: T,
        delay: Duration,
    ) {
        let extra = acc.min_delay.saturating_add(nanos(delay));
        let (tag, next_microstep) = if acc.physical {
            self.physical_tag(extra)
        } else {
            (self.tag_info().tag.delay_nanos(extra), extra == 0)
        };
        // SAFETY: forwarded from the caller; the scratch belongs to this running reaction.
        unsafe {
            let scheduled =
                action_as::<T>(acc.cell).schedule(tag, value, acc.min_spacing, acc.policy);
            if let Some(at) = scheduled {
                let scratch = &mut *self.scratch().get();
                // A zero-delay logical action not moved by its spacing: an event of the next
                // microstep, which needs no tag (see `Scratch::next_microstep_rest`).
                if next_microstep && at == tag {
                    if scratch.next_microstep_first == u32::MAX {
                        scratch.next_microstep_first = a;
                    } else {
                        scratch.next_microstep_rest.push(a);
                    }
                } else {
                    scratch.scheduled.push((a, at));
                    scratch.rare = true;
                }
            }
        }
    }

    /// The tag of a physical action scheduled now with total delay `extra`: physical time plus
    /// the delay, or the next microstep if that is not later than the current tag (then `true`).
    /// Out of line: logical actions, the common kind, keep `schedule` small enough to inline into
    /// bodies.
    #[inline(never)]
    fn physical_tag(&self, extra: u64) -> (Tag, bool) {
        let phys = self
            .clock
            .now()
            .saturating_sub(self.tag_info().start)
            .saturating_add(extra);
        let t = Tag::from_nanos(phys, 0);
        if t > self.tag_info().tag {
            (t, false)
        } else {
            (self.tag_info().tag.delay_nanos(0), true)
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
    /// tag, with their values, in ascending channel order: the same order on every run and any
    /// number of workers. O(p) for p present channels when they were set in ascending or
    /// descending order (the common case for a bank's writers), O(p log p) otherwise; never
    /// O(width).
    ///
    /// Before, `present` iterated in the order the channels were set, which on a parallel run may
    /// differ between runs; that order is now [`Ctx::present_unordered`].
    pub fn present<T: 'static, M: Multiport<T>>(&self, mp: M) -> Present<'_, T> {
        if let Some((cell, _)) = self.present_list(&mp) {
            // SAFETY: the list is written only at completions of its writers, all done before this
            // reader started; `Present` reads it by index through short-lived borrows on this same
            // thread, so no borrow overlaps this one.
            sort_channels(unsafe { &mut *cell.get() });
        }
        self.present_unordered(mp)
    }

    /// As [`Ctx::present`], which now iterates in channel order too; kept for programs written
    /// when `present` did not.
    pub fn present_sorted<T: 'static, M: Multiport<T>>(&self, mp: M) -> Present<'_, T> {
        self.present(mp)
    }

    /// The present channels of a multiport in the order they were set, without sorting: O(p).
    /// That order depends on when the writers completed, so on a parallel run it may differ
    /// between runs: use it where the order does not matter (counting, a commutative sum over
    /// integers, a set of senders). After [`Ctx::present`] over the same multiport at this tag,
    /// the list is sorted, and this iterator sees channel order too.
    pub fn present_unordered<T: 'static, M: Multiport<T>>(&self, mp: M) -> Present<'_, T> {
        let list = self.present_list(&mp);
        Present {
            prog: self.prog,
            seq: self.tag_info().seq,
            list: list.map(|(cell, _)| cell),
            base: list.map_or(0, |(_, b)| b),
            next: 0,
            _t: core::marker::PhantomData,
        }
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

/// Sorts a present-channel list (distinct channels). The writers of a bank usually complete in
/// bank order, or in its reverse (a level's reactions are taken last in, first out), so a
/// multiport's list is most often sorted one way or the other already: a scan finds that in
/// O(p), where the standard sort of a small slice runs its sorting network whatever the input.
fn sort_channels(list: &mut [u32]) {
    if list.is_sorted() {
        return;
    }
    if list.windows(2).all(|w| w[0] > w[1]) {
        list.reverse();
        return;
    }
    list.sort_unstable();
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
            // SAFETY: see `Ctx::present`: a short borrow on the reaction's own thread.
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

#[cfg(test)]
mod tests {
    use super::sort_channels;

    /// Ascending, descending and mixed lists all come out ascending.
    #[test]
    fn channels_come_out_ascending() {
        let cases: [&[u32]; 6] = [
            &[],
            &[4],
            &[0, 1, 5, 9],
            &[9, 5, 1, 0],
            &[3, 0, 7, 1, 2],
            &[1, 0, 2],
        ];
        for case in cases {
            let mut list = case.to_vec();
            sort_channels(&mut list);
            let mut expected = case.to_vec();
            expected.sort_unstable();
            assert_eq!(list, expected, "from {case:?}");
        }
    }
}
