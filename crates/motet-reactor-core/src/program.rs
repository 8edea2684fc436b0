//! A built program: its [`Graph`], the cells holding port values, action values and reactor state,
//! and the code that runs one reaction.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use core::fmt;

use crate::builder::{Body, ResetHook};
use crate::cells::{ActionDyn, SlotDyn, SpacingPolicy, StateBox};
use crate::error::Warning;
use crate::graph::Graph;
use crate::ids::{PhysicalAction, ReactorId};
use crate::inbox::{Inbox, PhysicalSender};
use crate::time::Tag;

/// What the reactions of the current tag see of it; written by the scheduler between tags only.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TagInfo {
    pub(crate) tag: Tag,
    /// Counts tags from 1; 0 before the first.
    pub(crate) seq: u64,
    /// The platform time of the start tag (nanoseconds).
    pub(crate) start: u64,
    pub(crate) startup: bool,
    pub(crate) shutdown: bool,
    pub(crate) reset: bool,
}

/// What a reaction wants done when it completes; filled while it runs, drained by the scheduler.
pub(crate) struct Scratch {
    /// Slots it set for the first time at this tag: `set_slots[..set_len]`. The buffer has room
    /// for every port the reaction declared as an effect, and a port enters it at most once per
    /// tag (on its first set), so it never fills up.
    pub(crate) set_slots: Box<[u32]>,
    pub(crate) set_len: u32,
    /// The first event it scheduled for the next microstep (a zero-delay logical action, the most
    /// common kind): its action, or `u32::MAX` when none. A register of its own, so that a
    /// reaction scheduling one such event (the message-passing programs) touches no buffer.
    pub(crate) next_microstep_first: u32,
    /// The events it scheduled for the next microstep after `next_microstep_first`, in order;
    /// empty while `next_microstep_first` is `u32::MAX`.
    pub(crate) next_microstep_rest: Vec<u32>,
    /// The other events it scheduled: (action, tag). Sets `rare`.
    pub(crate) scheduled: Vec<(u32, Tag)>,
    pub(crate) stop: bool,
    pub(crate) mode: Option<(u32, crate::Transition)>,
    pub(crate) fault: Option<Fault>,
    /// Watchdog requests, in order: (watchdog, `Some(delay)` to start it that long after the
    /// current tag, `None` to stop it). Sets `rare`.
    pub(crate) watchdogs: Vec<(u32, Option<u64>)>,
    /// Set with `stop`, `mode`, `fault` or an event in `scheduled`, so that completing a reaction
    /// tests one flag for all four (events later than the next microstep are the rarer kind).
    /// A requested mutation sets it too.
    pub(crate) rare: bool,
    /// Mutations requested at this tag, in order (see `crate::mutation`).
    pub(crate) mutations: Vec<crate::mutation::Request>,
}

/// What a reaction did wrong (reported as a [`RunError`](crate::RunError)).
#[derive(Clone, Debug)]
pub(crate) enum Fault {
    Undeclared(&'static str, Item),
    Foreign,
    /// A mutation requested by a reaction not declared to request them.
    Mutation,
}

/// An element named in a fault.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Item {
    Port(u32),
    Action(u32),
    Mode(u32),
    Multiport(u32),
    Timer(u32),
}

/// What running one reaction needs, in one place: its body (which checks the deadline, if the
/// reaction has one, and runs the handler instead), its reactor's state, and the bit that
/// identifies it in the per-port and per-action access masks.
pub(crate) struct ReactionCell {
    pub(crate) body: UnsafeCell<Body>,
    pub(crate) scratch: UnsafeCell<Scratch>,
    /// The state of the reaction's reactor.
    pub(crate) state: *mut (),
    /// The reaction's reactor.
    pub(crate) reactor: u32,
    /// `1 << (number - 1)` for the first 64 declared reactions of a reactor, else 0: reactions
    /// without a bit (and generated ones) have their accesses checked against their declarations
    /// one by one instead of with one bit test.
    pub(crate) bit: u64,
}

/// Per port, what reaction bodies need at run time, in one record: where its value lives and which
/// reactions may read or write it. A port is read by the reactions of one reactor (its owner for
/// an input, the container for an output) and written by those of one reactor (the owner for an
/// output, the container for an input); the masks hold the [`ReactionCell::bit`]s of the ones that
/// declared it. Checking an access is one comparison and one bit test.
pub(crate) struct PortRt {
    /// The slot holding the port's value (its connection chain's head), a `SlotCell<T>`.
    pub(crate) cell: *const (),
    pub(crate) reader: u32,
    pub(crate) writer: u32,
    pub(crate) read_mask: u64,
    pub(crate) write_mask: u64,
    /// Whether the slot's values need dropping at the end of their tag (for chain heads).
    pub(crate) drops: bool,
    /// Neither `drops` nor any observer: setting the slot only triggers its readers (one test on
    /// the completion path instead of two).
    pub(crate) plain: bool,
    /// The (multiport, channel) pairs whose present-channel lists follow the slot (for chain
    /// heads): `observer_list[start..start + len]`.
    pub(crate) observers: (u32, u32),
    /// The reactions a value on the slot triggers (for chain heads): `trigger_list[start..start +
    /// len]`.
    pub(crate) triggers: (u32, u32),
    /// The reaction a value on the slot triggers when it triggers exactly one (the common case,
    /// read without going to the list), else `u32::MAX`.
    pub(crate) sole: u32,
}

