//! motet-reactor: deterministic reactors after Lingua Franca, on motet's work-stealing runtime.
//!
//! Programs are declared with the builder of motet-reactor-core (re-exported here): reactors with
//! state, ports, timers, actions, modes and reactions, connected into a graph that is checked when it
//! is built. This crate runs them:
//!
//! - [`Runner`]: on the calling thread, or in parallel on a [`motet_runtime::Runtime`]'s workers with
//!   the readiness scheduler (a reaction may run as soon as its own pending predecessors are done;
//!   chains of reactions that only their predecessor triggers run as one) or
//!   LF's level scheduler ([`SchedulerKind`]); chasing physical time or fast; with a timeout. The
//!   outputs are the same whatever the scheduler and the number of workers.
//! - physical time: [`clock::now_ns`], installed into the core so that
//!   [`PhysicalSender::send`] stamps values from any thread or actor with the physical clock;
//! - tooling: [`diagram::to_dot`] and [`diagram::to_mermaid`] draw a program; a run with
//!   [`Runner::trace`] records a [`Trace`] exportable to Chrome's trace format (Perfetto); every run
//!   reports LF's Table 1 [`Metrics`].
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use std::time::Duration;
//! use motet_reactor::{ProgramBuilder, Runner, SchedulerKind, Startup};
//! use motet_runtime::Runtime;
//!
//! let mut b = ProgramBuilder::new();
//! let src = b.reactor("src", ());
//! let out = b.output::<u64, _>(src, "out");
//! b.reaction(src, "emit").trigger(Startup).effect(out).body(move |_, ctx| ctx.set(out, 21));
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let sink = b.reactor("sink", seen.clone());
//! let inp = b.input::<u64, _>(sink, "in");
//! b.reaction(sink, "double").trigger(inp).body(move |seen, ctx| {
//!     seen.lock().unwrap().push((ctx.tag(), *ctx.get(inp).unwrap() * 2));
//! });
//! b.connect_after(out, inp, Duration::from_millis(5));
//! let mut program = b.build().unwrap();
//!
//! let rt = Runtime::builder().workers(2).build().unwrap();
//! let report = Runner::on(rt.handle()).scheduler(SchedulerKind::Readiness).fast(true).run(&mut program).unwrap();
//! assert_eq!(seen.lock().unwrap()[0].1, 42);
//! assert_eq!(report.metrics.tags, 3);
//! ```
#![warn(missing_docs)]

pub mod clock;
pub mod diagram;
mod parallel;
mod run_async;
mod runner;
mod single_thread;
mod trace;

pub use motet_reactor_core::graph;
pub use motet_reactor_core::mutation;
pub use motet_reactor_core::{
    Action, ActionSpec, BuildError, Connection, Ctx, Declare, Input, InputMultiport, IrqSender,
    LogicalAction, Metrics, ModeId, Multiport, Mutation, Output, OutputMultiport, PhysicalAction,
    PhysicalSender, Port, Ports, Presence, Present, Program, ProgramBuilder, ReactionBuilder,
    ReactionId, ReactorId, Readable, Reset, RunError, RunOptions, Scope, Shutdown, SpacingPolicy,
    Startup, Tag, Timer, Transition, Warning, Watchdog,
};
pub use run_async::{Finished, RunFuture, StartError};
pub use runner::{Report, Runner, SchedulerKind};
pub use trace::{ReactionSpan, Trace};
