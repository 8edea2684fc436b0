//! Savina's micro benchmarks as `no_std` reactor programs, built by one function each for two
//! places: motet-embedded's programs run them on the emulated Cortex-M4F board with the core's
//! sequential scheduler and the board's `Platform`, and this crate's `host` example runs the very
//! same programs on Linux with motet-reactor's `Runner` (one worker), so that the board's figures
//! and the host's come from one program text.
//!
//! Each module builds its program at a given size, after LF's reactor port of the benchmark, and
//! validates its result as SPEC.md says:
//!
//! - [`pingpong`]: Ping Pong (SPEC.md benchmark 1); Ping's logical action stands in for Savina's
//!   self-message, so each round trip is one tag and three reactions.
//! - [`threadring`]: Thread Ring (benchmark 5), N nodes in a cycle passing a counter down.
//! - [`count`]: Counting Actor (benchmark 2), one increment per tag.
//!
//! ```
//! let mut p = motet_embedded_programs::count::build(1_000).expect("well formed");
//! // ... run `p.program` with a scheduler (the board's or motet-reactor's), then:
//! let outcome = p.outcome();
//! assert!(!outcome.validated, "nothing ran yet");
//! ```
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod count;
pub mod pingpong;
pub mod threadring;

/// What a program computed, read from its reactors' states after the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The benchmark's result (pings counted, the index the zero ping reached, the count), or
    /// `None` if the program never produced one.
    pub result: Option<u64>,
    /// Whether the result is the one SPEC.md expects for the program's size.
    pub validated: bool,
}