/// Takes an action's value for a tag (see `ActionDyn::take_at`), through the untyped cell.
pub(crate) type TakeFn = unsafe fn(*const (), crate::time::Tag, u64) -> bool;

/// Per action, what reaction bodies and the scheduler need at run time, in one record.
pub(crate) struct ActionRt {
    /// The `ActionCell<T>`.
    pub(crate) cell: *const (),
    /// Its `take_at`, monomorphised.
    pub(crate) take: TakeFn,
    pub(crate) owner: u32,
    pub(crate) read_mask: u64,
    pub(crate) schedule_mask: u64,
    pub(crate) min_delay: u64,
    pub(crate) min_spacing: u64,
    pub(crate) policy: SpacingPolicy,
    pub(crate) physical: bool,
    /// A logical action with no minimum delay and no minimum spacing: scheduled with no delay,
    /// its event is at the next microstep, unmoved (`Ctx::schedule`'s short path).
    pub(crate) immediate: bool,
    /// Whether its values need dropping at the end of their tag.
    pub(crate) drops: bool,
    /// Its enclosing mode, or `u32::MAX`.
    pub(crate) mode: u32,
    /// The reactions it triggers: `trigger_list[start..start + len]`.
    pub(crate) triggers: (u32, u32),
    /// The reaction it triggers when it triggers exactly one, else `u32::MAX` (as for ports).
    pub(crate) sole: u32,
}

/// The platform's monotonic clock, in nanoseconds.
pub trait Clock {
    /// Now, in nanoseconds from an arbitrary origin.
    fn now(&self) -> u64;
}

/// A program ready to run: its structure and its state. Run it with
/// [`run_sequential`](crate::run_sequential) or motet-reactor's parallel runner.
pub struct Program {
    pub(crate) id: u32,
    pub(crate) graph: Graph,
    /// Per port, its slot if it heads a chain (the owner of the cells `ports` points to).
    pub(crate) slots: Vec<Option<Box<dyn SlotDyn>>>,
    /// Per port, its run-time record.
    pub(crate) ports: Vec<PortRt>,
    /// The reactions each slot triggers, one after the other (see `PortRt::triggers`).
    pub(crate) trigger_list: Vec<u32>,
    /// The multiport channels each slot feeds, one after the other (see `PortRt::observers`).
    pub(crate) observer_list: Vec<(u32, u32)>,
    /// Per action, its cell (the owner of the cells `action_rt` points to).
    pub(crate) actions: Vec<Box<dyn ActionDyn>>,
    /// Per action, its run-time record.
    pub(crate) action_rt: Vec<ActionRt>,
    pub(crate) states: Vec<StateBox>,
    pub(crate) reactions: Vec<ReactionCell>,
    pub(crate) hooks: Vec<(u32, UnsafeCell<ResetHook>)>,
    /// Per timer, the tag sequence number at which it was last present.
    pub(crate) timer_present: Vec<UnsafeCell<u64>>,
    /// Per multiport, the channels present at this tag in the order they were set.
    pub(crate) mp_present: Vec<UnsafeCell<Vec<u32>>>,
    pub(crate) info: UnsafeCell<TagInfo>,
    pub(crate) inbox: Arc<Inbox>,
    pub(crate) warnings: Vec<Warning>,
    /// Set by the first run: a program runs once.
    pub(crate) started: core::sync::atomic::AtomicBool,
    /// With deadline order on, per reaction its inferred deadline (see `crate::edf`).
    pub(crate) deadline_order: Option<Vec<u64>>,
    /// What mutations keep between tag boundaries (see `crate::mutation`).
    pub(crate) dynamic: crate::mutation::Dynamic,
}

// SAFETY: the cells are accessed under the scheduling discipline documented in `cells.rs` and in
// each scheduler: a reaction's body, scratch and its reactor's state by one thread at a time
// (reactions of one reactor are ordered by the graph), slots by their ordered writer and readers,
// and everything else by the single thread that plays the scheduler between tags. All values are
// `Send + Sync` (ports, actions) or `Send` and touched by one thread at a time (state, bodies).
// The raw pointers in the per-port, per-action and per-reaction records point into boxes the
// program owns (slots, action cells, states), which never move while it lives.
unsafe impl Sync for Program {}
// SAFETY: every part is `Send` (see above); raw pointers in `StateBox` own `Send` state.
unsafe impl Send for Program {}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("reactors", &self.graph.reactors.len())
            .field("reactions", &self.graph.reactions.len())
            .finish_non_exhaustive()
    }
}

