//! `modes`: LF's modal reactors with a reset, driving a deadline-checked control loop.
//!
//! A controller has two modes. In `normal` (the initial mode) a 1 ms timer samples a simulated
//! plant and a control reaction with a 200 us deadline computes the actuation; a load reaction
//! before it at the same tag spins for 300 us on every fifth sample, so those samples miss their
//! deadline and the handler runs instead (it holds the last actuation). After ten samples the
//! controller switches to `degraded` with a reset; there a 5 ms timer ticks three times and
//! switches back to `normal`, again with a reset, which restarts `normal`'s timer and runs its
//! reset hook. The program stops after four rounds.
//!
//! Validated from the log of what ran: the modes alternate, four rounds of each; every `normal`
//! stint has ten samples 1 ms apart and every `degraded` stint three ticks 5 ms apart, each
//! stint's first at the logical time its mode was entered (the reset restarted its timer); the
//! samples that missed are exactly the fifth and tenth of each stint; the reset hook ran on each
//! re-entry into `normal`.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;
use core::time::Duration;

use cortex_m_rt::entry;
use motet_embedded::{clock, init_heap, report, Board, SYSCLK_HZ};
use motet_reactor_core::{run_sequential, Ctx, ModeId, ProgramBuilder, RunOptions, Transition};

const SAMPLES_PER_STINT: u32 = 10;
const TICKS_PER_STINT: u32 = 3;
const ROUNDS: u32 = 4;
const SAMPLE: Duration = Duration::from_millis(1);
const TICK: Duration = Duration::from_millis(5);
const DEADLINE: Duration = Duration::from_micros(200);
const LOAD: Duration = Duration::from_micros(300);

/// One line of the log: which mode ran, at what logical time, and whether it missed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Sample { at: Duration, missed: bool },
    Tick { at: Duration },
}

/// The controller's state.
struct Controller {
    log: Vec<Event>,
    /// Samples (or ticks) in the current stint.
    in_stint: u32,
    rounds: u32,
    /// Times `normal`'s reset hook ran.
    resets: u32,
    /// The plant's state and the last actuation (fixed point).
    x: i32,
    u: i32,
}

/// Records a sample and switches to `degraded` after the last of a stint.
fn sampled(c: &mut Controller, ctx: &Ctx<'_>, missed: bool, degraded: ModeId<Controller>) {
    c.log.push(Event::Sample {
        at: ctx.time(),
        missed,
    });
    c.x += c.u;
    c.in_stint += 1;
    if c.in_stint == SAMPLES_PER_STINT {
        ctx.set_mode(degraded, Transition::Reset);
    }
}

#[entry]
fn main() -> ! {
    init_heap!(24 * 1024);
    motet_embedded::stack::paint();
    let mut board = Board::take();
    let mut b = ProgramBuilder::new();
    let c = b.reactor(
        "controller",
        Controller {
            log: Vec::with_capacity(((SAMPLES_PER_STINT + TICKS_PER_STINT) * ROUNDS) as usize),
            in_stint: 0,
            rounds: 0,
            resets: 0,
            x: 1000,
            u: 0,
        },
    );
    let normal = b.mode(c, "normal");
    let degraded = b.mode(c, "degraded");
    let sample = b.timer(normal, "sample", Duration::ZERO, SAMPLE);
    let tick = b.timer(degraded, "tick", Duration::ZERO, TICK);
    b.reaction(normal, "load")
        .trigger(sample)
        .body(|c: &mut Controller, _| {
            if c.in_stint % 5 == 4 {
                let until = clock::now_cycles()
                    + LOAD.as_micros() as u64 * u64::from(SYSCLK_HZ / 1_000_000);
                while clock::now_cycles() < until {}
            }
        });
    b.reaction(normal, "control")
        .trigger(sample)
        .effect(degraded)
        .deadline(DEADLINE, move |c: &mut Controller, ctx| {
            // Late: hold the last actuation.
            sampled(c, ctx, true, degraded)
        })
        .body(move |c: &mut Controller, ctx| {
            c.u = -c.x / 4;
            sampled(c, ctx, false, degraded)
        });
    b.reaction(degraded, "tick")
        .trigger(tick)
        .effect(normal)
        .body(move |c: &mut Controller, ctx| {
            c.log.push(Event::Tick { at: ctx.time() });
            c.in_stint += 1;
            if c.in_stint == TICKS_PER_STINT {
                c.rounds += 1;
                if c.rounds == ROUNDS {
                    ctx.request_stop();
                } else {
                    ctx.set_mode(normal, Transition::Reset);
                }
            }
        });
    b.on_reset(normal, |c: &mut Controller| {
        c.in_stint = 0;
        c.resets += 1;
    });
    b.on_reset(degraded, |c: &mut Controller| c.in_stint = 0);
    let mut program = b.build().expect("the modal program is well formed");
    let run = run_sequential(&mut program, &mut board, &RunOptions::default(), &mut ());
    report::memory();
    let c = program.state_mut(c);
    let (ok, misses) = check(&c.log);
    let ok = ok && c.resets == ROUNDS - 1;
    report::figure("deadline_misses", misses);
    if !ok {
        for e in &c.log {
            cortex_m_semihosting::hprintln!("log: {:?}", e);
        }
    }
    report::figure("resets", c.resets);
    match run {
        Ok(_) => report::finish("modes", c.log.len(), ok),
        Err(e) => report::finish("modes", e, false),
    }
}

/// Checks the log (see the module docs); returns whether it is right and how many samples missed.
fn check(log: &[Event]) -> (bool, u32) {
    let mut ok = true;
    let mut misses = 0;
    let mut rest = log;
    let mut entered = Duration::ZERO;
    for _ in 0..ROUNDS {
        let (normal, after) = rest.split_at(rest.len().min(SAMPLES_PER_STINT as usize));
        for (k, e) in normal.iter().enumerate() {
            let due = entered + SAMPLE * k as u32;
            let should_miss = k % 5 == 4;
            ok &= *e
                == Event::Sample {
                    at: due,
                    missed: should_miss,
                };
            misses += u32::from(matches!(e, Event::Sample { missed: true, .. }));
        }
        ok &= normal.len() == SAMPLES_PER_STINT as usize;
        entered += SAMPLE * (SAMPLES_PER_STINT - 1);
        let (degraded, after) = after.split_at(after.len().min(TICKS_PER_STINT as usize));
        for (k, e) in degraded.iter().enumerate() {
            ok &= *e
                == Event::Tick {
                    at: entered + TICK * k as u32,
                };
        }
        ok &= degraded.len() == TICKS_PER_STINT as usize;
        entered += TICK * (TICKS_PER_STINT - 1);
        rest = after;
    }
    (ok && rest.is_empty(), misses)
}
