//! The board's interrupts: their numbers, the device part of the vector table, and [`IrqCell`],
//! which hands a value (an [`IrqSender`](motet_reactor_core::IrqSender)) to an interrupt handler.
//!
//! cortex-m-rt lays out the vector table; its device part, `__INTERRUPTS`, comes from here. Each
//! entry names a handler that `device.x` defaults to `DefaultHandler`; a program defines the ones
//! it uses as `#[no_mangle] extern "C" fn TIMER1()` (say), and the board layer defines
//! `DUALTIMER`, its alarm.

use once_cell::race::OnceBox;

/// The interrupts of `mps2-an386` that motet-embedded uses (numbers from the AN386 memory map).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Interrupt {
    /// CMSDK timer 0: free for programs.
    Timer0 = 8,
    /// CMSDK timer 1: free for programs.
    Timer1 = 9,
    /// The CMSDK dual timer: the board's alarm.
    DualTimer = 10,
}

// SAFETY: the numbers are the board's interrupt numbers, all below the 32 entries of
// `__INTERRUPTS`.
unsafe impl cortex_m::interrupt::InterruptNumber for Interrupt {
    fn number(self) -> u16 {
        self as u16
    }
}

/// One entry of the vector table: a handler, or a reserved word.
#[doc(hidden)]
pub union Vector {
    handler: unsafe extern "C" fn(),
    reserved: usize,
}

extern "C" {
    fn TIMER0();
    fn TIMER1();
    fn DUALTIMER();
}

/// The device part of the vector table (32 interrupts on `mps2-an386` in QEMU).
#[doc(hidden)]
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
pub static __INTERRUPTS: [Vector; 32] = {
    const NONE: Vector = Vector { reserved: 0 };
    let mut v = [NONE; 32];
    v[Interrupt::Timer0 as usize] = Vector { handler: TIMER0 };
    v[Interrupt::Timer1 as usize] = Vector { handler: TIMER1 };
    v[Interrupt::DualTimer as usize] = Vector { handler: DUALTIMER };
    v
};

/// A value set once from thread mode (before the interrupt that reads it is enabled) and then
/// read from an interrupt handler without a lock: a pointer published with one atomic
/// compare-and-swap (once_cell's `OnceBox`).
///
/// ```ignore
/// static SENDER: IrqCell<IrqSender<u32>> = IrqCell::new();
/// SENDER.set(sender);                       // thread mode, once
/// if let Some(s) = SENDER.get() { ... }      // in the handler
/// ```
pub struct IrqCell<T> {
    cell: OnceBox<T>,
}

impl<T> IrqCell<T> {
    /// An empty cell.
    pub const fn new() -> IrqCell<T> {
        IrqCell {
            cell: OnceBox::new(),
        }
    }

    /// Sets the value (allocates its box: call from thread mode); hands `value` back if the cell
    /// was set already.
    pub fn set(&self, value: T) -> Result<(), T> {
        self.cell.set(alloc::boxed::Box::new(value)).map_err(|b| *b)
    }

    /// The value, if set; takes no lock and allocates nothing.
    pub fn get(&self) -> Option<&T> {
        self.cell.get()
    }
}

impl<T> Default for IrqCell<T> {
    fn default() -> Self {
        IrqCell::new()
    }
}
