//! `timer`: one timer, one reaction (LF's "blink"): a 1 ms timer whose reaction toggles LED 0 and
//! records how far the clock at its start is from its tag's logical time, over 10,000 periods.
//! Declared as a table and run by `run_table` (the small path); `timer_builder` is the same
//! program on the builder and `run_sequential`.
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
use motet_reactor_core::{
    run_table, ProgramTable, ReactionRow, ReactorRow, RunOptions, TableProgram, TimerRow,
    Trigger,
};

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

/// The program, as constant tables: built without the builder, whose code and checks would
/// be most of the image.
static BLINK: ProgramTable = ProgramTable::new(
    &[ReactorRow::new("blink")],
    &[TimerRow::new("t", 0, Duration::ZERO, PERIOD)],
    &[ReactionRow::new("toggle", 0, &[Trigger::Timer(0)])],
);

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
    let mut t = TableProgram::new(&BLINK).expect("the blink table is well formed");
    let blink = t
        .state(
            0,
            Blink {
                offsets: Vec::with_capacity(PERIODS),
                misplaced: 0,
                on: false,
            },
        )
        .expect("reactor 0 exists");
    t.body(0, blink, |s: &mut Blink, ctx| {
        let offset = u32::try_from(ctx.lag_nanos()).map_or(u32::MAX, |ns| ns / NS_PER_CYCLE);
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
    })
    .expect("reaction 0 belongs to reactor 0");
    let mut program = t.build().expect("every state and body is given");
    let run = run_table(&mut program, &mut board, &RunOptions::default(), &mut ());
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
