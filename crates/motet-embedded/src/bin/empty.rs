//! `empty`: a program with one reactor and nothing in it (LF's empty program): the runtime starts
//! it, finds nothing to do and shuts it down.
//!
//! Validated: the run ends without error after exactly two tags, startup (0, 0) and shutdown one
//! microstep later, at logical time zero.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use motet_embedded::{init_heap, report, Board};
use motet_reactor_core::{run_sequential, ProgramBuilder, RunOptions};

#[entry]
fn main() -> ! {
    init_heap!(8 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    b.reactor("main", ());
    let mut program = b.build().expect("the empty program is well formed");
    let run = run_sequential(&mut program, &mut board, &RunOptions::default(), &mut ());
    report::memory();
    match run {
        Ok(m) => report::finish("empty", m.tags, m.tags == 2),
        Err(e) => report::finish("empty", e, false),
    }
}
