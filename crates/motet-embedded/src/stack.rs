//! The stack's high-water mark: [`paint`] fills the stack below the current frame with a pattern,
//! [`peak`] finds the lowest word no longer holding it.
//!
//! cortex-m-rt puts the stack at the top of RAM, growing down towards the heap and statics. The
//! painted window is the [`WINDOW`] bytes below the top; a program deeper than that would report
//! the whole window (and [`peak`] says so by returning `WINDOW`).

use core::ptr::{read_volatile, write_volatile};

/// The bytes below the top of the stack that [`paint`] fills and [`peak`] scans.
pub const WINDOW: usize = 32 * 1024;

const PATTERN: u32 = 0x5AA5_C33C;

/// Headroom kept below the current stack pointer while painting: the painting code's own frame.
const GUARD: usize = 256;

extern "C" {
    static _stack_start: u32;
}

fn top() -> usize {
    // `_stack_start` is cortex-m-rt's linker symbol for the initial stack pointer; only its
    // address is taken.
    core::ptr::addr_of!(_stack_start) as usize
}

/// Paints the unused part of the window (call early in `main`, while the stack is shallow).
#[inline(never)]
pub fn paint() {
    let sp = cortex_m::register::msp::read() as usize;
    let bottom = top() - WINDOW;
    let mut p = bottom;
    while p + GUARD < sp {
        // SAFETY: `p` lies between the bottom of the window and the stack pointer less a guard:
        // RAM below every live frame, which no Rust object occupies (cortex-m-rt keeps statics
        // and the heap below the stack, and `WINDOW` is far less than the RAM above them).
        unsafe { write_volatile(p as *mut u32, PATTERN) };
        p += 4;
    }
}

/// The deepest the stack has been since [`paint`], in bytes from its top.
#[inline(never)]
pub fn peak() -> usize {
    let bottom = top() - WINDOW;
    let mut p = bottom;
    // SAFETY: as in `paint`: the words read lie in the window, below the live frames or in them;
    // reading a word of RAM is always defined here.
    while p < top() && unsafe { read_volatile(p as *const u32) } == PATTERN {
        p += 4;
    }
    top() - p
}
