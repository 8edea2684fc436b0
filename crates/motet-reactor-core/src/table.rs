//! Programs declared as constant tables: the small way to build a timer-driven program, for
//! targets where the code of [`ProgramBuilder`](crate::ProgramBuilder) and its checks would cost
//! more than the program.
//!
//! A [`ProgramTable`] lists reactors, timers and reactions as `const` data: names, indices and
//! times, with no code. [`TableProgram`] checks it (every index in range, every timer triggering
//! reactions of its own reactor only), takes each reactor's state and each reaction's body, and
//! assembles the [`Program`] directly. What the builder derives with a graph walk is fixed by the
//! table's shape: reactions are triggered by timers, startup and shutdown only, so no reaction
//! depends on another reactor's, and the reactions of one reactor run in table order (level =
//! their rank in their reactor). Ports, actions and modes need the builder.
//!
//! A program built from a table runs like the same program declared on the builder: the table
//! tests compare the two tag by tag.
//!
//! ```
//! use core::time::Duration;
//! use motet_reactor_core::{
//!     run_sequential, Clock, Inbox, Platform, ProgramTable, ReactionRow, ReactorRow, RunOptions,
//!     TableProgram, TimerRow, Trigger,
//! };
//! # struct Virtual(u64);
//! # impl Clock for Virtual { fn now(&self) -> u64 { self.0 } }
//! # impl Platform for Virtual {
//! #     fn wait(&mut self, _: &Inbox, deadline: Option<u64>) { self.0 = deadline.unwrap_or(self.0); }
//! # }
//!
//! static BLINK: ProgramTable = ProgramTable::new(
//!     &[ReactorRow::new("blink")],
//!     &[TimerRow::new("t", 0, Duration::ZERO, Duration::from_millis(1))],
//!     &[ReactionRow::new("toggle", 0, &[Trigger::Timer(0)])],
//! );
//!
//! let mut t = TableProgram::new(&BLINK).unwrap();
//! let blink = t.state(0, 0u32).unwrap();
//! t.body(0, blink, |n: &mut u32, ctx| {
//!     *n += 1;
//!     if *n == 3 {
//!         ctx.request_stop();
//!     }
//! })
//! .unwrap();
//! let mut program = t.build().unwrap();
//! run_sequential(&mut program, &mut Virtual(0), &RunOptions::default(), &mut ()).unwrap();
//! assert_eq!(*program.state_mut(blink), 3);
//! ```

use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use core::fmt;
use core::marker::PhantomData;
use core::time::Duration;

use crate::builder::erase;
use crate::builder::Body;
use crate::cells::StateBox;
use crate::ctx::Ctx;
use crate::graph::{Graph, ReactionInfo, ReactorInfo, TimerInfo};
use crate::ids::{next_program_id, ReactorId, Timer};
use crate::inbox::Inbox;
use crate::program::{Program, ReactionCell, Scratch, TagInfo};

/// A reactor of a [`ProgramTable`].
#[derive(Clone, Copy, Debug)]
pub struct ReactorRow {
    name: &'static str,
}

impl ReactorRow {
    /// A top-level reactor named `name`.
    pub const fn new(name: &'static str) -> ReactorRow {
        ReactorRow { name }
    }
}

/// A timer of a [`ProgramTable`]: first at `offset` after the start, then every `period` (none
/// when `period` is zero).
#[derive(Clone, Copy, Debug)]
pub struct TimerRow {
    name: &'static str,
    reactor: u32,
    offset: Duration,
    period: Duration,
}

impl TimerRow {
    /// Timer `name` of reactor `reactor` (its index in the table).
    pub const fn new(
        name: &'static str,
        reactor: u32,
        offset: Duration,
        period: Duration,
    ) -> TimerRow {
        TimerRow {
            name,
            reactor,
            offset,
            period,
        }
    }
}

/// What triggers a reaction of a [`ProgramTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The start tag.
    Startup,
    /// The stop tag.
    Shutdown,
    /// The timer with this index in the table (one of the reaction's own reactor).
    Timer(u32),
}