impl Program {
    /// The program's structure.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// What the builder warned about (mismatched widths, as LF's compiler warns).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// A sender for `action`, usable from any thread; it keeps the program alive while it exists.
    ///
    /// # Panics
    /// If `action` belongs to another program.
    pub fn sender<T: Send + Sync + 'static>(&self, action: PhysicalAction<T>) -> PhysicalSender<T> {
        assert_eq!(action.prog, self.id, "a physical action of another program");
        PhysicalSender::new(self.inbox.clone(), action.prog, action.ix, true)
    }

    /// The state of `reactor`, for reading results after a run (or setting it up before one).
    ///
    /// # Panics
    /// If `reactor` belongs to another program.
    pub fn state_mut<S: 'static>(&mut self, reactor: ReactorId<S>) -> &mut S {
        assert_eq!(reactor.prog, self.id, "a reactor of another program");
        // SAFETY: the handle's type is the state's type (made by the builder with this state);
        // `&mut self` excludes a run and any other access.
        unsafe { &mut *self.states[reactor.ix as usize].ptr().cast::<S>() }
    }

    /// The inbox physical actions arrive through (for platform layers that sleep on it).
    pub fn inbox(&self) -> &Arc<Inbox> {
        &self.inbox
    }

    /// The tag being processed.
    ///
    /// # Safety
    /// Called while a tag is processed (from a reaction's thread or the scheduler), not while the
    /// scheduler moves to the next tag.
    pub unsafe fn current_tag(&self) -> Tag {
        // SAFETY: written between tags only, by the caller's contract not now.
        unsafe { (*self.info.get()).tag }
    }

    /// The reactions in `trigger_list[start..start + len]`.
    #[inline(always)]
    pub(crate) fn triggers_of(&self, (start, len): (u32, u32)) -> &[u32] {
        debug_assert!(start as usize + len as usize <= self.trigger_list.len());
        // SAFETY: the ranges in the per-port and per-action records were cut from
        // `trigger_list` when it was built, and it does not change afterwards.
        unsafe {
            self.trigger_list
                .get_unchecked(start as usize..start as usize + len as usize)
        }
    }

    /// The level of reaction `r` (its index in declaration order).
    #[inline]
    pub fn level(&self, r: usize) -> u32 {
        self.graph.reaction_level[r]
    }

    /// Whether reaction `r`, which has run at the current tag and whose completion has not been
    /// taken in yet, set a port that triggers reaction `s`: what
    /// [`Engine::complete`](crate::engine::Engine::complete) would find, read without the engine
    /// (for a parallel scheduler that runs `s` right after `r` on the same thread, before taking in
    /// both completions).
    ///
    /// # Safety
    /// `r` has finished running at the current tag and has not been completed; no other thread
    /// touches its scratch meanwhile.
    #[inline]
    pub unsafe fn sets_trigger_of(&self, r: usize, s: u32) -> bool {
        // SAFETY: `r` is not running and not being completed (the caller's contract), so its
        // scratch is not written meanwhile.
        let scratch = unsafe { &*self.reactions[r].scratch.get() };
        scratch.set_slots[..scratch.set_len as usize]
            .iter()
            .any(|&slot| {
                self.triggers_of(self.ports[slot as usize].triggers)
                    .contains(&s)
            })
    }

    /// Runs reaction `r` for the current tag: its deadline handler instead of its body if the
    /// deadline is missed (the body assembled for a reaction with a deadline checks it). What it
    /// did is left in its scratch for [`Engine::complete`](crate::engine::Engine::complete).
    ///
    /// # Safety
    /// `r` was triggered at the current tag and every reaction that precedes it in the graph and
    /// runs at this tag has completed; no other reaction of its reactor runs meanwhile; the
    /// scheduler does not change the tag meanwhile.
    #[inline]
    pub unsafe fn execute(&self, r: usize, clock: &dyn Clock) {
        debug_assert!(r < self.reactions.len());
        // SAFETY: the caller guarantees `r` was triggered, so it is a reaction of this program.
        let cell = unsafe { self.reactions.get_unchecked(r) };
        #[cfg(feature = "tracing")]
        let _span = {
            // SAFETY: a tag is being processed and does not change meanwhile (the caller's contract).
            let tag = unsafe { self.current_tag() };
            tracing::trace_span!(target: "motet::reactor", "reaction", reaction = r, tag = ?tag)
                .entered()
        };
        // SAFETY: one execution of `r` at a time (the caller's contract).
        unsafe { (*cell.body.get())(cell.state, self, cell, clock) };
    }
}
