//! motet-federated: a motet reactor program split over processes (federates), coordinated with
//! Lingua Franca's centralized protocol, carried over Zenoh.
//!
//! The same builder function declares the whole program in every process, on a
//! [`FederatedBuilder`]: top-level reactors are assigned to federates, and connections between
//! federates are declared with [`FederatedBuilder::connect_federated`] (or `_after`). Built with
//! [`Role::Whole`] the program runs in one process (the reference run); built with
//! [`Role::Federate`] a process runs its federate's reactors, sends the values on federated
//! connections to the coordinator with their tags, and advances only to tags the coordinator
//! grants. For programs whose federated connections are logical, the tag-ordered event log of a
//! federated run is the one of the whole run.
//!
//! The coordinator ([`run_coordinator`], LF's RTI) is pure logic over a transport: the
//! [`Coordinator`] state machine computes grants (TAG, PTAG) from the federates' next event tags
//! and completed tags and the connections' delays, forwards tagged values before the grants that
//! cover them, agrees stops, and handles a federate that fails as LF's RTI does (see
//! [`coordinator`]). Transports: [`transport::memory`] for tests in one process,
//! [`transport::zenoh`] for processes.
//!
//! ```
//! use std::time::Duration;
//! use motet_federated::{FederatedBuilder, Role};
//! use motet_reactor_core::{RunOptions, Startup};
//!
//! fn build(role: Role) -> motet_federated::FederatedProgram {
//!     let mut b = FederatedBuilder::new(role);
//!     let (fa, fb) = (b.federate("a"), b.federate("b"));
//!     let src = b.reactor("src", ());
//!     let out = b.output::<u32, _>(src, "out");
//!     b.reaction(src, "emit").trigger(Startup).effect(out).body(move |_, ctx| ctx.set(out, 7));
//!     let sink = b.reactor("sink", Vec::new());
//!     let inp = b.input::<u32, _>(sink, "in");
//!     b.reaction(sink, "log").trigger(inp).body(move |seen: &mut Vec<u32>, ctx| {
//!         seen.push(*ctx.get(inp).unwrap());
//!     });
//!     b.assign(src, fa);
//!     b.assign(sink, fb);
//!     b.connect_federated_after(out, inp, Duration::from_millis(5));
//!     b.build().unwrap()
//! }
//!
//! // The reference run, in one process.
//! let mut whole = build(Role::Whole);
//! let opts = RunOptions { fast: true, timeout: Some(Duration::from_millis(10)) };
//! whole.run_whole(&opts).unwrap();
//!
//! // The same program as two federates (threads here, over the in-memory transport).
//! let mut a = build(Role::Federate("a".into()));
//! let mut b = build(Role::Federate("b".into()));
//! let (rti, mut ends) = motet_federated::transport::memory::network(2);
//! let topo = a.topology().clone();
//! let coordinator = std::thread::spawn(move || {
//!     motet_federated::run_coordinator(topo, &rti, &Default::default())
//! });
//! let (end_b, end_a) = (ends.pop().unwrap(), ends.pop().unwrap());
//! let fopts = motet_federated::FederateOptions { run: opts, ..Default::default() };
//! let ta = std::thread::spawn(move || a.run_federate(&end_a, &fopts).map(|_| ()));
//! b.run_federate(&end_b, &fopts).unwrap();
//! ta.join().unwrap().unwrap();
//! coordinator.join().unwrap().unwrap();
//! ```
#![warn(missing_docs)]

mod builder;
pub mod coordinator;
mod error;
mod federate;
mod port_status;
mod program;
mod rti;
pub mod topology;
pub mod transport;
pub mod wire;

pub use builder::{FederateId, FederatedBuilder, Role};
pub use coordinator::Coordinator;
pub use error::FederatedError;
pub use program::{unix_now, FederateOptions, FederateReport, FederatedProgram, UnixClock};
pub use rti::{run_coordinator, CoordinatorOptions, CoordinatorReport};
pub use topology::{Delay, Link, Topology};
