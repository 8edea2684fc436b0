//! motet-embedded: motet's deterministic reactors ([`motet_reactor_core`]) on a Cortex-M4F board,
//! QEMU's `mps2-an386`.
//!
//! The board layer gives the reactor core what [`Platform`](motet_reactor_core::Platform) asks
//! for, and nothing else:
//!
//! - a physical clock ([`clock`]): SysTick counting processor cycles, extended to 64 bits by
//!   counting its wraps;
//! - a sleep until the next event ([`Board`]): a one-shot CMSDK timer ([`timer`]) raises an
//!   interrupt shortly before the deadline, the core sleeps in `WFI` until then (or until any
//!   other interrupt), and spins the last stretch so that a tag starts close to its time;
//! - critical sections: cortex-m's single-core implementation of the `critical-section` crate
//!   (masking interrupts);
//! - a heap for `alloc` ([`heap`]), its size chosen by each program, with a peak count;
//! - interrupt-safe physical actions: [`motet_reactor_core::IrqSender`] fills a fixed-capacity
//!   ring without allocating or locking, and [`IrqCell`] hands it to an interrupt handler;
//! - reports through semihosting ([`report`]): each program prints its result and exits with a
//!   status QEMU passes on; a panic prints its message and exits with a failure.
//!
//! The programs in `src/bin` are the ones `run-qemu.sh` builds, runs and checks.
#![no_std]
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

extern crate alloc;

pub mod board;
pub mod clock;
pub mod heap;
pub mod irq;
pub mod report;
pub mod stack;
pub mod timer;

pub use board::Board;
pub use irq::{Interrupt, IrqCell};

/// The processor clock of `mps2-an386`, which SysTick and the CMSDK timers count, in hertz.
pub const SYSCLK_HZ: u32 = 25_000_000;

/// Nanoseconds per processor cycle at [`SYSCLK_HZ`].
pub const NS_PER_CYCLE: u64 = 1_000_000_000 / SYSCLK_HZ as u64;

/// Converts nanoseconds to processor cycles (rounding down).
pub const fn cycles(ns: u64) -> u64 {
    ns / NS_PER_CYCLE
}

/// A panic prints its message through semihosting and ends the run with a failure status, so
/// that a failed assertion on the board fails `run-qemu.sh` instead of hanging it. The programs
/// are built with `panic = "immediate-abort"` (see `.cargo/config.toml`), where a panic does not
/// come here but executes an undefined instruction: see [`HardFault`].
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    cortex_m::interrupt::disable();
    cortex_m_semihosting::hprintln!("panicked: {}", info);
    report::exit(false)
}

/// A hard fault, which is also where a panic ends under `panic = "immediate-abort"` (as an
/// undefined instruction): prints where it happened and ends the run with a failure status.
#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    cortex_m::interrupt::disable();
    report::Line::new()
        .str("motet: hard fault (a panic, or a fault) at pc=")
        .num(u64::from(frame.pc()))
        .print();
    report::exit(false)
}
