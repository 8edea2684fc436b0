//! motet-reactor-core: the semantics of deterministic reactors after Lingua Franca, in `no_std` +
//! `alloc`.
//!
//! A *program* is a tree of reactors. Each reactor has state, input and output ports, timers,
//! logical and physical actions, and *reactions*: Rust closures that declare what triggers them,
//! what else they read (sources) and what they may write or schedule (effects). Connections join
//! ports; `after` and physical connections delay values; banks and multiports scale programs; modes
//! switch parts of a reactor on and off. Everything happens at *tags* ([`Tag`]: time, microstep), in
//! tag order, and the reactions of one tag run in the order of the reaction graph derived from the
//! declarations, so the outputs of a program are the same whatever runs it.
//!
//! This crate holds what every runner shares and what a microcontroller needs: the builder and its
//! checks ([`ProgramBuilder`], [`Program`], [`BuildError`]), tags, the event queue and tag loop
//! ([`Engine`]), and the single-threaded scheduler ([`run_sequential`]) over a small [`Platform`]
//! abstraction (a clock and an interruptible sleep). `motet-reactor` adds the parallel schedulers on
//! motet's runtime, the physical clock, tracing and diagrams.
//!
//! ```
//! use core::time::Duration;
//! use motet_reactor_core::{run_sequential, Clock, Inbox, Platform, ProgramBuilder, RunOptions, Startup};
//!
//! // A platform whose time only moves when the scheduler waits (virtual time).
//! struct Virtual(u64);
//! impl Clock for Virtual { fn now(&self) -> u64 { self.0 } }
//! impl Platform for Virtual {
//!     fn wait(&mut self, _: &Inbox, deadline: Option<u64>) { self.0 = deadline.unwrap_or(self.0); }
//! }
//!
//! let mut b = ProgramBuilder::new();
//! let src = b.reactor("src", ());
//! let out = b.output::<u32, _>(src, "out");
//! b.reaction(src, "emit").trigger(Startup).effect(out).body(move |_, ctx| ctx.set(out, 42));
//! let sink = b.reactor("sink", Vec::new());
//! let inp = b.input::<u32, _>(sink, "in");
//! b.reaction(sink, "log").trigger(inp).body(move |seen: &mut Vec<u32>, ctx| {
//!     seen.push(*ctx.get(inp).unwrap());
//! });
//! b.connect_after(out, inp, Duration::from_millis(10));
//! let mut program = b.build().unwrap();
//! let metrics = run_sequential(&mut program, &mut Virtual(0), &RunOptions::default(), &mut ()).unwrap();
//! assert_eq!(metrics.tags, 3); // startup, the delayed value at 10 ms, shutdown one microstep later
//! ```
//!
//! A program of timers and the reactions they trigger can also be declared as constant tables
//! ([`ProgramTable`], assembled by [`TableProgram`]) and run by [`run_table`], a scheduler for
//! such timed programs only, so that neither the builder and its checks nor the general tag loop
//! need be linked into a small target's image.
//!
//! Physical actions take values from outside the program: a [`PhysicalSender`] from threads (each
//! send allocates), an [`IrqSender`] from interrupt handlers (a ring of fixed capacity, reserved
//! when the sender is made: a send allocates nothing and takes no lock, and a full ring is a
//! reported fault, [`RunError::PhysicalOverflow`]).
//!
//! Port types are checked by the compiler: connecting an output of one type to an input of another
//! does not compile.
//!
//! ```compile_fail
//! use motet_reactor_core::ProgramBuilder;
//! let mut b = ProgramBuilder::new();
//! let a = b.reactor("a", ());
//! let out = b.output::<u32, _>(a, "out");
//! let c = b.reactor("c", ());
//! let inp = b.input::<String, _>(c, "in");
//! b.connect(out, inp); // error: Output<u32> is not a list of String ports
//! ```
#![no_std]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(any(test, loom))]
extern crate std;

mod assemble;
mod builder;
mod cells;
mod ctx;
mod edf;
mod engine;
mod error;
pub mod graph;
mod ids;
mod inbox;
pub mod mutation;
mod next_microstep;
mod ports;
mod program;
mod ready;
mod ring;
mod sequential;
mod sync;
mod table;
mod table_run;
mod time;
mod watchdog;

pub use builder::{ActionSpec, Connection, ProgramBuilder, ReactionBuilder, Scope};
pub use cells::SpacingPolicy;
pub use ctx::{Ctx, Present, Transition};
pub use edf::{sort_earliest_first, take_earliest};
pub use engine::{Engine, Metrics, Next, RunOptions};
pub use error::{BuildError, RunError, Warning};
pub use ids::{
    Action, Declare, Input, InputMultiport, LogicalAction, ModeId, Multiport, Output,
    OutputMultiport, PhysicalAction, Port, Presence, ReactionId, ReactorId, Readable, Reset,
    Shutdown, Startup, Timer,
};
pub use inbox::{set_clock, Inbox, PhysicalSender};
pub use mutation::Mutation;
pub use ports::Ports;
pub use program::{Clock, Program};
pub use ready::LevelQueue;
pub use ring::IrqSender;
pub use sequential::{run_sequential, Hooks, Platform};
pub use table::{
    ProgramTable, ReactionRow, ReactorRow, TableError, TableProgram, TimerRow, Trigger,
};
pub use table_run::run_table;
pub use time::Tag;
pub use watchdog::Watchdog;
