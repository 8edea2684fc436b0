//! The timers of `mps2-an386`, all counting down at the processor clock:
//!
//! - the two CMSDK APB timers ([`TIMER0`], [`TIMER1`]): 32-bit, periodic only (an interrupt at
//!   zero, then they reload and go on); free for programs (the `physical` program raises a
//!   physical action from timer 1's interrupt);
//! - the first counter of the CMSDK dual timer, used in its one-shot mode as the board's alarm
//!   ([`Alarm`]): [`Board`](crate::Board) arms it to wake the core before a deadline.
//!
//! The alarm is one-shot rather than a periodic timer stopped by its handler because under QEMU
//! 7.2 with `-icount sleep=off` a core asleep in `WFI` on a periodic timer's first expiry wakes
//! only at its second (twice the programmed delay), while a one-shot expiry wakes it on time.

use core::ptr::{read_volatile, write_volatile};

const CTRL: usize = 0x0;
const VALUE: usize = 0x4;
const RELOAD: usize = 0x8;
const INTCLEAR: usize = 0xC;
const CTRL_ENABLE: u32 = 1 << 0;
const CTRL_IRQ: u32 = 1 << 3;

/// One CMSDK APB timer (periodic).
#[derive(Clone, Copy, Debug)]
pub struct CmsdkTimer {
    base: usize,
}

/// Timer 0 (interrupt [`Interrupt::Timer0`](crate::Interrupt::Timer0)), free for programs.
pub const TIMER0: CmsdkTimer = CmsdkTimer { base: 0x4000_0000 };
/// Timer 1 (interrupt [`Interrupt::Timer1`](crate::Interrupt::Timer1)), free for programs.
pub const TIMER1: CmsdkTimer = CmsdkTimer { base: 0x4000_1000 };

impl CmsdkTimer {
    fn write(self, reg: usize, v: u32) {
        // SAFETY: `base + reg` is one of this timer's registers in the board's memory map (the
        // two timers are the constants above), and writing them has no effect on memory.
        unsafe { write_volatile((self.base + reg) as *mut u32, v) }
    }

    fn read(self, reg: usize) -> u32 {
        // SAFETY: as in `write`; reading a timer register has no side effect.
        unsafe { read_volatile((self.base + reg) as *const u32) }
    }

    /// Counts down from `cycles` (at least 1), raising its interrupt at zero and reloading
    /// `cycles`: an interrupt every `cycles + 1` cycles, the first after `cycles`.
    pub fn start(self, cycles: u32) {
        self.write(CTRL, 0);
        self.write(RELOAD, cycles.max(1));
        self.write(VALUE, cycles.max(1));
        self.write(INTCLEAR, 1);
        self.write(CTRL, CTRL_ENABLE | CTRL_IRQ);
    }

    /// Stops the counter and clears a pending interrupt request.
    pub fn stop(self) {
        self.write(CTRL, 0);
        self.write(INTCLEAR, 1);
    }

    /// Acknowledges the interrupt (call from its handler).
    pub fn clear(self) {
        self.write(INTCLEAR, 1);
    }

    /// The counter now.
    pub fn value(self) -> u32 {
        self.read(VALUE)
    }

    /// The reload value.
    pub fn reload(self) -> u32 {
        self.read(RELOAD)
    }
}

/// The board's alarm: the dual timer's first counter in one-shot, 32-bit mode, interrupt
/// [`Interrupt::DualTimer`](crate::Interrupt::DualTimer).
#[derive(Clone, Copy, Debug)]
pub struct Alarm;

const DUAL_BASE: usize = 0x4000_2000;
const DUAL_LOAD: usize = 0x00;
const DUAL_CONTROL: usize = 0x08;
const DUAL_INTCLR: usize = 0x0C;
const DUAL_ONESHOT: u32 = 1 << 0;
const DUAL_32BIT: u32 = 1 << 1;
const DUAL_IRQ: u32 = 1 << 5;
const DUAL_ENABLE: u32 = 1 << 7;

impl Alarm {
    fn write(self, reg: usize, v: u32) {
        // SAFETY: `DUAL_BASE + reg` is a register of the dual timer's first counter in the
        // board's memory map; writing it has no effect on memory.
        unsafe { write_volatile((DUAL_BASE + reg) as *mut u32, v) }
    }

    /// Raises the alarm's interrupt once, `cycles` (at least 1) from now; replaces an alarm
    /// already armed.
    pub fn arm(self, cycles: u32) {
        self.write(DUAL_CONTROL, 0);
        self.write(DUAL_INTCLR, 1);
        self.write(DUAL_LOAD, cycles.max(1));
        self.write(
            DUAL_CONTROL,
            DUAL_ENABLE | DUAL_IRQ | DUAL_32BIT | DUAL_ONESHOT,
        );
    }

    /// Stops the alarm and clears its interrupt request (its handler calls this).
    pub fn disarm(self) {
        self.write(DUAL_CONTROL, 0);
        self.write(DUAL_INTCLR, 1);
    }
}
