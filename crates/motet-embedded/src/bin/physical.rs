//! `physical`: a physical action raised from an interrupt handler. CMSDK timer 1 interrupts every
//! millisecond; its handler reads how long ago the timer expired, and sends the expiry time
//! through an [`IrqSender`] (no allocation, no lock). The action's reaction measures the cycles
//! from the timer's expiry to its own start, over 1,000 interrupts.
//!
//! Validated: 1,000 values arrived, numbered 0 to 999 in order (none lost, none repeated), their
//! expiries a whole number of timer periods apart, with no ring overflow and no run error. (A
//! whole number rather than exactly one: under QEMU 7.2 with `-icount sleep=off`, a periodic
//! timer that expires while the core sleeps in `WFI` interrupts only at every second expiry; the
//! program reports the largest spacing it saw.) Reported: the interrupt-to-reaction
//! latency's p50, p99 and maximum in processor cycles, and the cycles from expiry to the
//! handler's clock reading.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
use core::time::Duration;

use cortex_m::peripheral::NVIC;
use cortex_m_rt::entry;
use motet_embedded::timer::TIMER1 as SENSOR;
use motet_embedded::{clock, init_heap, report, Board, Interrupt, IrqCell, NS_PER_CYCLE};
use motet_reactor_core::{run_sequential, IrqSender, ProgramBuilder, RunOptions};

/// Interrupts to measure.
const SAMPLES: usize = 1_000;
/// The timer's period in cycles (1 ms at 25 MHz).
const PERIOD: u32 = 25_000;

/// What the handler sends: its interrupt's number, when the timer expired (cycles), and how many
/// cycles after the expiry the handler read the clock.
type Tick = (u32, u64, u32);

static SENDER: IrqCell<IrqSender<Tick>> = IrqCell::new();
/// Interrupts taken so far.
static TICKS: AtomicU32 = AtomicU32::new(0);

/// The reaction's state.
struct Seen {
    latency: Vec<u32>,
    entry: Vec<u32>,
    next: u32,
    last_fire: Option<u64>,
    /// The most cycles between two expiries.
    spacing_max: u64,
    /// Values out of order, or not whole periods apart.
    wrong: usize,
}

#[entry]
fn main() -> ! {
    init_heap!(32 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    let r = b.reactor(
        "sensor",
        Seen {
            latency: Vec::with_capacity(SAMPLES),
            entry: Vec::with_capacity(SAMPLES),
            next: 0,
            last_fire: None,
            spacing_max: 0,
            wrong: 0,
        },
    );
    let tick = b.physical_action::<Tick, _>(r, "tick", Duration::ZERO);
    b.reaction(r, "measure")
        .trigger(tick)
        .body(move |s: &mut Seen, ctx| {
            let start = clock::now_cycles();
            let Some(&(n, fire, entry)) = ctx.get(tick) else {
                return;
            };
            s.latency.push(u32::try_from(start - fire).unwrap_or(u32::MAX));
            s.entry.push(entry);
            // Whole periods apart (see the module docs for why not always one).
            let spaced = s.last_fire.is_none_or(|l| {
                let d = fire - l;
                s.spacing_max = s.spacing_max.max(d);
                d > 0 && d % u64::from(PERIOD) == 0
            });
            if n != s.next || !spaced {
                s.wrong += 1;
            }
            s.next = n + 1;
            s.last_fire = Some(fire);
            if s.latency.len() == SAMPLES {
                SENSOR.stop();
                ctx.request_stop();
            }
        });
    let sender = b.irq_sender(tick, 8);
    let mut program = b.build().expect("the physical program is well formed");
    assert!(SENDER.set(sender).is_ok(), "set once");
    // One cycle less than the period: the timer counts RELOAD down to 0 inclusive.
    SENSOR.start(PERIOD - 1);
    // SAFETY: the handler only reads the timer and `SENDER`, which is set above.
    unsafe { NVIC::unmask(Interrupt::Timer1) };
    let run = run_sequential(&mut program, &mut board, &RunOptions::default(), &mut ());
    NVIC::mask(Interrupt::Timer1);
    SENSOR.stop();
    report::memory();
    let overflows = SENDER.get().map_or(0, |s| s.overflows());
    report::figure("overflows", overflows);
    report::figure("interrupts", TICKS.load(Relaxed));
    let s = program.state_mut(r);
    let n = s.latency.len();
    report::figure("irq_spacing_max_cycles", s.spacing_max);
    let ok = run.is_ok() && n == SAMPLES && s.wrong == 0 && overflows == 0;
    if n > 0 {
        report::distribution("irq_latency_cycles", &mut s.latency);
        report::distribution("irq_entry_cycles", &mut s.entry);
    }
    match run {
        Ok(_) => report::finish("physical", n, ok),
        Err(e) => report::finish("physical", e, false),
    }
}

/// Timer 1's interrupt: the expiry time is now less the cycles the timer has counted since it
/// reloaded.
#[no_mangle]
extern "C" fn TIMER1() {
    let now = clock::now_cycles();
    let since = SENSOR.reload() - SENSOR.value();
    SENSOR.clear();
    let n = TICKS.fetch_add(1, Relaxed);
    let fire = now - u64::from(since);
    if let Some(s) = SENDER.get() {
        // A full ring is counted by the sender and reported by the scheduler.
        let _ = s.send_at((n, fire, since), fire * NS_PER_CYCLE);
    }
}