/// A reaction of a [`ProgramTable`]; the reactions of one reactor run in table order when
/// triggered at the same tag.
#[derive(Clone, Copy, Debug)]
pub struct ReactionRow {
    name: &'static str,
    reactor: u32,
    triggers: &'static [Trigger],
}

impl ReactionRow {
    /// Reaction `name` of reactor `reactor` (its index in the table), run at the tags where one
    /// of `triggers` is present.
    pub const fn new(
        name: &'static str,
        reactor: u32,
        triggers: &'static [Trigger],
    ) -> ReactionRow {
        ReactionRow {
            name,
            reactor,
            triggers,
        }
    }
}

/// A program as constant tables (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct ProgramTable {
    reactors: &'static [ReactorRow],
    timers: &'static [TimerRow],
    reactions: &'static [ReactionRow],
}

impl ProgramTable {
    /// The program with these reactors, timers and reactions.
    pub const fn new(
        reactors: &'static [ReactorRow],
        timers: &'static [TimerRow],
        reactions: &'static [ReactionRow],
    ) -> ProgramTable {
        ProgramTable {
            reactors,
            timers,
            reactions,
        }
    }
}

/// What is wrong with a [`ProgramTable`] or with what [`TableProgram`] was given; indices are
/// the table's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableError {
    /// A timer or reaction names a reactor the table does not have.
    NoSuchReactor(u32),
    /// A reaction is triggered by a timer the table does not have.
    NoSuchTimer(u32),
    /// A reaction is triggered by a timer of another reactor.
    ForeignTimer {
        /// The reaction.
        reaction: u32,
        /// The timer.
        timer: u32,
    },
    /// A body was given for a reaction the table does not have.
    NoSuchReaction(u32),
    /// A body was given with the handle of a reactor other than its reaction's, or of another
    /// program.
    WrongReactor(u32),
    /// A reactor's state was given twice.
    StateTwice(u32),
    /// A reaction's body was given twice.
    BodyTwice(u32),
    /// A reactor was given no state.
    MissingState(u32),
    /// A reaction was given no body.
    MissingBody(u32),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TableError::NoSuchReactor(r) => write!(f, "the table has no reactor {r}"),
            TableError::NoSuchTimer(t) => write!(f, "the table has no timer {t}"),
            TableError::ForeignTimer { reaction, timer } => write!(
                f,
                "reaction {reaction} is triggered by timer {timer} of another reactor"
            ),
            TableError::NoSuchReaction(r) => write!(f, "the table has no reaction {r}"),
            TableError::WrongReactor(r) => {
                write!(f, "reaction {r} got the state handle of another reactor")
            }
            TableError::StateTwice(r) => write!(f, "reactor {r} got its state twice"),
            TableError::BodyTwice(r) => write!(f, "reaction {r} got its body twice"),
            TableError::MissingState(r) => write!(f, "reactor {r} got no state"),
            TableError::MissingBody(r) => write!(f, "reaction {r} got no body"),
        }
    }
}

impl core::error::Error for TableError {}

/// A [`ProgramTable`] being given its states and bodies, then assembled into a [`Program`]
/// (see the module docs).
pub struct TableProgram {
    table: &'static ProgramTable,
    prog: u32,
    states: Vec<Option<StateBox>>,
    bodies: Vec<Option<Body>>,
}

impl fmt::Debug for TableProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableProgram")
            .field("table", self.table)
            .finish_non_exhaustive()
    }
}

