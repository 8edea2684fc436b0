//! motet: several concurrency models on one work-stealing runtime.
//!
//! This facade re-exports the pieces behind features:
//!
//! - [`runtime`] (always): the worker pool every model runs on ([`Runtime`]);
//! - [`actor`] (feature `actor`, on by default): typed actors after CAF;
//! - [`boc`] (feature `boc`, on by default): behaviour-oriented concurrency after Verona, cowns
//!   and `when`;
//! - [`reactor`] (feature `reactor`, on by default): deterministic reactors after Lingua Franca;
//! - [`process`] (feature `process`, on by default): typed channels, lightweight processes and
//!   session types after Effpi;
//! - `remote` (feature `remote`, off by default): actors across processes and hosts on Eclipse
//!   Zenoh (motet-remote).
//! - `federated` (feature `remote`, off by default): a reactor program split over processes,
//!   coordinated with Lingua Franca's centralized protocol over Zenoh.
//! - `compute` (feature `opencl`, off by default): OpenCL kernels as actors after CAF's OpenCL
//!   actors (motet-compute).
//!
//! # Which actors?
//!
//! There are two ways to write an actor, for two kinds of program. [`actor`] is the actor model
//! proper, after CAF: an actor is a state and a handler, reached through a typed [`actor::Addr`],
//! with request/response, links, monitors, exit propagation and supervision, and the cheapest
//! message send motet has; write actor programs with it. [`process::actor`] is Effpi's actor DSL:
//! an actor is a process that owns one mailbox channel, so it can `await` other channels, `select`
//! over several, follow a session type, or read its mailbox only when it wants to; use it inside a
//! process program, where the rest of the code already speaks channels. Both run on the same
//! runtime and can hold each other's addresses in messages.
//!
//! ```
//! use motet::actor::{spawn, Actor, Context};
//! use motet::Runtime;
//!
//! struct Echo;
//! impl Actor for Echo {
//!     type Msg = String;
//!     fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: String) {
//!         println!("{msg}");
//!         ctx.stop();
//!     }
//! }
//!
//! let rt = Runtime::new().unwrap();
//! let echo = spawn(rt.handle(), Echo);
//! echo.tell("hello".to_string()).unwrap();
//! rt.wait_quiescent();
//! ```
//!
//! # In a tokio service
//!
//! Tokio tasks use motet as they are: `tell` an actor, `.await` an `ask`, a behaviour's
//! promise or a channel's receive (no feature needed). Channels are also `futures` streams and
//! sinks (`Receiver::into_stream`, `BoundedSender::into_sink`). The other way round, a process
//! awaits tokio's timers and sockets through `motet::process::in_tokio` (feature `tokio`), or
//! awaits the `JoinHandle` of a task spawned on tokio. A TCP service whose connections ask an
//! actor, wired in ten lines (`main`); `cargo run -p motet --example tokio_service --features
//! tokio` runs a fuller one:
//!
//! ```no_run
//! use std::time::Duration;
//! use motet::actor::{spawn, Actor, Context, Reply};
//! use tokio::io::AsyncWriteExt;
//!
//! /// Counts visitors; answers each with its number.
//! struct Visits(u64);
//! impl Actor for Visits {
//!     type Msg = Reply<u64>;
//!     fn handle(&mut self, _ctx: &mut Context<'_, Self>, reply: Reply<u64>) {
//!         self.0 += 1;
//!         let _ = reply.send(self.0);
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let motet = motet::Runtime::new().expect("motet's runtime");
//!     let visits = spawn(motet.handle(), Visits(0));
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:7878").await?;
//!     loop {
//!         let (mut socket, _) = listener.accept().await?;
//!         let visits = visits.clone();
//!         tokio::spawn(async move {
//!             let n = visits.ask(|r| r, Duration::from_secs(1)).await.unwrap_or(0);
//!             let _ = socket.write_all(format!("visitor {n}\n").as_bytes()).await;
//!         });
//!     }
//! }
//! ```
#![warn(missing_docs)]

/// The runtime under every model (re-export of `motet-runtime`).
pub mod runtime {
    pub use motet_runtime::*;
}

/// Typed actors (re-export of `motet-actor`).
#[cfg(feature = "actor")]
pub mod actor {
    pub use motet_actor::*;
}

/// Behaviour-oriented concurrency: cowns and `when` (re-export of `motet-boc`).
#[cfg(feature = "boc")]
pub mod boc {
    pub use motet_boc::*;
}

/// Deterministic reactors (re-export of `motet-reactor`, which re-exports the builder of
/// `motet-reactor-core`).
#[cfg(feature = "reactor")]
pub mod reactor {
    pub use motet_reactor::*;
}

/// Typed channels, processes and session types (re-export of `motet-process`).
#[cfg(feature = "process")]
pub mod process {
    pub use motet_process::*;
}

/// Remote actors on Eclipse Zenoh (re-export of `motet-remote`).
#[cfg(feature = "remote")]
pub mod remote {
    pub use motet_remote::*;
}

/// Federated reactors: a reactor program split over processes, coordinated over Zenoh
/// (re-export of `motet-federated`).
#[cfg(feature = "remote")]
pub mod federated {
    pub use motet_federated::*;
}

/// OpenCL kernels as actors (re-export of `motet-compute`).
#[cfg(feature = "opencl")]
pub mod compute {
    pub use motet_compute::*;
}

pub use motet_runtime::{Handle, Runtime};
