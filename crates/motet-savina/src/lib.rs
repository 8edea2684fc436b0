//! motet-savina: the Savina benchmark suite (Imam & Sarkar, AGERE 2014) for motet's models, its
//! peer runtimes and the sequential floor.
//!
//! Each benchmark is written once per model and validated identically: a module under
//! [`benchmarks`] declares the program's parameters (SPEC.md's flag names, Savina's defaults, a
//! "small" size), the variants, and the check of its result. The harness ([`runner`]) prepares each
//! variant once, untimed, then times `--iterations` runs after `--warmup` untimed ones and reports
//! medians; every run's result is checked and a failure is reported loudly.
//!
//! The sequential floor ([`floor`]) runs the same message flow on one thread with plain calls and a
//! `VecDeque` per actor: it bounds what any runtime can reach on the same program, and the summary
//! reports motet's actors as a ratio to it and to the fastest peer.
//!
//! # Layout
//! - [`bench`](mod@bench), [`params`]: the contract between the harness and a benchmark program.
//! - [`benchmarks`]: the programs; [`registry`]: the list of them.
//! - [`floor`]: the sequential actor system the floor variants run on; [`random`]: Savina's LCG and
//!   `java.util.Random`.
//! - [`cli`], [`sizes`]: the command line; [`runner`]: timing and validation; [`cell`]: each cell
//!   (benchmark, model, threads) in a child process, with its peak memory; [`record`]: the measured
//!   records and their JSON; [`priority`]: a real-time policy kept for the cells, not the relay.
//! - [`report`], [`console`]: the table and summary on the console; [`markdown`], [`chart`],
//!   [`machine`]: the Markdown report, its SVG chart and the machine it names; [`listing`]: `list`.
//! - [`sweep`]: `sweep`, one benchmark over a range of one parameter (the Effpi thesis' scaling
//!   curves), as a table, JSON and a log-log plot.
//! - [`dining_scaling`]: the BoC paper's Dining Philosophers scaling experiment (section 5.4), run
//!   by the `dining_scaling` example.
//!
//! # Command line
//! ```text
//! motet-savina list [--verbose]
//! motet-savina run [BENCH...|--all] [--model MODEL,...] [--threads 1,2] [--iterations N]
//!                  [--warmup N] [--size default|small|PARAM=V]... [--json FILE] [--markdown FILE]
//!                  [--plot FILE.svg]
//! motet-savina sweep BENCH [--param PARAM] [--points V,...] [--model MODEL,...] [--threads N,...]
//!                    [--iterations N] [--warmup N] [--size ...]... [--json FILE]
//!                    [--markdown FILE] [--plot FILE.svg]
//! ```

pub mod bench;
pub mod benchmarks;
pub mod cell;
pub mod chart;
pub mod cli;
pub mod console;
pub mod deviation;
pub mod dining_scaling;
pub mod floor;
pub mod listing;
pub mod machine;
pub mod markdown;
mod motet_support;
pub mod params;
#[cfg(feature = "peers")]
pub mod peers;
pub mod priority;
mod process_support;
pub mod random;
mod reactor_support;
pub mod record;
pub mod registry;
pub mod report;
pub mod runner;
pub mod sizes;
pub mod sweep;
