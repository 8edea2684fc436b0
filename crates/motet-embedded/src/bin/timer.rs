//! `timer`: one timer, one reaction (LF's "blink"): a 1 ms timer whose reaction toggles LED 0 and
//! records how far the clock at its start is from its tag's logical time, over 10,000 periods.
//!
//! Validated: exactly 10,000 reactions ran, the k-th at logical time k ms, and the run ended
//! without error. Reported: the offsets' p50, p99 and maximum in processor cycles.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;
use core::time::Duration;

use cortex_m_rt::entry;
use motet_embedded::{cycles, init_heap, report, Board};
use motet_reactor_core::{run_sequential, ProgramBuilder, RunOptions};

/// Periods to run.
const PERIODS: usize = 10_000;
/// The timer's period.
const PERIOD: Duration = Duration::from_millis(1);
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
            let offset = cycles(ctx.lag().as_nanos() as u64);
            s.on = !s.on;
            // SAFETY: `LEDS` is the FPGA I/O LED register of mps2-an386; writing it only lights
            // LEDs.
            unsafe { core::ptr::write_volatile(LEDS, u32::from(s.on)) };
            if ctx.time() != PERIOD * s.offsets.len() as u32 {
                s.misplaced += 1;
            }
            s.offsets.push(u32::try_from(offset).unwrap_or(u32::MAX));
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
    if n > 0 {
        report::distribution("timer_offset_cycles", &mut s.offsets);
    }
    match run {
        Ok(_) => report::finish("timer", n, ok),
        Err(e) => report::finish("timer", e, false),
    }
}