impl TableProgram {
    /// Checks `table`: every index in range, every timer trigger of the reaction's own reactor.
    ///
    /// # Errors
    /// The first problem found.
    pub fn new(table: &'static ProgramTable) -> Result<TableProgram, TableError> {
        let nreactors = table.reactors.len() as u32;
        for t in table.timers {
            if t.reactor >= nreactors {
                return Err(TableError::NoSuchReactor(t.reactor));
            }
        }
        for (i, r) in table.reactions.iter().enumerate() {
            if r.reactor >= nreactors {
                return Err(TableError::NoSuchReactor(r.reactor));
            }
            for trigger in r.triggers {
                if let Trigger::Timer(t) = *trigger {
                    match table.timers.get(t as usize) {
                        None => return Err(TableError::NoSuchTimer(t)),
                        Some(timer) if timer.reactor != r.reactor => {
                            return Err(TableError::ForeignTimer {
                                reaction: i as u32,
                                timer: t,
                            })
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        Ok(TableProgram {
            table,
            prog: next_program_id(),
            states: (0..table.reactors.len()).map(|_| None).collect(),
            bodies: (0..table.reactions.len()).map(|_| None).collect(),
        })
    }

    /// Gives reactor `reactor` its state; the handle types its reactions' bodies and reads the
    /// state after a run ([`Program::state_mut`]).
    ///
    /// # Errors
    /// [`TableError::NoSuchReactor`], [`TableError::StateTwice`].
    pub fn state<S: Send + 'static>(
        &mut self,
        reactor: u32,
        state: S,
    ) -> Result<ReactorId<S>, TableError> {
        let slot = self
            .states
            .get_mut(reactor as usize)
            .ok_or(TableError::NoSuchReactor(reactor))?;
        if slot.is_some() {
            return Err(TableError::StateTwice(reactor));
        }
        *slot = Some(StateBox::new(state));
        Ok(ReactorId {
            prog: self.prog,
            ix: reactor,
            _s: PhantomData,
        })
    }

    /// The handle of timer `timer`, for [`Ctx::is_present`](crate::Ctx::is_present), or `None`
    /// if the table has no such timer.
    pub fn timer(&self, timer: u32) -> Option<Timer> {
        ((timer as usize) < self.table.timers.len()).then_some(Timer {
            prog: self.prog,
            ix: timer,
        })
    }

    /// Gives reaction `reaction` its body, which gets the state of `reactor` (the reaction's
    /// reactor, as [`TableProgram::state`] returned it).
    ///
    /// # Errors
    /// [`TableError::NoSuchReaction`], [`TableError::WrongReactor`], [`TableError::BodyTwice`].
    pub fn body<S: 'static>(
        &mut self,
        reaction: u32,
        reactor: ReactorId<S>,
        f: impl FnMut(&mut S, &Ctx<'_>) + Send + 'static,
    ) -> Result<(), TableError> {
        let row = self
            .table
            .reactions
            .get(reaction as usize)
            .ok_or(TableError::NoSuchReaction(reaction))?;
        if reactor.prog != self.prog || reactor.ix != row.reactor {
            return Err(TableError::WrongReactor(reaction));
        }
        let slot = &mut self.bodies[reaction as usize];
        if slot.is_some() {
            return Err(TableError::BodyTwice(reaction));
        }
        *slot = Some(erase(f));
        Ok(())
    }

    /// Assembles the program.
    ///
    /// # Errors
    /// [`TableError::MissingState`], [`TableError::MissingBody`].
    pub fn build(self) -> Result<Program, TableError> {
        let table = self.table;
        // Everything is checked before anything is assembled, so that an error drops only what
        // was given.
        if let Some(i) = self.states.iter().position(Option::is_none) {
            return Err(TableError::MissingState(i as u32));
        }
        if let Some(i) = self.bodies.iter().position(Option::is_none) {
            return Err(TableError::MissingBody(i as u32));
        }
        let states: Vec<StateBox> = self.states.into_iter().flatten().collect();
        let mut g = Graph::default();
        for r in table.reactors {
            g.reactors.push(ReactorInfo {
                name: String::from(r.name),
                parent: None,
                mode: None,
                enclosing_mode: None,
                hidden: false,
                modes: Vec::new(),
                bank_index: 0,
            });
        }
        for t in table.timers {
            g.timers.push(TimerInfo {
                name: scoped(table, t.reactor, t.name),
                owner: t.reactor,
                mode: None,
                offset: crate::time::nanos(t.offset),
                period: crate::time::nanos(t.period),
                triggers: Vec::new(),
            });
        }
        // Per reactor, its last reaction so far (`u32::MAX`: none): the predecessor of its
        // next one, which takes the next level.
        let mut last = alloc::vec![u32::MAX; table.reactors.len()];
        let mut reactions = Vec::with_capacity(table.reactions.len());
        let bodies = self.bodies.into_iter().flatten();
        for ((i, row), body) in table.reactions.iter().enumerate().zip(bodies) {
            let ri = i as u32;
            let prev = core::mem::replace(&mut last[row.reactor as usize], ri);
            let mut predecessors = Vec::new();
            let level = if prev == u32::MAX {
                0
            } else {
                predecessors.push(prev);
                g.reactions[prev as usize].successors.push(ri);
                g.reaction_level[prev as usize] + 1
            };
            if level as usize == g.level_widths.len() {
                g.level_widths.push(0);
            }
            g.level_widths[level as usize] += 1;
            let mut timers = Vec::new();
            let (mut on_startup, mut on_shutdown) = (false, false);
            for trigger in row.triggers {
                match *trigger {
                    Trigger::Startup => on_startup = true,
                    Trigger::Shutdown => on_shutdown = true,
                    Trigger::Timer(t) => {
                        timers.push(t);
                        g.timers[t as usize].triggers.push(ri);
                    }
                }
            }
            if on_startup {
                g.startup.push(ri);
            }
            if on_shutdown {
                g.shutdown.push(ri);
            }
            g.reaction_level.push(level);
            g.reaction_mode.push(u32::MAX);
            g.reactions.push(ReactionInfo {
                name: scoped(table, row.reactor, row.name),
                reactor: row.reactor,
                number: level + 1,
                mode: None,
                level,
                predecessors,
                successors: Vec::new(),
                reads: Vec::new(),
                writes: Vec::new(),
                trigger_ports: Vec::new(),
                read_actions: Vec::new(),
                trigger_actions: Vec::new(),
                scheduled_actions: Vec::new(),
                timers,
                modes: Vec::new(),
                on_startup,
                on_shutdown,
                on_reset: false,
                deadline: None,
                hidden: false,
                mutates: false,
            });
            reactions.push(ReactionCell {
                body: UnsafeCell::new(body),
                scratch: UnsafeCell::new(Scratch {
                    set_slots: Box::new([]),
                    set_len: 0,
                    next_microstep_first: u32::MAX,
                    next_microstep_rest: Vec::new(),
                    scheduled: Vec::new(),
                    stop: false,
                    mode: None,
                    fault: None,
                    watchdogs: Vec::new(),
                    rare: false,
                    mutations: Vec::new(),
                }),
                state: states[row.reactor as usize].ptr(),
                reactor: row.reactor,
                bit: if level < 64 { 1 << level } else { 0 },
            });
        }
        g.levels = g.level_widths.len() as u32;
        Ok(Program {
            id: self.prog,
            timer_present: (0..g.timers.len()).map(|_| UnsafeCell::new(0)).collect(),
            graph: g,
            slots: Vec::new(),
            ports: Vec::new(),
            trigger_list: Vec::new(),
            observer_list: Vec::new(),
            actions: Vec::new(),
            action_rt: Vec::new(),
            states,
            reactions,
            hooks: Vec::new(),
            mp_present: Vec::new(),
            info: UnsafeCell::new(TagInfo::default()),
            inbox: Arc::new(Inbox::new()),
            warnings: Vec::new(),
            started: core::sync::atomic::AtomicBool::new(false),
            deadline_order: None,
            dynamic: crate::mutation::Dynamic::default(),
        })
    }
}

/// `reactor.name`, the builder's full name of an element of a top-level reactor.
fn scoped(table: &ProgramTable, reactor: u32, name: &str) -> String {
    let owner = table.reactors[reactor as usize].name;
    let mut s = String::with_capacity(owner.len() + 1 + name.len());
    s.push_str(owner);
    s.push('.');
    s.push_str(name);
    s
}
