//! `threadring`: Savina's Thread Ring (SPEC.md benchmark 5) as reactors, built by
//! `motet_embedded_programs::threadring` (the host runs the same program, see that crate's `host`
//! example) at the board's size and run with the core's sequential scheduler on the board.
//!
//! Reported: the result, whether it validates as SPEC.md says, and the cycles per executed
//! reaction over the whole run (scheduling included).
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use motet_embedded::{clock, init_heap, report, Board};
use motet_embedded_programs::threadring;
use motet_reactor_core::{run_sequential, RunOptions};

#[entry]
fn main() -> ! {
    init_heap!(256 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut p = threadring::build(threadring::BOARD_NODES, threadring::BOARD_PASSES)
        .expect("the threadring program is well formed");
    let options = RunOptions {
        fast: true,
        ..RunOptions::default()
    };
    let start = clock::now_cycles();
    let run = run_sequential(&mut p.program, &mut board, &options, &mut ());
    let took = clock::now_cycles() - start;
    report::memory();
    let outcome = p.outcome();
    match (run, outcome.result) {
        (Ok(m), Some(result)) => {
            report::figure("reactions", m.reactions_executed);
            report::figure("per_reaction_cycles", took / m.reactions_executed.max(1));
            report::finish("threadring", result, outcome.validated)
        }
        (Ok(_), None) => report::finish("threadring", "no-result", false),
        (Err(e), _) => report::finish("threadring", e, false),
    }
}
