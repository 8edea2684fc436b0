//! `timer_builder`: the `timer` program (one 1 ms timer, one reaction toggling LED 0, 10,000
//! periods) declared on the builder and run by `run_sequential`, the general path: its footprint
//! and timer offsets beside those of the table path.
//!
//! Validated: exactly 10,000 reactions ran, the k-th at logical time k ms, and the run ended
//! without error. Reported: the offsets' p50, p99 and maximum in processor cycles.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;
use core::time::Duration;

use cortex_m_rt::entry;
use motet_embedded::{init_heap, report, Board};
use motet_reactor_core::{run_sequential, ProgramBuilder, RunOptions};

/// Periods to run.
const PERIODS: usize = 10_000;
/// The timer's period.
const PERIOD: Duration = Duration::from_millis(1);
/// The period in nanoseconds.
const PERIOD_NS: u64 = PERIOD.as_nanos() as u64;
/// Nanoseconds per cycle of the board's clock.
const NS_PER_CYCLE: u32 = motet_embedded::NS_PER_CYCLE as u32;
/// The FPGA I/O block's LED register (bit 0: LED 0).
const LEDS: *mut u32 = 0x4002_8000 as *mut u32;

/// The reaction's state.
struct Blink {
    offsets: Vec<u32>,
    /// Reactions whose logical time was not `offsets.len()` periods.
    misplaced: usize,
    on: bool,
}

#[entry]
fn main() -> ! {
    init_heap!(48 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    let blink = b.reactor(
        "blink",
        Blink {
            offsets: Vec::with_capacity(PERIODS),
            misplaced: 0,
            on: false,
        },
    );
    let t = b.timer(blink, "t", Duration::ZERO, PERIOD);
    b.reaction(blink, "toggle")
        .trigger(t)
        .body(|s: &mut Blink, ctx| {
            let offset =
                u32::try_from(ctx.lag_nanos()).map_or(u32::MAX, |ns| ns / NS_PER_CYCLE);
            s.on = !s.on;
            // SAFETY: `LEDS` is the FPGA I/O LED register of mps2-an386; writing it only lights
            // LEDs.
            unsafe { core::ptr::write_volatile(LEDS, u32::from(s.on)) };
            if ctx.tag().nanos() != PERIOD_NS * s.offsets.len() as u64 {
                s.misplaced += 1;
            }
            s.offsets.push(offset);
            if s.offsets.len() == PERIODS {
                ctx.request_stop();
            }
        });
    let mut program = b.build().expect("the blink program is well formed");
    let run = run_sequential(&mut program, &mut board, &RunOptions::default(), &mut ());
    report::memory();
    let s = program.state_mut(blink);
    let n = s.offsets.len();
    let ok = run.is_ok() && n == PERIODS && s.misplaced == 0;
    report::figure("sleeps", board.sleeps());
    report::distribution("timer_offset_cycles", &mut s.offsets);
    match run {
        Ok(_) => report::finish("timer_builder", n, ok),
        Err(e) => report::finish("timer_builder", e, false),
    }
}
